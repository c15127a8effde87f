package granary.recovery.osgi;

import granary.recovery.Recovery;
import granary.recovery.RecoveryOptions;
import java.time.Duration;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.Designate;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;

/**
 * The recovery engine as a service for the master (docs/recovery.md), configured from Config Admin
 * PID {@value #PID}. The master's component takes it by reference, like the policies.
 */
@Component(service = Recovery.class, configurationPid = RecoveryComponent.PID, configurationPolicy = ConfigurationPolicy.OPTIONAL)
@Designate(ocd = RecoveryComponent.Config.class)
public final class RecoveryComponent implements Recovery {

    public static final String PID = "granary.recovery";

    @ObjectClassDefinition(name = "Granary recovery", description = "How long a master that starts empty listens before it rebuilds.")
    public @interface Config {
        @AttributeDefinition(description = "Longest wait, in seconds, for agents and job masters to report after the master starts (0: none).")
        long windowSeconds() default 60;

        @AttributeDefinition(description = "The window closes early once every peer some report names has reported and no new one came for this many milliseconds.")
        long settleMillis() default 2000;

        @AttributeDefinition(description = "Keep the offline caps of a job master that did not report within the window (default: dropped, as the specification's case 11 says).")
        boolean keepOfflineOfAbsent() default false;
    }

    private RecoveryOptions options;

    @Activate
    void activate(Config config) {
        options = new RecoveryOptions(Duration.ofSeconds(config.windowSeconds()), Duration.ofMillis(config.settleMillis()),
                config.keepOfflineOfAbsent());
    }

    @Override
    public RecoveryOptions options() {
        return options;
    }
}

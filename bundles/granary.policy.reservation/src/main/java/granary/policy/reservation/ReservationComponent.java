package granary.policy.reservation;

import granary.api.spi.Policy;

import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ServiceScope;
import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.Designate;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;

/**
 * The reservation policy as a DS component. A configuration change re-creates it: the old instance
 * is detached (its locks released) and the new one elects afresh.
 */
@Component(service = Policy.class, scope = ServiceScope.PROTOTYPE, configurationPid = "granary.policy.reservation",
        property = "granary.policy.name=" + ReservationPolicy.NAME)
@Designate(ocd = ReservationComponent.Config.class)
public class ReservationComponent extends ReservationPolicy {

    @ObjectClassDefinition(name = "Granary reservation policy",
            description = "Reservation against starvation (spec §9): elect a starving job, lock a node group for it.")
    public @interface Config {
        @AttributeDefinition(description = "A job that has starved (waited without getting a new slot) this long (ms) "
                + "may be elected target. Default 60 s: "
                + "six times the 10 s wait-for-resource mark; lower reserves for ordinary waits, higher lets a "
                + "starving job wait longer.")
        long thresholdMillis() default ReservationOptions.DEFAULT_THRESHOLD_MILLIS;

        @AttributeDefinition(description = "SPEC_FIRST: nodes by capacity in the target's main resource (fewest "
                + "nodes, stable). IDLE_FIRST: by free amount (frees fastest, less stable).")
        Mode mode() default Mode.SPEC_FIRST;

        @AttributeDefinition(description = "A reservation not fulfilled after this long (ms) is released and its "
                + "target waits the threshold again before it can be re-elected. 0 = never. Default 10 minutes.")
        long timeoutMillis() default ReservationOptions.DEFAULT_TIMEOUT_MILLIS;
    }

    @Activate
    public ReservationComponent(Config config) {
        super(new ReservationOptions(config.thresholdMillis(), config.mode(), config.timeoutMillis()));
    }
}

package granary.policy.quota;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.DateTimeException;
import java.time.ZoneId;

import granary.api.InvalidRequestException;
import granary.api.quota.QuotaTable;
import granary.api.spi.Policy;
import granary.codec.QuotaTableCodec;

import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ServiceScope;
import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.Designate;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;

/**
 * The quota policy as a DS component. A configuration change re-creates it (billing starts over);
 * load a new table at run time with {@code granary:quota-load}, which keeps billing.
 */
@Component(service = Policy.class, scope = ServiceScope.PROTOTYPE, configurationPid = "granary.policy.quota",
        property = "granary.policy.name=" + QuotaPolicy.NAME)
@Designate(ocd = QuotaComponent.Config.class)
public class QuotaComponent extends QuotaPolicy {

    @ObjectClassDefinition(name = "Granary quota policy",
            description = "Elastic quota groups with a time-sliced quota table (spec §5-§6).")
    public @interface Config {
        @AttributeDefinition(description = "Quota table file (JSON, the article's format). Empty: no table; "
                + "the policy then admits everything.")
        String tableFile() default "";

        @AttributeDefinition(description = "WorkerSpans: workers per slice, e.g. default:5000,0-9:15000. Empty: none.")
        String workerSpans() default "";

        @AttributeDefinition(description = "Time zone of slice hours and billing days, e.g. UTC or Asia/Shanghai.")
        String zone() default "UTC";

        @AttributeDefinition(description = "A group below its MinQuota takes capacity back by preempting offline "
                + "grants of groups above theirs, oldest first.")
        boolean preemption() default true;

        @AttributeDefinition(description = "While the top job cannot be placed it is the emergent job and nothing "
                + "else is granted (spec §6). False: others may use what it cannot.")
        boolean holdForEmergent() default true;

        @AttributeDefinition(description = "Days of billing kept.")
        int billingDays() default 31;
    }

    @Activate
    public QuotaComponent(Config config) {
        super(options(config), table(config.tableFile(), config.workerSpans()));
    }

    static QuotaOptions options(Config c) {
        try {
            return new QuotaOptions(ZoneId.of(c.zone()), c.preemption(), c.holdForEmergent(), c.billingDays());
        } catch (DateTimeException e) {
            throw new InvalidRequestException("policy quota", "zone", "'" + c.zone() + "' is not a time zone: " + e.getMessage());
        }
    }

    /** Reads the configured table; a bad file fails activation with every problem in the message. */
    static QuotaTable table(String file, String workerSpans) {
        if (file == null || file.isBlank()) {
            return null;
        }
        Path path = Path.of(file);
        try (Reader in = Files.newBufferedReader(path, StandardCharsets.UTF_8)) {
            return QuotaTableCodec.read(in, path.toString(), QuotaTableCodec.workerSpans(workerSpans));
        } catch (NoSuchFileException e) {
            throw new InvalidRequestException("policy quota", "tableFile", "no such file " + path.toAbsolutePath());
        } catch (IOException e) {
            throw new InvalidRequestException("policy quota", "tableFile", "cannot read " + path.toAbsolutePath()
                    + ": " + e.getMessage());
        }
    }
}

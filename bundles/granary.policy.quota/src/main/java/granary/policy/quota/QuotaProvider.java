package granary.policy.quota;

import java.time.DateTimeException;
import java.time.ZoneId;
import java.util.Map;
import java.util.Set;

import granary.api.InvalidRequestException;
import granary.api.Options;
import granary.api.spi.Policy;
import granary.api.spi.PolicyProvider;

/**
 * Makes quota policies on a class path (see {@link PolicyProvider}). Options: {@code tableFile},
 * {@code workerSpans}, {@code zone}, {@code preemption}, {@code holdForEmergent}, {@code billingDays}
 * — as the DS component's settings. A table can also be handed over later with a
 * {@link granary.api.event.PolicyReconfigured} event.
 */
public class QuotaProvider implements PolicyProvider {

    @Override
    public String name() {
        return QuotaPolicy.NAME;
    }

    @Override
    public Policy create(Map<String, String> options) {
        String subject = "policy " + QuotaPolicy.NAME;
        Options o = new Options(subject, options, options().keySet());
        ZoneId zone;
        try {
            zone = ZoneId.of(o.text("zone", "UTC"));
        } catch (DateTimeException e) {
            throw new InvalidRequestException(subject, "zone", "'" + o.text("zone", "") + "' is not a time zone");
        }
        QuotaOptions q = new QuotaOptions(zone, o.flag("preemption", true), o.flag("holdForEmergent", true),
                (int) o.number("billingDays", 31));
        return new QuotaPolicy(q, QuotaComponent.table(o.text("tableFile", ""), o.text("workerSpans", "")));
    }

    @Override
    public Map<String, String> options() {
        return Map.of("tableFile", "quota table file (JSON)", "workerSpans", "workers per slice, e.g. default:5000,0-9:15000",
                "zone", "time zone of slice hours (default UTC)", "preemption", "take back offline grants for groups below min (default true)",
                "holdForEmergent", "hold others while the top job waits (default true)", "billingDays", "days of billing kept (default 31)");
    }
}

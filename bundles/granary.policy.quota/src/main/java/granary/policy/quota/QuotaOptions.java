package granary.policy.quota;

import java.time.ZoneId;

/**
 * Settings of the quota policy.
 *
 * @param zone            the time zone in which slice hours and billing days are counted
 * @param preemption      a group below its min may take capacity back from groups above theirs
 *                        (offline grants only, oldest first)
 * @param holdForEmergent while the top job cannot be placed it is the emergent job and nothing else
 *                        is granted (docs/multi-tenancy.md, "The elastic quota loop": "this round fails"); false lets others use what it cannot
 * @param billingDays     days of billing kept
 */
public record QuotaOptions(ZoneId zone, boolean preemption, boolean holdForEmergent, int billingDays) {

    public static final QuotaOptions DEFAULTS = new QuotaOptions(ZoneId.of("UTC"), true, true, 31);

    public QuotaOptions {
        if (billingDays < 1) {
            throw new IllegalArgumentException("quota: billingDays must be at least 1, got " + billingDays);
        }
    }

    public QuotaOptions withPreemption(boolean on) {
        return new QuotaOptions(zone, on, holdForEmergent, billingDays);
    }

    public QuotaOptions withHoldForEmergent(boolean on) {
        return new QuotaOptions(zone, preemption, on, billingDays);
    }
}

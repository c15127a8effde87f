package granary.policy.quota;

import java.time.ZoneId;

/**
 * Settings of the quota policy (docs/multi-tenancy.md, "Choices and their defaults").
 *
 * @param zone                  the time zone in which slice hours and billing days are counted
 * @param preemption            a group below its min may take capacity back from groups above theirs
 *                              (offline grants only, the youngest past minRunSeconds first), never beyond its min
 * @param emergent              what the top job that cannot be placed gets: a claim on the nodes it
 *                              needs as they free up ({@link EmergentMode#CLAIM}), the whole cluster
 *                              held for it ({@link EmergentMode#HOLD}, ServiceMode), or nothing
 * @param minRunSeconds         a grant younger than this is never preempted
 * @param maxPreemptedPerMinute at most this many slots are revoked by preemption in any 60 s of
 *                              engine time; 0 = no limit
 * @param lookahead             before a slice boundary lowers a group's quota, work expected to
 *                              outlive the boundary is granted only within the next slice's quota
 * @param lookaheadMinutes      how long before a boundary the lookahead starts to act
 * @param billingDays           days of billing kept
 * @param graceSeconds          a group below its min with demand first waits this long for capacity
 *                              that frees up on its own (it is served first) before it preempts
 * @param yieldAboveMin         while a group below its min waits for resources, groups above their min are
 *                              granted nothing new (what they would get is what preemption takes back first)
 * @param smallFirst            among groups alike by production level, min and priority, the one whose
 *                              head's job asked for fewer slots goes first (else the earlier submission)
 * @param packingHeadroomPercent when the mins of the slice in force add up to more than this much less
 *                              than the cluster in a resource, each min in that resource is lowered pro rata
 *                              until they add up to that: the guarantee the cluster can pack (0: the mins as
 *                              the table says)
 * @param minDeadZonePerMille   a group counts as below its min — it takes capacity back, and the guarantee's
 *                              bound is measured — only when it is short of its min by more than this many
 *                              thousandths of it in every resource; once it takes, it takes up to its whole min
 *                              (0: any shortfall)
 */
public record QuotaOptions(ZoneId zone, boolean preemption, EmergentMode emergent, long minRunSeconds,
                           long maxPreemptedPerMinute, boolean lookahead, long lookaheadMinutes, int billingDays,
                           boolean smallFirst, long graceSeconds, boolean yieldAboveMin, long packingHeadroomPercent,
                           long minDeadZonePerMille) {

    /** What the emergent job of docs/multi-tenancy.md, "The elastic quota loop", gets. */
    public enum EmergentMode {
        /** The nodes it needs are claimed for it as they free up; the rest of the cluster keeps working. */
        CLAIM,
        /** Nothing else is granted while it cannot be placed ("this round fails"): short-job ServiceMode clusters. */
        HOLD,
        /** No emergent job: others use what it cannot. */
        OFF
    }

    /** docs/multi-tenancy.md, "The multi-tenant default": measured on the Alibaba replay. */
    public static final QuotaOptions DEFAULTS = new QuotaOptions(ZoneId.of("UTC"), true, EmergentMode.CLAIM, 10, 0,
            true, 60, 31, true, 0, false, 2, 1);

    public QuotaOptions {
        if (billingDays < 1) {
            throw new IllegalArgumentException("quota: billingDays must be at least 1, got " + billingDays);
        }
        if (minRunSeconds < 0 || maxPreemptedPerMinute < 0 || lookaheadMinutes < 0 || graceSeconds < 0) {
            throw new IllegalArgumentException("quota: minRunSeconds, maxPreemptedPerMinute, lookaheadMinutes and graceSeconds "
                    + "must not be negative, got " + minRunSeconds + ", " + maxPreemptedPerMinute + ", " + lookaheadMinutes
                    + ", " + graceSeconds);
        }
        if (packingHeadroomPercent < 0 || packingHeadroomPercent > 50) {
            throw new IllegalArgumentException("quota: packingHeadroomPercent must be between 0 and 50, got " + packingHeadroomPercent);
        }
        if (minDeadZonePerMille < 0 || minDeadZonePerMille > 100) {
            throw new IllegalArgumentException("quota: minDeadZonePerMille must be between 0 and 100, got " + minDeadZonePerMille);
        }
        emergent = emergent == null ? EmergentMode.CLAIM : emergent;
    }

    public QuotaOptions withPreemption(boolean on) {
        return new QuotaOptions(zone, on, emergent, minRunSeconds, maxPreemptedPerMinute, lookahead, lookaheadMinutes,
                billingDays, smallFirst, graceSeconds, yieldAboveMin, packingHeadroomPercent, minDeadZonePerMille);
    }

    public QuotaOptions withEmergent(EmergentMode mode) {
        return new QuotaOptions(zone, preemption, mode, minRunSeconds, maxPreemptedPerMinute, lookahead, lookaheadMinutes,
                billingDays, smallFirst, graceSeconds, yieldAboveMin, packingHeadroomPercent, minDeadZonePerMille);
    }

    public QuotaOptions withRestraint(long minRun, long perMinute) {
        return new QuotaOptions(zone, preemption, emergent, minRun, perMinute, lookahead, lookaheadMinutes, billingDays,
                smallFirst, graceSeconds, yieldAboveMin, packingHeadroomPercent, minDeadZonePerMille);
    }

    public QuotaOptions withSmallFirst(boolean on) {
        return new QuotaOptions(zone, preemption, emergent, minRunSeconds, maxPreemptedPerMinute, lookahead, lookaheadMinutes,
                billingDays, on, graceSeconds, yieldAboveMin, packingHeadroomPercent, minDeadZonePerMille);
    }

    public QuotaOptions withGrace(long seconds) {
        return new QuotaOptions(zone, preemption, emergent, minRunSeconds, maxPreemptedPerMinute, lookahead, lookaheadMinutes,
                billingDays, smallFirst, seconds, yieldAboveMin, packingHeadroomPercent, minDeadZonePerMille);
    }

    public QuotaOptions withYieldAboveMin(boolean on) {
        return new QuotaOptions(zone, preemption, emergent, minRunSeconds, maxPreemptedPerMinute, lookahead, lookaheadMinutes,
                billingDays, smallFirst, graceSeconds, on, packingHeadroomPercent, minDeadZonePerMille);
    }

    public QuotaOptions withPackingHeadroom(long percent) {
        return new QuotaOptions(zone, preemption, emergent, minRunSeconds, maxPreemptedPerMinute, lookahead, lookaheadMinutes,
                billingDays, smallFirst, graceSeconds, yieldAboveMin, percent, minDeadZonePerMille);
    }

    public QuotaOptions withLookahead(boolean on, long minutes) {
        return new QuotaOptions(zone, preemption, emergent, minRunSeconds, maxPreemptedPerMinute, on, minutes, billingDays,
                smallFirst, graceSeconds, yieldAboveMin, packingHeadroomPercent, minDeadZonePerMille);
    }

    public QuotaOptions withMinDeadZone(long perMille) {
        return new QuotaOptions(zone, preemption, emergent, minRunSeconds, maxPreemptedPerMinute, lookahead, lookaheadMinutes,
                billingDays, smallFirst, graceSeconds, yieldAboveMin, packingHeadroomPercent, perMille);
    }
}

package granary.policy.quota;

import granary.api.spi.ReasonCode;

/**
 * The why-not reason codes of the quota policy, with their texts (docs/scheduling.md, "Why is my job
 * not scheduled?"); listed in its declaration.
 */
final class QuotaReasons {

    /** The unit's group has no quota left for another slot. */
    static final ReasonCode QUOTA = ReasonCode.of("QUOTA", "limit reached",
            "It gets more when work in {subject} releases slots, or when that limit is raised.");
    /** The unit's group is not funded in the current time slice. */
    static final ReasonCode UNFUNDED = ReasonCode.of("UNFUNDED", "group not funded now",
            "{Subject} has no quota in the current time slice: its work waits for a slice that funds it, or for a quota"
                    + " table that funds it now.");
    /** The unit's group holds its maximum (Drawback): nothing until it releases. */
    static final ReasonCode DRAWBACK = ReasonCode.of("DRAWBACK", "group over its max",
            "{Subject} holds more than its max: it gets nothing until its jobs release enough to fall below the max, or"
                    + " the max is raised.");
    /** Held back before a quota slice boundary: the work would outlive it beyond the next slice's quota. */
    static final ReasonCode LOOKAHEAD = ReasonCode.of("LOOKAHEAD", "held before a quota slice boundary",
            "It is held back until the quota slice boundary has passed.");
    /** The node is claimed for the emergent job. */
    static final ReasonCode LOCKED = ReasonCode.of("LOCKED", "node locked",
            "The nodes with room are locked for another job by a reservation; they open when that job has started or the"
                    + " reservation ends.");

    private QuotaReasons() {
    }
}

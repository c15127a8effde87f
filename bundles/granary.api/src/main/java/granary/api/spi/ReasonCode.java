package granary.api.spi;

/**
 * Why something was not (or not yet) scheduled: the closed set of codes of a {@link Reason}.
 */
public enum ReasonCode {
    /** No node has enough free resources for one slot. */
    NO_FIT,
    /** The unit's group has no quota left for another slot. */
    QUOTA,
    /** The unit's group is not funded in the current time slice. */
    UNFUNDED,
    /** The unit's group holds its maximum (Drawback): nothing until it releases. */
    DRAWBACK,
    /** A limit on running jobs (per queue or per user) is reached. */
    MAX_RUNNING,
    /** The node is locked for another job (reservation). */
    LOCKED,
    /** The node is blacklisted (globally or by the unit). */
    BLACKLISTED,
    /** The node lacks labels the unit or its queue selects. */
    LABELS,
    /** The unit holds its maximum number of slots on the node. */
    MAX_PER_NODE,
    /** The node is not among the unit's locality preferences. */
    LOCALITY,
    /** No policy is in effect on an extension point the work needs. */
    NO_POLICY,
    /** An all-or-nothing gang has no placement for all its slots. */
    NO_PLACEMENT,
    /** The request can never fit (larger than any node, the cluster or its queue). */
    TOO_LARGE,
    /** Another job must be scheduled first (an emergent or reserved target). */
    BEHIND,
    /** The named queue or group does not exist. */
    UNKNOWN_GROUP,
    /** Held back before a quota slice boundary: the work would outlive it beyond the next slice's quota. */
    LOOKAHEAD,
    /** Anything else; the message says what. */
    OTHER
}

package granary.policy.quota.api;

/** A quota group's state from its usage (docs/multi-tenancy.md, "The quota table"). */
public enum QuotaState {
    /** used ≤ min: served first. */
    NORMAL,
    /** min < used < max: may borrow from the shared pool; its new grants are preemptible. */
    OVERUSED,
    /** used ≥ max: gets nothing until it releases. */
    DRAWBACK,
    /** not funded in the current time slice: gets nothing; running work drains. */
    UNFUNDED
}

package granary.api.model;

/** Whether a unit's resources may be revoked by the master (spec §2, §11). */
public enum UnitKind {
    /** Batch work: its grants may be revoked (preemption, lost node) and re-run elsewhere. */
    OFFLINE,
    /** A service: its grants are stable and never revoked by the master on its own. */
    ONLINE
}

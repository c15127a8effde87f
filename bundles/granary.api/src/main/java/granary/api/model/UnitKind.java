package granary.api.model;

/** Whether a unit's resources may be revoked by the master (docs/model.md, "Jobs and schedule units", docs/model.md, "Grants: Hints and Caps"). */
public enum UnitKind {
    /** Batch work: its grants may be revoked (preemption, lost node) and re-run elsewhere. */
    OFFLINE,
    /** A service: its grants are stable and never revoked by the master on its own. */
    ONLINE
}

package granary.master;

/** Where a master is in its start after a restart (docs/recovery.md). */
public enum RecoveryState {
    /** The recovery window is open: registrations and full requests are recorded, not applied yet. */
    WINDOW_OPEN,
    /** The window closed and the grants are rebuilt from what peers reported; peers are asked to send again. */
    REBUILDING,
    /** Rebuilt, or nothing to recover: every message is applied as it comes. */
    SERVING
}

package granary.master;

/**
 * Where a master is in its start after a restart, with the engine's counts, as the console's
 * {@code granary:recovery} shows it (docs/recovery.md): an operator watching a master come back sees
 * the window, the rebuild and what the engine holds again; the recovery benchmark reads the same line.
 *
 * @param state            window open, rebuilding, or serving
 * @param openedAt         when the recovery window opened (the master's clock, ms), or -1 if it started without one
 * @param rebuildStartedAt when the window closed and the rebuild began, or -1 before
 * @param recoveredAt      when the master served again after the rebuild, or -1 before
 * @param nodes            nodes in the engine
 * @param jobs             jobs in the engine
 * @param granted          slots granted in the engine
 * @param online           of them, slots of online units
 */
public record RecoveryStatus(RecoveryState state, long openedAt, long rebuildStartedAt, long recoveredAt,
                             int nodes, int jobs, long granted, long online) {

    /** The console's one-line form: {@code key=value} fields. */
    public String line() {
        return "state=" + state.name().toLowerCase(java.util.Locale.ROOT).replace('_', '-')
                + " recovering=" + (state != RecoveryState.SERVING) + " openedAt=" + openedAt
                + " rebuildStartedAt=" + rebuildStartedAt + " recoveredAt=" + recoveredAt + " nodes=" + nodes
                + " jobs=" + jobs + " granted=" + granted + " online=" + online;
    }
}

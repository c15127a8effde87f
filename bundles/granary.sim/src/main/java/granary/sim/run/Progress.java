package granary.sim.run;

/** Told now and then how far a replay is; the terminal shows a progress bar with it. */
public interface Progress {

    /** Shows nothing. */
    Progress NONE = (label, index, sets, simMs, spanMs, arrived, jobs) -> { };

    /**
     * @param index   which set (0-based) of {@code sets}
     * @param simMs   simulated time reached, from trace time 0
     * @param spanMs  the last arrival's time (the replay goes on after it until the work is done)
     * @param arrived jobs arrived so far, of {@code jobs}
     */
    void update(String label, int index, int sets, long simMs, long spanMs, long arrived, long jobs);

    /** The replays are over. */
    default void done() {
    }
}

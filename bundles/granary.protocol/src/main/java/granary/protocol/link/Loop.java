package granary.protocol.link;

/**
 * Where a peer's logic runs (docs/recovery.md, "One agent, one job master client"): one task at a
 * time, in order, with timers on the loop's own clock. A role written against it never takes a
 * lock and never blocks: I/O completes as a task on its loop. In a process the loop is a thread
 * ({@link ThreadLoop}); in the conformance kit every loop of a simulated cluster runs on one thread
 * of the world's manual clock, so that a seed replays exactly.
 */
public interface Loop {

    /** The loop's clock, in milliseconds. */
    long now();

    /** Runs {@code task} on the loop after the tasks queued before it. */
    void execute(Runnable task);

    /** Runs {@code task} on the loop once {@code delayMillis} passed on its clock; cancellable. */
    Timer schedule(long delayMillis, Runnable task);

    /**
     * True if the caller runs on this loop (and may touch what it owns). A loop driven by the
     * caller's own thread (a test's, the conformance world's) says true.
     */
    default boolean inLoop() {
        return true;
    }

    /** A task scheduled for later. */
    interface Timer {
        /** The task does not run (if it has not yet). */
        void cancel();
    }

    /** A timer that is already over: what a cancelled or absent timer stands for. */
    Timer NONE = () -> { };
}

package granary.agent;

import granary.api.model.Resources;
import granary.api.model.UnitId;
import granary.protocol.Plan;
import java.io.IOException;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.IntConsumer;

/**
 * How an agent starts, stops and watches its workers, and what it leaves behind for its next life
 * (docs/recovery.md, "Exits that never arrive"): operating system processes in production
 * ({@link OsLauncher}), simulated ones in the conformance kit. Called on the agent's loop only;
 * exits come back as tasks on it.
 */
public interface Launcher {

    /**
     * What a restarted agent needs to know of a worker its previous life started: enough to adopt
     * it and, with a lost checkpoint, to rebuild the cap it runs under.
     */
    record Record(UnitId unit, int slot, String jobMaster, String key, Resources size, boolean online) {
    }

    /** A worker process that runs. */
    interface Running {
        long pid();

        /** Calls {@code exited} once, on the agent's loop, when the worker ended, with its exit code. */
        void onExit(IntConsumer exited);

        /**
         * Asks the worker and everything it started to end (SIGTERM to its process tree), after
         * marking on disk that the agent stopped it: an agent that restarts before that end reached
         * a master reports it as the stop it is, not as the code SIGTERM left (docs/recovery.md,
         * "Exits that never arrive").
         */
        void stop();

        /** Ends the worker and everything it started at once (SIGKILL to its process tree). */
        void kill();

        /** True while the process runs. */
        boolean alive();

        /** What the worker's process tree has used: CPU time so far and memory now; null where not known. */
        default Sample sample() {
            return null;
        }

        /**
         * After its end: the memory limit it was killed for and the most it used, if its memory limit
         * ended it (docs/agent.md, "Isolation"); else null.
         */
        default granary.protocol.Heartbeat.Oom oom() {
            return null;
        }
    }

    /**
     * CPU time used so far and memory in use now, of a worker or of the whole machine.
     *
     * @param cpuNanos CPU time since the process tree (or the machine) started, in nanoseconds
     * @param memBytes memory in use now, in bytes
     */
    record Sample(long cpuNanos, long memBytes) {
    }

    /** The whole machine's use (docs/agent.md, "What is reported"); null where not known. */
    default Sample machine() {
        return null;
    }

    /** Null if the directories workers need (logs, run records, working directories) can be written, else why not. */
    default String selfCheck() {
        return null;
    }

    /**
     * Runs the operator's health command (docs/agent.md, "Node health") and hands its verdict to
     * {@code verdict} on the agent's loop: null if healthy, else why not in words.
     */
    default void healthCheck(List<String> command, java.time.Duration timeout, Consumer<String> verdict) {
        verdict.accept(null);
    }

    /** The agent ends: what the launcher made for its workers and no longer needs goes. */
    default void close() {
    }

    /**
     * A worker a previous life of the agent left: still running ({@code running} not null), or
     * ended with {@code exitCode} ({@link granary.protocol.Heartbeat#EXIT_UNKNOWN} if nobody
     * recorded it; for a {@code reported} end, the code the master was told); {@code reported} if a
     * master had acknowledged that end ({@link #reported}); {@code stopped} if that life had
     * stopped it ({@link Running#stop}): its end is a stop, whatever code the process left.
     */
    record Left(Record record, Running running, int exitCode, boolean reported, boolean stopped) {
        /** A worker whose end, if it ended, no master acknowledged, and that no agent stopped. */
        public Left(Record record, Running running, int exitCode) {
            this(record, running, exitCode, false, false);
        }
    }

    /**
     * A launch that cannot start for a reason of its plan's (an empty command, a program that is not
     * there, a user that is not allowed or not known): it does not count against the node's health.
     */
    class PlanFault extends IOException {
        private static final long serialVersionUID = 1L;

        public PlanFault(String message) {
            super(message);
        }
    }

    /** Starts {@code launch}; keeps {@code record} until {@link #forget}. @throws IOException if it cannot be started */
    Running start(Plan.Launch launch, Record record) throws IOException;

    /** The workers a previous life of the agent left; what cannot be read is told to {@code problems} and dropped. */
    List<Left> left(Consumer<String> problems);

    /**
     * The end of the worker in {@code slot} of {@code unit} reached the master as {@code code} (a
     * stop's is -15, whatever the process returned): its record stays, marked so with that code, so
     * that a restarted agent answers a launch of that slot again with that end instead of starting
     * it, and does not report it twice (docs/recovery.md, "Exits that never arrive").
     */
    void reported(UnitId unit, int slot, int code);

    /** The end of the worker in {@code slot} of {@code unit} is no longer remembered: its record (and its stop's mark) goes. */
    void forget(UnitId unit, int slot);
}

package granary.protocol;

import granary.api.model.Resources;
import granary.api.model.UnitId;
import java.util.List;
import java.util.Objects;

/**
 * Agent → master, periodically and whenever something changed: what changed on the node since the
 * agent's previous heartbeat of this incarnation. Heartbeats carry deltas only; the sequence number
 * of the envelope makes sure each delta is applied once and in order.
 *
 * @param started  workers that started since the previous heartbeat
 * @param exited   workers that exited since the previous heartbeat, with their exit codes; each
 *                 gives its slot back (the master releases it and tells the job master)
 * @param capacity the node's new total capacity, or null when it did not change
 * @param uncapped workers that run here without a cap, found when a full cap arrived (docs/recovery.md,
 *                 "Workers without a cap"): the master decides, granting the slot here or telling
 *                 the agent to stop the worker. Protocol version 4
 * @param usage    what the node and each running worker use now, or null when not reported (an
 *                 agent older than protocol version 6). Not a delta: every heartbeat that carries it
 *                 carries the whole picture (docs/agent.md, "What is reported"). Protocol version 6
 * @param health   whether the node is fit to take work, or null when not reported (older agents).
 *                 Not a delta either: every heartbeat that carries it says the state now
 *                 (docs/agent.md, "Node health"). Protocol version 6
 */
public record Heartbeat(List<Worker> started, List<Exit> exited, Resources capacity, List<Worker> uncapped, Usage usage,
                        Health health) implements Message {

    /** A heartbeat that reports no worker without a cap. */
    public Heartbeat(List<Worker> started, List<Exit> exited, Resources capacity) {
        this(started, exited, capacity, List.of());
    }

    /** A heartbeat without usage and health (as agents before protocol version 6 send it). */
    public Heartbeat(List<Worker> started, List<Exit> exited, Resources capacity, List<Worker> uncapped) {
        this(started, exited, capacity, uncapped, null, null);
    }

    /**
     * What is in use on the node now (docs/agent.md, "What is reported"), in the units of
     * {@link Resources}: {@code cpu} in hundredths of a core (averaged over the time since the agent's
     * previous sample, usually one heartbeat period), {@code mem} in MiB (resident now).
     *
     * @param node    the whole machine's use, the agent's workers and everything else on it
     * @param workers each running worker's own use (its process tree: its cgroup, or its processes in
     *                {@code /proc} where isolation is off)
     */
    public record Usage(Resources node, List<WorkerUsage> workers) {
        public Usage {
            Objects.requireNonNull(node, "node");
            workers = List.copyOf(workers);
        }
    }

    /** One worker's use now; see {@link Usage}. */
    public record WorkerUsage(UnitId unit, int slot, Resources used) {
        public WorkerUsage {
            Objects.requireNonNull(unit, "unit");
            Objects.requireNonNull(used, "used");
        }
    }

    /**
     * Whether the node is fit for work (docs/agent.md, "Node health"). An unhealthy node keeps its
     * running workers; the master should place no new work on it until a heartbeat says healthy again.
     *
     * @param healthy false after too many launch failures in a row or a failed health check
     * @param reason  why not, in words, when not healthy; empty when healthy
     */
    public record Health(boolean healthy, String reason) {
        public Health {
            reason = reason == null ? "" : reason;
        }

        public static final Health OK = new Health(true, "");
    }

    /**
     * A worker its memory limit ended (the kernel's out-of-memory killer in its cgroup), not an
     * ordinary exit (docs/agent.md, "Isolation"). Both in MiB.
     *
     * @param limitMiB the memory limit it had (its slot's memory)
     * @param peakMiB  the most it used, as its cgroup recorded
     */
    public record Oom(long limitMiB, long peakMiB) {
    }

    /**
     * The exit code of a worker its agent stopped because its cap went down (a withdrawal, a
     * release, the job's cancellation, the agent's own exit): the lower cap was the release, the
     * master releases nothing more for it (docs/protocol.md).
     */
    public static final int STOPPED = -15;
    /** The exit code of a launch whose process could not be started. */
    public static final int NOT_STARTED = -1;
    /**
     * The exit code of a worker whose end its agent saw but whose code nobody recorded (it ended
     * while no agent watched it, and nothing wrote its code down).
     */
    public static final int EXIT_UNKNOWN = -2;

    /** One worker: the unit it belongs to and the slot (0, 1, 2, …) of that unit on this node it runs in. */
    public record Worker(UnitId unit, int slot) {
        public Worker {
            Objects.requireNonNull(unit, "unit");
        }
    }

    /**
     * A worker that ended: {@code exitCode} as the operating system reported it (0 success; a
     * negative value when the agent stopped it or could not start it, see docs/protocol.md);
     * {@code stopped} if the agent stopped it because its cap went down — its slot went with the
     * cap, and its exit releases none. A worker stopped as it finished its work ends with 0 and
     * {@code stopped} (protocol version 4); every other stopped one with {@link #STOPPED}. {@code oom}:
     * its memory limit ended it (protocol version 6; null for every other end).
     */
    public record Exit(UnitId unit, int slot, int exitCode, boolean stopped, Oom oom) {
        public Exit {
            Objects.requireNonNull(unit, "unit");
        }

        /** An exit that the memory limit did not cause. */
        public Exit(UnitId unit, int slot, int exitCode, boolean stopped) {
            this(unit, slot, exitCode, stopped, null);
        }

        /** An exit that is a stop exactly when its code is {@link #STOPPED}. */
        public Exit(UnitId unit, int slot, int exitCode) {
            this(unit, slot, exitCode, exitCode == STOPPED);
        }
    }

    public Heartbeat {
        started = List.copyOf(started);
        exited = List.copyOf(exited);
        uncapped = List.copyOf(uncapped);
    }

    @Override
    public String type() {
        return "heartbeat";
    }
}

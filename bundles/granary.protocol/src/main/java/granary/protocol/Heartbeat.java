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
 */
public record Heartbeat(List<Worker> started, List<Exit> exited, Resources capacity, List<Worker> uncapped) implements Message {

    /** A heartbeat that reports no worker without a cap. */
    public Heartbeat(List<Worker> started, List<Exit> exited, Resources capacity) {
        this(started, exited, capacity, List.of());
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
     * {@code stopped} (protocol version 4); every other stopped one with {@link #STOPPED}.
     */
    public record Exit(UnitId unit, int slot, int exitCode, boolean stopped) {
        public Exit {
            Objects.requireNonNull(unit, "unit");
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

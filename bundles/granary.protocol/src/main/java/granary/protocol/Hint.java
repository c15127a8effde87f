package granary.protocol;

import granary.api.model.UnitId;
import java.util.List;
import java.util.Objects;

/**
 * Master → job master, after a scheduling cycle changed its grants: for each of its units, how many
 * slots it now holds on which node. The caps that make these usable go to the agents
 * ({@link Cap}); a hint tells the job master where to send its {@link Plan}s.
 *
 * @param placements one entry per unit and node whose slot count changed; absent pairs are unchanged
 * @param exits      workers of this job master that ended since the previous hint, as their agents
 *                   reported them; the slot of each is released already
 * @param nodes      nodes where this job master holds slots whose agent went silent or came back
 *                   (docs/recovery.md, "A silent node"): the master keeps online slots there and
 *                   lets the job master decide. Protocol version 4
 * @param through    the mark of the last request of this job master applied before this hint was
 *                   written ({@link Request#mark}; 0: none): its placements count the releases of
 *                   that request and those before. Protocol version 4
 * @param passes     plan passes for nodes where it holds slots, new or renewed ({@link Pass}). Protocol version 5
 */
public record Hint(List<Placement> placements, List<Exit> exits, List<NodeState> nodes, long through, List<Pass> passes)
        implements Message {

    /** A hint that hands out no plan passes. */
    public Hint(List<Placement> placements, List<Exit> exits, List<NodeState> nodes, long through) {
        this(placements, exits, nodes, through, List.of());
    }

    /** A hint without node states. */
    public Hint(List<Placement> placements, List<Exit> exits) {
        this(placements, exits, List.of());
    }

    /** A hint that says no mark. */
    public Hint(List<Placement> placements, List<Exit> exits, List<NodeState> nodes) {
        this(placements, exits, nodes, 0);
    }

    /**
     * What authorises this job master's plans at the agent of {@code node}: a pass the master made
     * for that node and job master, which that agent checks and no other peer can use
     * ({@code granary.protocol.link.PlanPass}; docs/security.md, "Plan passes"). The job master sends
     * it instead of its own token, which never leaves it and the master.
     */
    public record Pass(String node, String pass) {
        public Pass {
            Objects.requireNonNull(node, "node");
            Objects.requireNonNull(pass, "pass");
        }
    }

    /**
     * The agent of {@code node} is {@link #LOST} (silent past its timeout: its offline slots were
     * taken back and run elsewhere, its online ones are kept for it) or {@link #BACK} (registered
     * again).
     */
    public record NodeState(String node, String state) {
        public static final String LOST = "lost";
        public static final String BACK = "back";

        public NodeState {
            Objects.requireNonNull(node, "node");
            if (!LOST.equals(state) && !BACK.equals(state)) {
                throw new IllegalArgumentException("a node's state is '" + LOST + "' or '" + BACK + "', got " + state);
            }
        }
    }

    /**
     * {@code unit} holds {@code slots} slots on {@code node} (0: none any more); the node's agent
     * takes {@link Plan}s at {@code endpoint}. {@code epoch} is the epoch of the agent's registration
     * ({@link Register#epoch}): launches planned against this placement carry it, and the agent
     * refuses those of an earlier epoch (protocol version 4; 0 when not said).
     */
    public record Placement(UnitId unit, String node, int slots, String endpoint, long epoch) {
        public Placement {
            Objects.requireNonNull(unit, "unit");
            Objects.requireNonNull(node, "node");
            Objects.requireNonNull(endpoint, "endpoint");
        }

        /** A placement that names no epoch. */
        public Placement(UnitId unit, String node, int slots, String endpoint) {
            this(unit, node, slots, endpoint, 0);
        }
    }

    /**
     * The worker in {@code slot} of {@code unit} on {@code node} ended with {@code exitCode};
     * {@code stopped}: its agent stopped it when its cap went down (its slot went with the cap, the
     * unit's desire is unchanged), as {@link Heartbeat.Exit#stopped}; {@code oom}: its memory limit
     * ended it, as the agent reported ({@link Heartbeat.Exit#oom}, protocol version 6; null otherwise).
     */
    public record Exit(UnitId unit, String node, int slot, int exitCode, boolean stopped, Heartbeat.Oom oom) {
        public Exit {
            Objects.requireNonNull(unit, "unit");
            Objects.requireNonNull(node, "node");
        }

        /** An exit that the memory limit did not cause. */
        public Exit(UnitId unit, String node, int slot, int exitCode, boolean stopped) {
            this(unit, node, slot, exitCode, stopped, null);
        }

        /** An exit that is a stop exactly when its code is {@link Heartbeat#STOPPED}. */
        public Exit(UnitId unit, String node, int slot, int exitCode) {
            this(unit, node, slot, exitCode, exitCode == Heartbeat.STOPPED);
        }
    }

    public Hint {
        placements = List.copyOf(placements);
        exits = List.copyOf(exits);
        nodes = List.copyOf(nodes);
    }

    @Override
    public String type() {
        return "hint";
    }
}

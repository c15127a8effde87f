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
 */
public record Hint(List<Placement> placements, List<Exit> exits) implements Message {

    /**
     * {@code unit} holds {@code slots} slots on {@code node} (0: none any more); the node's agent
     * takes {@link Plan}s at {@code endpoint}.
     */
    public record Placement(UnitId unit, String node, int slots, String endpoint) {
        public Placement {
            Objects.requireNonNull(unit, "unit");
            Objects.requireNonNull(node, "node");
            Objects.requireNonNull(endpoint, "endpoint");
        }
    }

    /** The worker in {@code slot} of {@code unit} on {@code node} ended with {@code exitCode}. */
    public record Exit(UnitId unit, String node, int slot, int exitCode) {
        public Exit {
            Objects.requireNonNull(unit, "unit");
            Objects.requireNonNull(node, "node");
        }
    }

    public Hint {
        placements = List.copyOf(placements);
        exits = List.copyOf(exits);
    }

    @Override
    public String type() {
        return "hint";
    }
}

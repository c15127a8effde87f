package granary.protocol;

import granary.api.model.UnitId;
import java.util.List;
import java.util.Objects;

/**
 * Master → job master, after a scheduling cycle changed its grants: for each of its units, how many
 * slots it now holds on which node. The caps that make these usable go to the agents
 * ({@link Cap}); a hint tells the job master where to send its {@link Plan}s.
 *
 * @param placements one entry per unit and node; a unit absent from the list is unchanged
 */
public record Hint(List<Placement> placements) implements Message {

    /** {@code unit} holds {@code slots} slots on {@code node} (0: none any more). */
    public record Placement(UnitId unit, String node, int slots) {
        public Placement {
            Objects.requireNonNull(unit, "unit");
            Objects.requireNonNull(node, "node");
        }
    }

    public Hint {
        placements = List.copyOf(placements);
    }

    @Override
    public String type() {
        return "hint";
    }
}

package granary.protocol;

import granary.api.model.UnitId;
import java.util.List;
import java.util.Objects;

/**
 * Master → agent, when grants on the agent's node change: which job master may start how many
 * workers of which unit on this node, and which such rights are withdrawn. An agent launches a
 * {@link Plan} only within the caps it holds, and stops workers beyond a withdrawn cap.
 *
 * @param grants      rights given or raised: the job master's unit may now use {@code slots} slots here
 * @param withdrawals rights taken back: the unit must give up {@code slots} slots here
 */
public record Cap(List<Grant> grants, List<Grant> withdrawals) implements Message {

    /** {@code jobMaster}'s {@code unit}: {@code slots} slots on this node. */
    public record Grant(String jobMaster, UnitId unit, int slots) {
        public Grant {
            Objects.requireNonNull(jobMaster, "jobMaster");
            Objects.requireNonNull(unit, "unit");
        }
    }

    public Cap {
        grants = List.copyOf(grants);
        withdrawals = List.copyOf(withdrawals);
    }

    @Override
    public String type() {
        return "cap";
    }
}

package granary.protocol;

import granary.api.model.Resources;
import granary.api.model.UnitId;
import java.util.List;
import java.util.Objects;

/**
 * Master → agent, when grants on the agent's node change: which job master may start how many
 * workers of which unit on this node, and which such rights are withdrawn. An agent launches a
 * {@link Plan} only within the caps it holds, and stops workers beyond a withdrawn cap.
 *
 * @param grants      rights given, raised or lowered by a release: the unit may now use {@code slots} slots here
 * @param withdrawals rights taken back by the master (revocation): the unit may keep only
 *                    {@code slots} slots here, and the agent stops its workers beyond that
 * @param full        true: {@code grants} is the agent's whole table (the first cap after a
 *                    registration); every cap not listed is gone and its workers stop. Said in the
 *                    message, not inferred from the order of arrival, so that a cap polled while a
 *                    registration is still being answered cannot be taken for the whole table
 * @param reason      why the withdrawals were made, in words, when the master says (a worker the agent
 *                    reported without a cap is not granted: docs/recovery.md); null otherwise.
 *                    Protocol version 4
 */
public record Cap(List<Grant> grants, List<Grant> withdrawals, boolean full, String reason) implements Message {

    /** A change to the agent's table (not the whole of it). */
    public Cap(List<Grant> grants, List<Grant> withdrawals) {
        this(grants, withdrawals, false, null);
    }

    /** A cap without a stated reason. */
    public Cap(List<Grant> grants, List<Grant> withdrawals, boolean full) {
        this(grants, withdrawals, full, null);
    }


    /**
     * {@code jobMaster}'s {@code unit} may use {@code slots} slots on this node in total (the count
     * after this change, not a difference). {@code key} lets the agent check that a {@link Plan}
     * really comes from that job master: it is {@link granary.protocol.link.Tokens#key the key} of
     * the job master's token, which the job master presents to the agent. {@code size} (one slot's
     * resources) and {@code online} (the unit is an online service) travel with the cap so that an
     * agent can report them back to a master that restarted and knows nothing of the job
     * (docs/recovery.md, "Peers that return late").
     *
     * <p>{@code launch}, when not null, is the worker to start in the unit's slot 0 without a plan:
     * the master holds such a unit to start a lost job master again, and there is no job master to
     * send the plan (docs/protocol.md, "Restarting a job master"). Protocol version 3.
     */
    public record Grant(String jobMaster, UnitId unit, int slots, String key, Resources size, boolean online,
                        Program launch) {
        public Grant {
            Objects.requireNonNull(jobMaster, "jobMaster");
            Objects.requireNonNull(key, "key");
            Objects.requireNonNull(unit, "unit");
            Objects.requireNonNull(size, "size");
        }

        /** A grant without a launch of its own: its workers come from the job master's plans. */
        public Grant(String jobMaster, UnitId unit, int slots, String key, Resources size, boolean online) {
            this(jobMaster, unit, slots, key, size, online, null);
        }

        /** An offline grant of slots of no stated size (tests, and caps whose size does not matter). */
        public Grant(String jobMaster, UnitId unit, int slots, String key) {
            this(jobMaster, unit, slots, key, Resources.ZERO, false);
        }

        /** The same grant with another slot count. */
        public Grant withSlots(int n) {
            return new Grant(jobMaster, unit, n, key, size, online, launch);
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

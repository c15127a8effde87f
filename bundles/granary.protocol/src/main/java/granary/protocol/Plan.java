package granary.protocol;

import granary.api.model.UnitId;
import java.util.List;
import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * Job master → agent, once a {@link Hint} says it holds slots on the agent's node: what to launch in
 * each slot. The agent checks every launch against the {@link Cap}s it holds from the master.
 *
 * @param launches one entry per slot to start
 */
public record Plan(List<Launch> launches) implements Message {

    /**
     * What to start in slot {@code slot} of {@code unit}.
     *
     * @param command          the program and its arguments, not run through a shell
     * @param environment      variables set for the worker
     * @param workingDirectory where the worker starts
     * @param epoch            the node's epoch of the placement this launch was planned against
     *                         ({@link Hint.Placement#epoch}); an agent does not start a launch of an
     *                         earlier epoch: its agent registered again since, and the node may have
     *                         been declared lost in between, the work run again elsewhere
     *                         (docs/recovery.md, "A silent node"). 0: not said.
     *                         Protocol version 4
     * @param probe            sent to learn where the worker stands (docs/recovery.md, "Exits that
     *                         never arrive"): started at once if the agent never heard of it and its cap
     *                         has room, else not started and not kept — a copy kept waiting for its
     *                         cap is dropped — and the answer says why. Protocol version 4
     */
    public record Launch(UnitId unit, int slot, List<String> command, Map<String, String> environment,
                         String workingDirectory, long epoch, boolean probe) {
        public Launch {
            Objects.requireNonNull(unit, "unit");
            Objects.requireNonNull(workingDirectory, "workingDirectory");
            command = List.copyOf(command);
            environment = Collections.unmodifiableMap(new TreeMap<>(environment));
            if (epoch < 0) {
                throw new IllegalArgumentException("a launch's epoch is at least 0, got " + epoch);
            }
        }

        /** A launch that names no epoch. */
        public Launch(UnitId unit, int slot, List<String> command, Map<String, String> environment, String workingDirectory) {
            this(unit, slot, command, environment, workingDirectory, 0, false);
        }

        /** A launch planned against {@code epoch}, not a probe. */
        public Launch(UnitId unit, int slot, List<String> command, Map<String, String> environment, String workingDirectory,
                      long epoch) {
            this(unit, slot, command, environment, workingDirectory, epoch, false);
        }

        /** The same launch planned against {@code e}. */
        public Launch withEpoch(long e) {
            return new Launch(unit, slot, command, environment, workingDirectory, e, probe);
        }

        /** The same launch as a probe: started at once or not at all. */
        public Launch asProbe() {
            return new Launch(unit, slot, command, environment, workingDirectory, epoch, true);
        }
    }

    public Plan {
        launches = List.copyOf(launches);
    }

    @Override
    public String type() {
        return "plan";
    }
}

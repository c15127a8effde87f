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
     */
    public record Launch(UnitId unit, int slot, List<String> command, Map<String, String> environment,
                         String workingDirectory) {
        public Launch {
            Objects.requireNonNull(unit, "unit");
            Objects.requireNonNull(workingDirectory, "workingDirectory");
            command = List.copyOf(command);
            environment = Collections.unmodifiableMap(new TreeMap<>(environment));
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

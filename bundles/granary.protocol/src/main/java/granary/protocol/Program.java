package granary.protocol;

import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * A process to start, as a {@link Plan.Launch} says it but for no unit and slot of its own: what a
 * job master's {@link Request.Restart} asks the master to start again, and what a {@link Cap.Grant}
 * that carries its own launch tells the agent to start (docs/protocol.md, "Restarting a job master").
 *
 * @param command          the program and its arguments, not run through a shell; not empty
 * @param environment      variables set for the process
 * @param workingDirectory where it starts; empty: the agent's default for the slot
 */
public record Program(List<String> command, Map<String, String> environment, String workingDirectory) {

    public Program {
        Objects.requireNonNull(workingDirectory, "workingDirectory");
        command = List.copyOf(command);
        environment = Collections.unmodifiableMap(new TreeMap<>(environment));
    }
}

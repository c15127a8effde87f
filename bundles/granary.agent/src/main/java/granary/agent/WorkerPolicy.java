package granary.agent;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

/**
 * How an agent holds its workers to their slots, as whom they run, and when it calls its node
 * unhealthy (docs/agent.md).
 *
 * @param isolation     how workers are held to their slots (docs/agent.md, "Isolation")
 * @param user          the user workers run as when their plan names none; null: the agent's own
 *                      (docs/agent.md, "Users")
 * @param allowedUsers  users a plan may name in {@code GRANARY_USER}, besides {@code user}
 * @param allowRoot     whether workers may run as root (an agent that runs as root, with no user)
 * @param healthCommand a program and its arguments run every {@code healthPeriod}; empty: none
 *                      (docs/agent.md, "Node health")
 * @param healthPeriod  how often the health command runs, and how often a node made unhealthy by
 *                      failed launches checks its own directories again
 * @param healthTimeout how long one run of the health command may take before it counts as failed
 * @param failureLimit  launches failed in a row that make the node unhealthy
 * @param capacityNote  how the capacity was found, said at start; null when it was given
 */
public record WorkerPolicy(Isolation isolation, String user, Set<String> allowedUsers, boolean allowRoot,
                           List<String> healthCommand, Duration healthPeriod, Duration healthTimeout, int failureLimit,
                           String capacityNote) {

    /** How workers are held to their slots. */
    public enum Isolation {
        /** No cgroups: workers run as before, unlimited; usage from {@code /proc}. */
        OFF,
        /** A cgroup per worker for its usage and its process tree, no limits. */
        SOFT,
        /** A cgroup per worker with its slot's CPU and memory as limits. */
        HARD,
        /** {@link #HARD} where cgroups can be written, else {@link #OFF} with a warning. */
        AUTO;

        /** The word an operator types. */
        public String word() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    /** Launches failed in a row that make a node unhealthy, by default. */
    public static final int DEFAULT_FAILURE_LIMIT = 3;

    /**
     * An agent embedded in a program (tests, the demo, the conformance kit): isolation off and
     * workers as the agent's own user, as before there was a choice; the command line's defaults
     * are {@link Isolation#AUTO} and {@code nobody} for an agent that runs as root.
     */
    public static final WorkerPolicy EMBEDDED = new WorkerPolicy(Isolation.OFF, null, Set.of(), true, List.of(),
            Duration.ofSeconds(30), Duration.ofSeconds(60), DEFAULT_FAILURE_LIMIT, null);

    public WorkerPolicy {
        Objects.requireNonNull(isolation, "isolation");
        allowedUsers = Set.copyOf(new TreeSet<>(allowedUsers));
        healthCommand = List.copyOf(healthCommand);
        Objects.requireNonNull(healthPeriod, "healthPeriod");
        Objects.requireNonNull(healthTimeout, "healthTimeout");
    }

    public WorkerPolicy withIsolation(Isolation i) {
        return new WorkerPolicy(i, user, allowedUsers, allowRoot, healthCommand, healthPeriod, healthTimeout, failureLimit, capacityNote);
    }

    public WorkerPolicy withUser(String u, Set<String> allowed, boolean root) {
        return new WorkerPolicy(isolation, u, allowed, root, healthCommand, healthPeriod, healthTimeout, failureLimit, capacityNote);
    }

    public WorkerPolicy withHealth(List<String> command, Duration period, Duration timeout, int limit) {
        return new WorkerPolicy(isolation, user, allowedUsers, allowRoot, command, period, timeout, limit, capacityNote);
    }

    public WorkerPolicy withCapacityNote(String note) {
        return new WorkerPolicy(isolation, user, allowedUsers, allowRoot, healthCommand, healthPeriod, healthTimeout, failureLimit, note);
    }
}

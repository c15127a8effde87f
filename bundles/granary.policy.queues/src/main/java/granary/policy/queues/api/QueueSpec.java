package granary.policy.queues.api;

import java.util.List;

/**
 * One queue as configured: its name (no dots), guaranteed {@code capacity} and elastic
 * {@code maxCapacity} (each absolute or a fraction of the parent's), the most jobs it may run at once
 * in all and per user (0 = no limit), and its children (none for a leaf).
 */
public record QueueSpec(String name, Capacity capacity, Capacity maxCapacity, int maxRunningJobs,
                        int maxRunningJobsPerUser, List<QueueSpec> children) {

    public QueueSpec {
        capacity = capacity == null ? Capacity.fraction(0) : capacity;
        maxCapacity = maxCapacity == null ? Capacity.ALL : maxCapacity;
        children = children == null ? List.of() : List.copyOf(children);
    }

    public static QueueSpec leaf(String name, Capacity capacity) {
        return new QueueSpec(name, capacity, null, 0, 0, List.of());
    }

    public boolean isLeaf() {
        return children.isEmpty();
    }
}

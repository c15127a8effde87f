package granary.demo;

import java.util.ArrayList;
import java.util.List;

import granary.api.model.Names;

/**
 * What the demo builds and how busy it keeps the scheduler.
 *
 * @param rooms          rooms of the demo cluster
 * @param nodesPerRoom   nodes in each room
 * @param nodeCpu        cpu of one node in 1/100 cores (6400 = 64 cores)
 * @param nodeMemMb      memory of one node in MiB
 * @param jobsPerSecond  arrival rate of synthetic jobs; 0 = a cluster only, no jobs
 * @param maxRunningJobs at most this many demo jobs in the engine at once (waiting or running);
 *                       arrivals pause while the cap is reached
 * @param minTaskMillis  shortest task: a granted slot is released after a random time in
 *                       [minTaskMillis, maxTaskMillis]
 * @param maxTaskMillis  longest task
 * @param maxSlotsPerUnit a unit asks for 1 to this many slots
 * @param groups         the groups jobs are spread over
 * @param seed           seed of the job generator: the same seed gives the same jobs
 * @param jobPrefix      job ids are {@code <jobPrefix>-<n>}; the demo touches only its own jobs
 */
public record DemoSettings(int rooms, int nodesPerRoom, long nodeCpu, long nodeMemMb, double jobsPerSecond,
                           int maxRunningJobs, long minTaskMillis, long maxTaskMillis, int maxSlotsPerUnit,
                           List<String> groups, long seed, String jobPrefix) {

    /** 4 rooms × 50 nodes of 64 cores / 256 GiB, 2 jobs a second, tasks of 1–10 s, at most 100 jobs. */
    public static final DemoSettings DEFAULTS = new DemoSettings(4, 50, 6400, 262_144, 2.0, 100, 1_000, 10_000, 8,
            List.of("root.batch", "root.service", "root.adhoc"), 42, "demo");

    /** @throws IllegalArgumentException naming every bad setting, its value and the allowed range */
    public DemoSettings {
        groups = groups == null ? List.of() : List.copyOf(groups);
        List<String> bad = new ArrayList<>();
        atLeast(bad, "rooms", rooms, 1);
        atLeast(bad, "nodesPerRoom", nodesPerRoom, 1);
        atLeast(bad, "nodeCpu", nodeCpu, 1);
        atLeast(bad, "nodeMemMb", nodeMemMb, 1);
        if (!(jobsPerSecond >= 0 && jobsPerSecond <= 1000)) {
            bad.add("jobsPerSecond must be in [0, 1000], got " + jobsPerSecond);
        }
        atLeast(bad, "maxRunningJobs", maxRunningJobs, 1);
        atLeast(bad, "minTaskMillis", minTaskMillis, 1);
        if (maxTaskMillis < minTaskMillis) {
            bad.add("maxTaskMillis must be at least minTaskMillis (" + minTaskMillis + "), got " + maxTaskMillis);
        }
        atLeast(bad, "maxSlotsPerUnit", maxSlotsPerUnit, 1);
        if (groups.isEmpty()) {
            bad.add("groups must name at least one group");
        }
        for (String g : groups) {
            if (!Names.isValid(g)) {
                bad.add("group '" + g + "' is not a valid name: " + Names.RULE);
            }
        }
        if (!Names.isValid(jobPrefix)) {
            bad.add("jobPrefix '" + jobPrefix + "' is not a valid name: " + Names.RULE);
        }
        if (!bad.isEmpty()) {
            throw new IllegalArgumentException("demo settings: " + String.join("; ", bad));
        }
    }

    private static void atLeast(List<String> bad, String name, long value, long min) {
        if (value < min) {
            bad.add(name + " must be at least " + min + ", got " + value);
        }
    }

    /** Nodes in the demo cluster. */
    public int nodeCount() {
        return rooms * nodesPerRoom;
    }
}

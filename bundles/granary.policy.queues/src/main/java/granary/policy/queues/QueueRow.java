package granary.policy.queues;

import granary.api.model.Resources;

/**
 * One queue in a report, by full path: its guaranteed and maximum capacity now, what its subtree
 * uses, and its jobs.
 */
public record QueueRow(String path, int depth, boolean leaf, Resources guaranteed, Resources maximum, Resources used,
                       int runningJobs, int maxRunningJobs, int jobs, long waitingSlots) {
}

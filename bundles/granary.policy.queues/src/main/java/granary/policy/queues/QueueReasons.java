package granary.policy.queues;

import granary.api.spi.ReasonCode;

/**
 * The why-not reason codes of the queues policy, with their texts (docs/scheduling.md, "Why is my job
 * not scheduled?"); listed in its declaration.
 */
final class QueueReasons {

    /** The queue's maximum capacity is reached. */
    static final ReasonCode QUOTA = ReasonCode.of("QUOTA", "limit reached",
            "It gets more when work in {subject} releases slots, or when that limit is raised.");
    /** A limit on running jobs (per queue or per user) is reached. */
    static final ReasonCode MAX_RUNNING = ReasonCode.of("MAX_RUNNING", "running-job limit reached",
            "It starts when running jobs of {subject} end, or when that limit is raised.");

    private QueueReasons() {
    }
}

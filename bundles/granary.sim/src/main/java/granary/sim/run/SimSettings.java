package granary.sim.run;

import granary.policy.queues.api.QueueTree;
import granary.policy.quota.api.QuotaTable;

/**
 * How a replay runs.
 *
 * @param startEpochMs    engine time of trace time 0 (time-sliced quota tables and billing days
 *                        count hours on it)
 * @param timeoutMs       a wait longer than this is a wait-for-resource timeout (spec §7: 10 s)
 * @param tickMs          while something waits, a ClockTick every this many ms so that time-driven
 *                        policies act; 0 = none
 * @param sampleMs        time-series interval; 0 = chosen from the trace's span (at most ~2,500 rows)
 * @param idleLimitMs     when nothing more arrives or ends but units still wait, ticks go on this
 *                        long without a grant before the replay stops
 * @param quotaTable      handed to the set's quota policy (a {@code PolicyReconfigured}), or null
 * @param queueTree       handed to the set's queue policy, or null
 * @param checkInvariants strict engine: check every invariant after every event (tests)
 */
public record SimSettings(long startEpochMs, long timeoutMs, long tickMs, long sampleMs, long idleLimitMs,
                          QuotaTable quotaTable, QueueTree queueTree, boolean checkInvariants) {

    /** 2024-01-01T00:00:00Z: trace time 0 is a midnight, UTC. */
    public static final long DEFAULT_START = 1_704_067_200_000L;

    public static final SimSettings DEFAULTS = new SimSettings(DEFAULT_START, 10_000, 1_000, 0, 86_400_000L, null, null, false);

    public SimSettings withQuota(QuotaTable t) {
        return new SimSettings(startEpochMs, timeoutMs, tickMs, sampleMs, idleLimitMs, t, queueTree, checkInvariants);
    }

    public SimSettings withQueues(QueueTree t) {
        return new SimSettings(startEpochMs, timeoutMs, tickMs, sampleMs, idleLimitMs, quotaTable, t, checkInvariants);
    }

    public SimSettings withTimeoutMs(long ms) {
        return new SimSettings(startEpochMs, ms, tickMs, sampleMs, idleLimitMs, quotaTable, queueTree, checkInvariants);
    }

    public SimSettings withTickMs(long ms) {
        return new SimSettings(startEpochMs, timeoutMs, ms, sampleMs, idleLimitMs, quotaTable, queueTree, checkInvariants);
    }

    public SimSettings withSampleMs(long ms) {
        return new SimSettings(startEpochMs, timeoutMs, tickMs, ms, idleLimitMs, quotaTable, queueTree, checkInvariants);
    }

    public SimSettings withStart(long epochMs) {
        return new SimSettings(epochMs, timeoutMs, tickMs, sampleMs, idleLimitMs, quotaTable, queueTree, checkInvariants);
    }

    public SimSettings withIdleLimitMs(long ms) {
        return new SimSettings(startEpochMs, timeoutMs, tickMs, sampleMs, ms, quotaTable, queueTree, checkInvariants);
    }

    public SimSettings withInvariantChecks(boolean on) {
        return new SimSettings(startEpochMs, timeoutMs, tickMs, sampleMs, idleLimitMs, quotaTable, queueTree, on);
    }
}

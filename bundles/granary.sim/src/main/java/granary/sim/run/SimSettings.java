package granary.sim.run;

import java.util.ArrayList;
import java.util.List;

/**
 * How a replay runs.
 *
 * @param startEpochMs    engine time of trace time 0 (time-sliced quota tables and billing days
 *                        count hours on it)
 * @param timeoutMs       a wait longer than this is a wait-for-resource timeout (docs/policies.md, "submitwindow": 10 s)
 * @param tickMs          while something waits, a ClockTick every this many ms so that time-driven
 *                        policies act; 0 = none
 * @param sampleMs        time-series interval; 0 = chosen from the trace's span (at most ~2,500 rows)
 * @param idleLimitMs     when nothing more arrives or ends but units still wait, ticks go on this
 *                        long without a grant before the replay stops
 * @param policyOptions   options of the command line for a policy of any set ({@code --quota FILE},
 *                        {@code --option quota.zone=UTC}): every set that has the policy makes it with them
 * @param checkInvariants strict engine: check every invariant after every event (tests)
 */
public record SimSettings(long startEpochMs, long timeoutMs, long tickMs, long sampleMs, long idleLimitMs,
                          List<PolicyOption> policyOptions, boolean checkInvariants) {

    /**
     * One option for a policy, as given on the command line.
     *
     * @param given how it was given, for notes: {@code --quota} or {@code --option quota.zone}
     */
    public record PolicyOption(String policy, String option, String value, String given) {
    }

    public SimSettings {
        policyOptions = List.copyOf(policyOptions);
    }

    /** 2024-01-01T00:00:00Z: trace time 0 is a midnight, UTC. */
    public static final long DEFAULT_START = 1_704_067_200_000L;

    public static final SimSettings DEFAULTS = new SimSettings(DEFAULT_START, 10_000, 1_000, 0, 86_400_000L, List.of(), false);

    /** These settings and one more policy option (a later one for the same option wins). */
    public SimSettings withPolicyOption(String policy, String option, String value, String given) {
        List<PolicyOption> all = new ArrayList<>(policyOptions);
        all.removeIf(o -> o.policy().equals(policy) && o.option().equals(option));
        all.add(new PolicyOption(policy, option, value, given));
        return new SimSettings(startEpochMs, timeoutMs, tickMs, sampleMs, idleLimitMs, all, checkInvariants);
    }

    public SimSettings withTimeoutMs(long ms) {
        return new SimSettings(startEpochMs, ms, tickMs, sampleMs, idleLimitMs, policyOptions, checkInvariants);
    }

    public SimSettings withTickMs(long ms) {
        return new SimSettings(startEpochMs, timeoutMs, ms, sampleMs, idleLimitMs, policyOptions, checkInvariants);
    }

    public SimSettings withSampleMs(long ms) {
        return new SimSettings(startEpochMs, timeoutMs, tickMs, ms, idleLimitMs, policyOptions, checkInvariants);
    }

    public SimSettings withStart(long epochMs) {
        return new SimSettings(epochMs, timeoutMs, tickMs, sampleMs, idleLimitMs, policyOptions, checkInvariants);
    }

    public SimSettings withIdleLimitMs(long ms) {
        return new SimSettings(startEpochMs, timeoutMs, tickMs, sampleMs, ms, policyOptions, checkInvariants);
    }

    public SimSettings withInvariantChecks(boolean on) {
        return new SimSettings(startEpochMs, timeoutMs, tickMs, sampleMs, idleLimitMs, policyOptions, on);
    }
}

package granary.planner.live;

import granary.planner.live.model.Frame;

/**
 * A group's usage against its quota: used now (stream), min and max in force (the quota policy's
 * report, absent without one), and the last hour's samples.
 *
 * @param limits  the group's quota in force, or null (no quota policy, or the group has none)
 * @param history the last hour, or null before the first sample
 */
public record GroupRow(String path, long usedSlots, long usedCpu, long usedMem, QuotaSummary.Limits limits, Frame.GroupHistory history) {

    /** The group's use in the unit its quota is in: slots for a quota in workers, cpu (1/100 cores) for one in resources. */
    public long used() {
        return limits != null && !limits.workers() ? usedCpu : usedSlots;
    }

    /** The history in {@link #used()}'s unit, oldest first. */
    public long[] usedHistory() {
        if (history == null) {
            return new long[0];
        }
        return limits != null && !limits.workers() ? history.usedCpu() : history.usedSlots();
    }

    /** "slots" or "cpu/100". */
    public String unit() {
        return limits != null && !limits.workers() ? "cpu/100" : "slots";
    }
}

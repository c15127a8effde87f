package granary.planner.whatif;

import java.util.List;

/**
 * One group in one replay. The by-hour lists have 24 entries, hour 0 to 23 of the day (UTC, as the
 * quota policy reads its slices in the replay), each the mean over every time the replay spent in that
 * hour; NaN where it spent none. Amounts are in the table's unit: slots for a table counting workers,
 * cores for one in resources.
 *
 * @param peakSlots         the most slots the group held at once
 * @param usedByHour        what the group held
 * @param minByHour         its MinQuota in force
 * @param maxByHour         its MaxQuota in force
 * @param billedSlotSeconds the quota policy's billing: slot-seconds over every day and slice
 * @param billedCoreSeconds the same in cpu core-seconds
 * @param belowMinSeconds   time the group had work waiting while it held less than its MinQuota (the simulator's measure)
 * @param revokedSlots      slots taken back from the group (preempted)
 * @param used              what the group held over the replay's real time (the quota report's samples)
 * @param min               its MinQuota over the replay's real time, from the slice in force at each moment
 * @param max               its MaxQuota, the same way
 */
public record GroupSummary(String group, long jobs, long timeouts, long peakSlots, List<Double> usedByHour,
                           List<Double> minByHour, List<Double> maxByHour, double billedSlotSeconds,
                           double billedCoreSeconds, double belowMinSeconds, long revokedSlots,
                           Curve used, Curve min, Curve max) {

    /** Without the measures over real time (tests of the charts by hour of day). */
    public GroupSummary(String group, long jobs, long timeouts, long peakSlots, List<Double> usedByHour,
                        List<Double> minByHour, List<Double> maxByHour, double billedSlotSeconds, double billedCoreSeconds) {
        this(group, jobs, timeouts, peakSlots, usedByHour, minByHour, maxByHour, billedSlotSeconds, billedCoreSeconds,
                0, 0, Curve.EMPTY, Curve.EMPTY, Curve.EMPTY);
    }

    public GroupSummary {
        usedByHour = List.copyOf(usedByHour);
        minByHour = List.copyOf(minByHour);
        maxByHour = List.copyOf(maxByHour);
    }

    /** The billing in the table's unit: slot-seconds for workers, core-seconds for resources. */
    public double billed(boolean workerForm) {
        return workerForm ? billedSlotSeconds : billedCoreSeconds;
    }
}

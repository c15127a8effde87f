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
 */
public record GroupSummary(String group, long jobs, long timeouts, long peakSlots, List<Double> usedByHour,
                           List<Double> minByHour, List<Double> maxByHour, double billedSlotSeconds,
                           double billedCoreSeconds) {

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

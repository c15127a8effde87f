package granary.planner.table.model;

import granary.policy.quota.api.TimeSlice;

/**
 * What a slice asks of the cluster, for the WorkerSpans chart: the sums of its groups' MinQuota and
 * MaxQuota (worker counts) and the WorkerSpans in force for it (null if none). Valid when
 * ΣMin ≤ WorkerSpans ≤ ΣMax.
 */
public record SliceLoad(TimeSlice slice, long sumMin, long sumMax, Long workerSpans) {

    public boolean minTooHigh() {
        return workerSpans != null && sumMin > workerSpans;
    }

    public boolean maxTooLow() {
        return workerSpans != null && workerSpans > sumMax;
    }
}

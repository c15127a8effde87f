package granary.planner.table.model;

import granary.policy.quota.api.TimeSlice;

/** One WorkerSpans entry: the service's worker count in a slice. */
public record Span(TimeSlice slice, long workers) {
}

package granary.planner.table.model;

import granary.policy.quota.api.TimeSlice;

/**
 * A place in the timeline: a slice and a group. Either may be null — a slice alone (its band above
 * the rows), a group alone (its row) — and the group need not be funded in the slice.
 */
public record CellRef(TimeSlice slice, String group) {
}

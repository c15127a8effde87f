package granary.planner.table.model;

import java.util.List;

import granary.policy.quota.api.GroupQuota;
import granary.policy.quota.api.TimeSlice;

/** One time slice of a draft with its groups' quotas, in file order. */
public record SliceRow(TimeSlice slice, List<GroupQuota> cells) {

    public SliceRow {
        cells = List.copyOf(cells);
    }

    /** The group's quota in this slice, or null if the slice does not fund it. */
    public GroupQuota cell(String group) {
        return cells.stream().filter(c -> c.group().equals(group)).findFirst().orElse(null);
    }
}

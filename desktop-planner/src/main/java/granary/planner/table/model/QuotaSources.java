package granary.planner.table.model;

import java.util.ArrayList;
import java.util.List;

import granary.policy.quota.api.GroupQuota;
import granary.policy.quota.api.TimeSlice;

/**
 * Where each group's quota comes from, hour by hour (docs/planner.md, "Where a group's quota comes
 * from"). At an hour, the slice in force is the first range slice covering it, else {@code default};
 * a slice replaces {@code default} whole, so a group the slice in force does not name gets nothing
 * for those hours — even if {@code default} gives it a quota. This is how the quota policy reads the
 * table (docs/multi-tenancy.md, "The quota table"); these are plain functions of a {@link Draft}.
 */
public final class QuotaSources {

    private QuotaSources() {
    }

    /** Where a group's quota comes from at an hour. */
    public enum Source {
        /** a range slice that names the group */
        OWN,
        /** no range slice covers the hour, and {@code default} names the group */
        DEFAULT,
        /** the slice in force does not name the group: it gets no quota */
        NOTHING
    }

    /**
     * One hour of one group.
     *
     * @param slice the slice in force at that hour (null if the draft has none there)
     * @param quota the group's quota there, null for {@link Source#NOTHING}
     */
    public record At(Source source, TimeSlice slice, GroupQuota quota) {
    }

    /**
     * Hours a group gets nothing although {@code default} gives it a quota: a slice over those hours
     * does not name it.
     *
     * @param from  first hour (0-23)
     * @param to    the hour after the last (1-24), or below {@code from} when the run wraps past midnight
     * @param slice the first slice in force over those hours that leaves the group out
     * @param usual the group's entry in {@code default}
     */
    public record Loss(String group, int from, int to, TimeSlice slice, GroupQuota usual) {

        /** As the problem list says it: {@code group1 gets nothing 20:00-24:00 (it had 2000/5000 from default)}. */
        public String text() {
            return group + " gets nothing " + hours() + " (it had " + usual.min() + "/" + usual.max() + " from default)";
        }

        /** {@code 20:00-24:00}, or {@code 22:00-02:00} past midnight. */
        public String hours() {
            return String.format("%02d:00-%02d:00", from, to);
        }

        /** True if the hour is in the run. */
        public boolean covers(int hour) {
            return from < to ? hour >= from && hour < to : hour >= from || hour < to;
        }
    }

    /** The group's 24 hours. */
    public static List<At> of(Draft d, String group) {
        List<At> out = new ArrayList<>(Hours.DAY);
        for (int h = 0; h < Hours.DAY; h++) {
            out.add(at(d, group, h));
        }
        return out;
    }

    public static At at(Draft d, String group, int hour) {
        TimeSlice s = d.sliceAt(hour);
        if (s == null) {
            return new At(Source.NOTHING, null, null);
        }
        GroupQuota q = d.cell(s, group);
        if (q == null) {
            return new At(Source.NOTHING, s, null);
        }
        return new At(s.isDefault() ? Source.DEFAULT : Source.OWN, s, q);
    }

    /**
     * Every run of hours in which a group that {@code default} gives a quota (a MinQuota or MaxQuota
     * above 0) gets nothing, groups in row order, runs by hour; a run through midnight is one run.
     */
    public static List<Loss> losses(Draft d) {
        List<Loss> out = new ArrayList<>();
        for (GroupRow g : d.groups()) {
            GroupQuota usual = d.cell(TimeSlice.DEFAULT, g.name());
            if (usual == null || !gives(usual)) {
                continue;
            }
            boolean[] nothing = new boolean[Hours.DAY];
            int count = 0;
            for (int h = 0; h < Hours.DAY; h++) {
                nothing[h] = at(d, g.name(), h).source() == Source.NOTHING;
                count += nothing[h] ? 1 : 0;
            }
            if (count == 0) {
                continue;
            }
            if (count == Hours.DAY) {
                out.add(new Loss(g.name(), 0, Hours.DAY, d.sliceAt(0), usual));
                continue;
            }
            // start where a run begins: after an hour with quota, so no run is cut at midnight
            int start = 0;
            while (!(nothing[start] && !nothing[(start + Hours.DAY - 1) % Hours.DAY])) {
                start++;
            }
            for (int i = 0; i < Hours.DAY; ) {
                int h = (start + i) % Hours.DAY;
                if (!nothing[h]) {
                    i++;
                    continue;
                }
                int len = 0;
                while (len < Hours.DAY && nothing[(h + len) % Hours.DAY]) {
                    len++;
                }
                int end = h + len;
                out.add(new Loss(g.name(), h, end == Hours.DAY ? Hours.DAY : end % Hours.DAY, d.sliceAt(h), usual));
                i += len;
            }
        }
        out.sort(java.util.Comparator.comparingInt((Loss l) -> d.groupIndex(l.group())).thenComparingInt(Loss::from));
        return out;
    }

    private static boolean gives(GroupQuota q) {
        return !q.min().isWorkers() || !q.max().isWorkers() || q.min().workers() > 0 || q.max().workers() > 0;
    }

    /**
     * The groups {@code default} gives a quota but a range slice does not name: drawing the slice
     * took their quota away over its hours. In row order.
     */
    public static List<String> leftOut(Draft d, TimeSlice slice) {
        List<String> out = new ArrayList<>();
        SliceRow row = d.slice(slice);
        if (row == null || slice.isDefault()) {
            return out;
        }
        for (GroupRow g : d.groups()) {
            GroupQuota usual = d.cell(TimeSlice.DEFAULT, g.name());
            if (usual != null && gives(usual) && row.cell(g.name()) == null) {
                out.add(g.name());
            }
        }
        return out;
    }
}

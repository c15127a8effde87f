package granary.planner.table.model;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

import granary.policy.quota.api.GroupQuota;

/**
 * What replacing one table with another does to each group, hour by hour (docs/planner.md, "Pushing a
 * table"): runs of hours in which a group's quota changes, with before and after — the summary a
 * planner reads before the JSON diff. Quotas are compared as {@code min/max}, "nothing" where the slice
 * in force does not name the group (see {@link QuotaSources}).
 */
public final class TableEffect {

    private TableEffect() {
    }

    /**
     * One run of hours in which a group's quota changes.
     *
     * @param from  first hour
     * @param to    the hour after the last (24 at most; runs do not wrap, so 22-2 is two lines)
     */
    public record Change(String group, int from, int to, String before, String after) {
        /** {@code group3 00:00-09:00: 3000/3000 -> 3000/4000}. */
        public String text() {
            return String.format("%s %02d:00-%02d:00: %s -> %s", group, from, to, before, after);
        }
    }

    /** Every change, groups in the order of {@code after} then of {@code before}, hours in order. */
    public static List<Change> between(Draft before, Draft after) {
        Set<String> groups = new LinkedHashSet<>();
        after.groups().forEach(g -> groups.add(g.name()));
        before.groups().forEach(g -> groups.add(g.name()));
        List<Change> out = new ArrayList<>();
        for (String g : groups) {
            int h = 0;
            while (h < Hours.DAY) {
                String b = quota(before, g, h);
                String a = quota(after, g, h);
                if (Objects.equals(a, b)) {
                    h++;
                    continue;
                }
                int end = h + 1;
                while (end < Hours.DAY && quota(before, g, end).equals(b) && quota(after, g, end).equals(a)) {
                    end++;
                }
                out.add(new Change(g, h, end, b, a));
                h = end;
            }
        }
        return out;
    }

    private static String quota(Draft d, String group, int hour) {
        GroupQuota q = QuotaSources.at(d, group, hour).quota();
        return q == null ? "nothing" : q.min() + "/" + q.max();
    }
}

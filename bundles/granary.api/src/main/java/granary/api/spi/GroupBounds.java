package granary.api.spi;

import granary.api.model.Resources;

/**
 * A group's guarantee ({@code min}) and limit ({@code max}) in force, as an admission policy counts
 * them: in resources, or in slots (workers). One form per record: the other form's fields are null /
 * -1.
 *
 * @param min      resources guaranteed, or null
 * @param max      resources the group may hold at most, or null
 * @param minSlots slots guaranteed, or -1
 * @param maxSlots slots the group may hold at most, or -1
 * @param fill     what the group may be filled up to on freed nodes now, when the policy holds it below
 *                 its max for a while (the quota policy before a slice boundary); null = {@code max}
 */
public record GroupBounds(Resources min, Resources max, long minSlots, long maxSlots, Resources fill) {

    public static GroupBounds ofResources(Resources min, Resources max) {
        return new GroupBounds(min, max, -1, -1, null);
    }

    public static GroupBounds ofSlots(long min, long max) {
        return new GroupBounds(null, null, min, max, null);
    }

    /** These bounds, filling the group on freed nodes only up to {@code limit} for now. */
    public GroupBounds fillingUpTo(Resources limit) {
        return new GroupBounds(min, max, minSlots, maxSlots, limit);
    }

    /** What the group may be filled up to on freed nodes now (resource form), or null. */
    public Resources fillLimit() {
        return fill != null ? fill : max;
    }

    public boolean slots() {
        return min == null && max == null;
    }

    /** True if the group holds less than its guarantee (in every resource, in resource form). */
    public boolean below(GroupView g) {
        if (slots()) {
            return g.usedSlots() < minSlots;
        }
        return min != null && g.used().fitsIn(min) && !g.used().equals(min);
    }

    /**
     * How far the group is above its limit, as a fraction of the limit in the resource most over it
     * (0 when within; slots in worker form).
     */
    public double over(GroupView g) {
        if (slots()) {
            return maxSlots <= 0 ? 0 : Math.max(0, g.usedSlots() - maxSlots) / (double) maxSlots;
        }
        if (max == null) {
            return 0;
        }
        Resources u = g.used();
        double worst = ratio(u.cpu(), max.cpu());
        worst = Math.max(worst, ratio(u.memMb(), max.memMb()));
        return worst;
    }

    private static double ratio(long used, long limit) {
        return limit <= 0 || used <= limit ? 0 : (used - limit) / (double) limit;
    }
}

package granary.policy.quota;

import granary.api.model.Resources;
import granary.policy.quota.api.Quota;
import granary.api.spi.GroupView;

/** A group's usage in the form its table counts: slots (workers), or resources. */
final class Usage {

    private Usage() {
    }

    static Quota of(GroupView g, boolean workers) {
        if (g == null) {
            return workers ? Quota.workers(0) : Quota.of(Resources.ZERO);
        }
        return workers ? Quota.workers(g.usedSlots()) : Quota.of(g.used());
    }

    /** used ≥ max; in resource form: some resource at or above its maximum, or no maximum at all. */
    static boolean reached(Quota used, Quota max) {
        if (used.isWorkers()) {
            return used.workers() >= max.workers();
        }
        return max.resources().isZero() || dimensionAtMax(used.resources(), max.resources());
    }

    private static boolean dimensionAtMax(Resources u, Resources m) {
        if (m.cpu() > 0 && u.cpu() >= m.cpu()) {
            return true;
        }
        if (m.memMb() > 0 && u.memMb() >= m.memMb()) {
            return true;
        }
        for (int i = 0; i < m.extendedCount(); i++) {
            if (m.extendedValue(i) > 0 && u.get(m.extendedName(i)) >= m.extendedValue(i)) {
                return true;
            }
        }
        return false;
    }

    /** How many more slots of {@code slot} (one worker each) fit under {@code max} given {@code used}. */
    static long room(Quota used, Quota max, Resources slot) {
        if (used.isWorkers()) {
            return Math.max(0, max.workers() - used.workers());
        }
        Resources left = max.resources().minus(used.resources());
        return left.isNonNegative() ? slot.copiesIn(left) : 0;
    }

    /** used below min (in every resource, in resource form). */
    static boolean belowMin(Quota used, Quota min) {
        return used.isWorkers() ? used.workers() < min.workers()
                : used.resources().fitsIn(min.resources()) && !used.resources().equals(min.resources());
    }

    /**
     * {@code min} less {@code perMille} thousandths of it: in each resource rounded down, in workers
     * rounded up (a small worker min keeps no dead zone).
     */
    static Quota lessDeadZone(Quota min, long perMille) {
        if (perMille <= 0) {
            return min;
        }
        double keep = 1 - perMille / 1000.0;
        if (min.isWorkers()) {
            return Quota.workers((long) Math.ceil(min.workers() * keep));
        }
        Resources m = min.resources();
        java.util.Map<String, Long> e = new java.util.HashMap<>();
        m.extended().forEach((n, v) -> e.put(n, (long) (v * keep)));
        return Quota.of(Resources.of((long) (m.cpu() * keep), (long) (m.memMb() * keep), e));
    }
}

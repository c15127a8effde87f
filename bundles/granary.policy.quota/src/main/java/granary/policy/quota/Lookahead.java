package granary.policy.quota;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;

import granary.api.spi.EngineView;
import granary.api.spi.GroupView;
import granary.api.spi.UnitView;
import granary.policy.quota.api.GroupQuota;
import granary.policy.quota.api.Quota;
import granary.policy.quota.api.QuotaTable;
import granary.policy.quota.api.TimeSlice;

/**
 * Quota-boundary lookahead (docs/multi-tenancy.md, "Draining before a slice boundary"): before the
 * next slice lowers a group's quota, work expected to outlive the boundary is granted only within
 * what the group may hold after it, so the group drains by the boundary instead of being preempted
 * after it.
 *
 * <p>How long work runs: the unit's declared {@code expectedSeconds}; else learned from the job's
 * earlier releases; else from the group's; unknown work counts as outliving the boundary. The limits
 * are computed at most once per second of engine time; asking costs a map lookup.
 */
final class Lookahead {

    /** Jobs whose run times are remembered (the oldest forgotten first). */
    private static final int JOBS_REMEMBERED = 10_000;
    /** Weight of the newest release in a learned run time. */
    private static final double ALPHA = 0.2;

    private final SliceClock clock;
    private final long horizonMillis;
    private final Map<String, double[]> byGroup = new HashMap<>();
    private final Map<String, double[]> byJob = new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, double[]> eldest) {
            return size() > JOBS_REMEMBERED;
        }
    };
    /** Per group: what it may hold past the boundary, while the lookahead acts; empty otherwise. */
    private Map<String, Quota> limits = Map.of();
    private long boundary = -1;
    private String nextSlice;
    private long computedAt = -1;

    /** QuotaOptions#packingHeadroomPercent: the next slice's mins as the policy will hold them. */
    private final long headroomPercent;

    Lookahead(SliceClock clock, long horizonMinutes, long headroomPercent) {
        this.headroomPercent = headroomPercent;
        this.clock = clock;
        this.horizonMillis = horizonMinutes * 60_000L;
    }

    /** Learns from a release: the oldest of the slots had run {@code heldMillis}. */
    void learn(UnitView unit, long heldMillis) {
        double s = Math.max(0, heldMillis) / 1000.0;
        blend(byGroup.computeIfAbsent(unit.group(), g -> new double[] {s, 0}), s);
        blend(byJob.computeIfAbsent(unit.job().id(), j -> new double[] {s, 0}), s);
    }

    private static void blend(double[] e, double s) {
        e[0] = e[1] == 0 ? s : (1 - ALPHA) * e[0] + ALPHA * s;
        e[1]++;
    }

    /** Expected run time of one slot of {@code u} in seconds, or -1 if nothing is known. */
    double expectedSeconds(UnitView u) {
        long declared = u.spec().expectedSeconds();
        if (declared > 0) {
            return declared;
        }
        double[] e = byJob.get(u.job().id());
        if (e == null) {
            e = byGroup.get(u.group());
        }
        return e == null ? -1 : e[0];
    }

    /** Recomputes the limits if a second has passed (or {@code force}). */
    void refresh(long now, QuotaTable table, Funding funding, EngineView view, boolean force) {
        if (!force && computedAt >= 0 && now >= computedAt && now - computedAt < 1000) {
            return;
        }
        computedAt = now;
        limits = Map.of();
        boundary = -1;
        if (table == null || funding.slice() == null) {
            return;
        }
        long b = now;
        TimeSlice next = null;
        for (int i = 0; i < 24 && next == null; i++) {
            b = clock.nextHour(b);
            TimeSlice s = table.sliceAt(clock.hour(b));
            if (!s.equals(funding.slice())) {
                next = s;
            }
        }
        if (next == null || b - now > horizonMillis) {
            return;   // one slice all day, or the boundary is not near yet
        }
        boundary = b;
        nextSlice = next.toString();
        Funding after = new Funding(table, next, view, headroomPercent);
        Map<String, Quota> out = new HashMap<>();
        for (Map.Entry<String, GroupQuota> e : funding.funded().entrySet()) {
            GroupQuota now0 = e.getValue();
            GroupQuota then = after.quota(e.getKey());
            Quota limit = null;
            if (then == null) {
                limit = funding.workers() ? Quota.workers(0) : Quota.of(granary.api.model.Resources.ZERO);
            } else if (!now0.max().atMost(then.max())) {
                limit = then.max();
            }
            if (then != null && !now0.min().atMost(then.min()) && othersWillBeShort(e.getKey(), after, funding, view)) {
                limit = then.min();   // above its next min it will be preempted for groups then below theirs
            }
            if (limit != null) {
                out.put(e.getKey(), atLeast(limit, now0.min()));
            }
        }
        limits = out;
    }

    /**
     * The limit, but never below the group's min in force now: the min is the group's until the
     * boundary, and a group held below it is a group below its guarantee (issue 24: the lookahead
     * kept a group whose min fell at 08:00 below its night min for 36 minutes).
     */
    private static Quota atLeast(Quota limit, Quota min) {
        if (limit.isWorkers() || min.isWorkers()) {
            return limit.isWorkers() && min.isWorkers() ? Quota.workers(Math.max(limit.workers(), min.workers())) : limit;
        }
        return Quota.of(limit.resources().max(min.resources()));
    }

    /** True if another group with demand will be below its min in the next slice. */
    private static boolean othersWillBeShort(String group, Funding after, Funding funding, EngineView view) {
        for (Map.Entry<String, GroupQuota> e : after.funded().entrySet()) {
            GroupView g = view.group(e.getKey());
            if (!e.getKey().equals(group) && g != null && g.waitingUnits() > 0
                    && Usage.belowMin(funding.used(g), e.getValue().min())) {
                return true;
            }
        }
        return false;
    }

    /**
     * What the unit's group may hold if the unit's work would outlive the coming boundary, or null when
     * the lookahead does not restrict it (no lowering boundary near, or the work ends before it).
     */
    Quota limit(UnitView u, long now) {
        Quota l = limits.get(u.group());
        if (l == null) {
            return null;
        }
        double d = expectedSeconds(u);
        return d >= 0 && now + (long) (d * 1000) <= boundary ? null : l;
    }

    /** What the group may hold after the coming boundary while the lookahead acts for it, or null. */
    Quota groupLimit(String group) {
        return limits.get(group);
    }

    /** Every group's limit while the lookahead acts; a new map whenever the limits are computed again. */
    Map<String, Quota> limits() {
        return limits;
    }

    long boundary() {
        return boundary;
    }

    String nextSlice() {
        return nextSlice;
    }
}

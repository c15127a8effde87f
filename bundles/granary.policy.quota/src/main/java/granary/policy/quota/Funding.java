package granary.policy.quota;

import java.util.HashMap;
import java.util.Map;

import granary.policy.quota.api.GroupQuota;
import granary.policy.quota.api.Quota;
import granary.policy.quota.api.QuotaState;
import granary.policy.quota.api.QuotaTable;
import granary.policy.quota.api.TimeSlice;
import granary.api.model.Resources;
import granary.api.spi.EngineView;
import granary.api.spi.GroupView;

/**
 * The funding in force: the current slice of the table, keyed by the full group names jobs wait in.
 * Table keys are full group names or, with a queue tree, unique short names of leaves: a key is
 * taken as the group the resolver names for it only when that group ends in the key (so a key never
 * lands on the fallback queue).
 */
final class Funding {

    private final QuotaTable table;
    private final TimeSlice slice;
    private final Map<String, GroupQuota> byGroup = new HashMap<>();
    /** Each funded group's min less the dead zone (QuotaOptions#minDeadZonePerMille), worked out once. */
    private final Map<String, Quota> guaranteed = new HashMap<>();

    Funding(QuotaTable table, TimeSlice slice, EngineView view) {
        this(table, slice, view, 0, 0);
    }

    Funding(QuotaTable table, TimeSlice slice, EngineView view, long headroomPercent) {
        this(table, slice, view, headroomPercent, 0);
    }

    /**
     * With {@code headroomPercent} > 0 and resource quotas: where the slice's mins add up to more than the
     * cluster less that share in a resource, each group's min in it is lowered pro rata until they add up to
     * that (QuotaOptions#packingHeadroomPercent). Issue 24: with mins that added up to the whole cluster, which
     * slots never pack whole, some group was always below its min. Each min held, less
     * {@code deadZonePerMille} thousandths of it, is what a group must be below to count as short of
     * its min.
     */
    Funding(QuotaTable table, TimeSlice slice, EngineView view, long headroomPercent, long deadZonePerMille) {
        this.table = table;
        this.slice = slice;
        if (table != null && slice != null) {
            for (GroupQuota q : table.groups(slice).values()) {
                byGroup.put(fullName(q.group(), view), q);
            }
            if (headroomPercent > 0 && !table.workerForm()) {
                packable(view.cluster().capacity(), headroomPercent);
            }
        }
        byGroup.forEach((name, q) -> guaranteed.put(name, Usage.lessDeadZone(q.min(), deadZonePerMille)));
    }

    private void packable(Resources capacity, long headroomPercent) {
        Resources sum = Resources.ZERO;
        for (GroupQuota q : byGroup.values()) {
            sum = sum.plus(q.min().resources());
        }
        double keep = (100 - headroomPercent) / 100.0;
        double cpu = factor(sum.cpu(), capacity.cpu(), keep);
        double mem = factor(sum.memMb(), capacity.memMb(), keep);
        Map<String, Double> ext = new HashMap<>();
        boolean scale = cpu < 1 || mem < 1;
        for (int i = 0; i < sum.extendedCount(); i++) {
            String n = sum.extendedName(i);
            double f = factor(sum.extendedValue(i), capacity.get(n), keep);
            ext.put(n, f);
            scale |= f < 1;
        }
        if (!scale) {
            return;
        }
        byGroup.replaceAll((name, q) -> {
            Resources m = q.min().resources();
            Map<String, Long> e = new HashMap<>();
            m.extended().forEach((n, v) -> e.put(n, (long) (v * ext.getOrDefault(n, 1.0))));
            return new GroupQuota(q.group(), q.groupId(), Quota.of(Resources.of((long) (m.cpu() * cpu),
                    (long) (m.memMb() * mem), e)), q.max());
        });
    }

    /** The factor that brings {@code sum} to {@code keep} of {@code capacity}, or 1 when it is within. */
    private static double factor(long sum, long capacity, double keep) {
        double limit = capacity * keep;
        return capacity <= 0 || sum <= limit ? 1 : limit / sum;
    }

    static String fullName(String key, EngineView view) {
        try {
            String resolved = view.resolveGroup(key);
            return resolved.equals(key) || resolved.endsWith("." + key) ? resolved : key;
        } catch (IllegalArgumentException ambiguousOrUnknown) {
            return key;
        }
    }

    QuotaTable table() {
        return table;
    }

    TimeSlice slice() {
        return slice;
    }

    /** The group's quota in the slice in force, or null if it is not funded now. */
    GroupQuota quota(String group) {
        return byGroup.get(group);
    }

    /** The group's min less the dead zone, in the slice in force, or null if it is not funded now. */
    Quota guaranteed(String group) {
        return guaranteed.get(group);
    }

    Map<String, GroupQuota> funded() {
        return byGroup;
    }

    boolean workers() {
        return table == null || table.workerForm();
    }

    Quota used(GroupView g) {
        return Usage.of(g, workers());
    }

    QuotaState state(GroupView g) {
        return state(g == null ? null : g.name(), g);
    }

    /** The state of a group by name; {@code g} may be null for a group with no jobs (it uses nothing). */
    QuotaState state(String name, GroupView g) {
        GroupQuota q = name == null ? null : byGroup.get(name);
        if (q == null) {
            return QuotaState.UNFUNDED;
        }
        Quota used = used(g);
        if (Usage.reached(used, q.max())) {
            return QuotaState.DRAWBACK;
        }
        return used.atMost(q.min()) ? QuotaState.NORMAL : QuotaState.OVERUSED;
    }

    /** Workers of the slice in force (WorkerSpans), or null. */
    Long workers(TimeSlice s) {
        return table == null || table.workerSpans() == null || s == null ? null : table.workerSpans().at(s);
    }

    /**
     * Workers still free in the slice in force (WorkerSpans − slots held by every group, funded now
     * or not: a group that lost its funding still occupies workers until it drains), or null without
     * WorkerSpans.
     */
    Long poolRoom(EngineView view) {
        Long workers = workers(slice);
        if (workers == null || !workers()) {
            return null;
        }
        long used = 0;
        for (GroupView g : view.groups()) {
            used += g.usedSlots();
        }
        return Math.max(0, workers - used);
    }
}

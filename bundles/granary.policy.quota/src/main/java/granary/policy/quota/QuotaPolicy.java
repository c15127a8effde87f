package granary.policy.quota;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import granary.api.model.InvalidRequestException;
import granary.api.model.JobSpec;
import granary.api.model.Resources;
import granary.api.model.UnitSpec;
import granary.policy.quota.api.GroupQuota;
import granary.policy.quota.api.Quota;
import granary.policy.quota.api.QuotaState;
import granary.policy.quota.api.QuotaTable;
import granary.policy.quota.api.TimeSlice;
import granary.api.spi.Admission;
import granary.api.spi.CycleAction;
import granary.api.spi.CycleContext;
import granary.api.spi.EngineView;
import granary.api.spi.GroupOrder;
import granary.api.spi.GroupView;
import granary.api.spi.JobView;
import granary.api.spi.Reason;
import granary.api.spi.ReasonCode;
import granary.api.spi.Reconfigurable;
import granary.api.spi.SubmitFilter;
import granary.api.spi.UnitView;
import granary.api.spi.Verdict;

/**
 * Elastic quota groups with a time-sliced quota table (docs/multi-tenancy.md).
 *
 * <ul>
 *   <li><b>Admission</b> — a group not funded in the slice in force gets nothing (its running work
 *       drains); a Drawback group (used ≥ max) gets nothing; otherwise a unit may have as many slots
 *       as fit under its group's max and, with WorkerSpans, under the service's workers of the slice.
 *       Capacity a group leaves idle is lent to the others (the shared pool grows and shrinks).</li>
 *   <li><b>Group order</b> (the loop of docs/multi-tenancy.md, "The elastic quota loop") — look at the head of every group queue: a head with a
 *       production level wins; then groups below their min; then the higher head priority; then the
 *       earlier head submission.</li>
 *   <li><b>Cycle action</b> — the slice switches on the engine clock at the hour boundary (the engine
 *       then looks at every node again); the top job that cannot be placed is preempted for when its
 *       group is below min (see {@link Preemptor}), else it becomes the <em>emergent job</em>, tried
 *       first in the next cycle while nothing else is granted ({@link QuotaOptions#holdForEmergent});
 *       billing integrates usage.</li>
 *   <li><b>Submit filter</b> — a job of a group funded in no slice, or an all-or-nothing job larger
 *       than its group's max in every slice, is refused at once.</li>
 * </ul>
 *
 * Quota groups are group queues: with a queue tree ({@code granary.policy.queues}) they are leaf
 * queues by full path, table keys may be full paths or unique short names, and both policies'
 * admissions apply; the group order in effect is the one of the policy selected last. Without a
 * table the policy admits everything and orders groups by used share (hunger).
 */
public class QuotaPolicy implements Admission, GroupOrder, CycleAction, SubmitFilter, Reconfigurable {

    /** The policy's name: console, status and HTTP use it. */
    public static final String NAME = "quota";

    private final QuotaOptions options;
    private final SliceClock clock;
    private final Billing billing;
    private QuotaTable table;
    private Funding funding;
    private String emergent;

    public QuotaPolicy(QuotaOptions options, QuotaTable table) {
        this.options = options;
        this.clock = new SliceClock(options.zone());
        this.billing = new Billing(clock, options.billingDays());
        this.table = table;
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public void attach(EngineView view) {
        refresh(view);
    }

    @Override
    public void detach() {
        emergent = null;
    }

    private void refresh(EngineView view) {
        TimeSlice slice = table == null ? null : table.sliceAt(clock.hour(view.now()));
        funding = new Funding(table, slice, view);
    }

    // ---- admission ----

    @Override
    public Verdict admitGroup(GroupView group, EngineView view) {
        if (table == null) {
            return Verdict.ALLOW;
        }
        GroupQuota q = funding.quota(group.name());
        if (q == null) {
            return Verdict.waitFor(Reason.of(ReasonCode.UNFUNDED, "group " + group.name(),
                    "not funded in slice " + funding.slice() + " of the quota table"));
        }
        Quota used = funding.used(group);
        if (Usage.reached(used, q.max())) {
            return Verdict.waitFor(limit(ReasonCode.DRAWBACK, group.name(), "Drawback: holds " + used + " of MaxQuota "
                    + q.max() + "; nothing until it releases", q.max(), used));
        }
        return Verdict.ALLOW;
    }

    @Override
    public Verdict admit(UnitView unit, int wanted, EngineView view) {
        if (table == null) {
            return Verdict.ALLOW;
        }
        if (options.holdForEmergent() && emergent != null && !emergent.equals(unit.job().id())) {
            return Verdict.waitFor(Reason.of(ReasonCode.BEHIND, "job " + emergent,
                    "is the emergent job: nothing else is granted until it fits"));
        }
        GroupQuota q = funding.quota(unit.group());
        if (q == null) {
            return admitGroup(view.group(unit.group()), view);
        }
        Quota used = funding.used(view.group(unit.group()));
        long room = Usage.room(used, q.max(), unit.slot());
        Reason why = limit(ReasonCode.QUOTA, unit.group(), "MaxQuota " + q.max() + ", holds " + used, q.max(), used);
        Long pool = funding.poolRoom(view);
        if (pool != null && pool < room) {
            room = pool;
            long workers = funding.workers(funding.slice());
            why = new Reason(ReasonCode.QUOTA, "slice " + funding.slice(), "the " + workers
                    + " workers of the slice (WorkerSpans) are all granted but " + pool, workers, workers - pool);
        }
        return room >= wanted ? Verdict.ALLOW : Verdict.allow((int) room, why);
    }

    private static Reason limit(ReasonCode code, String group, String message, Quota limit, Quota value) {
        return new Reason(code, "group " + group, message, limit.isWorkers() ? limit.workers() : -1,
                value.isWorkers() ? value.workers() : -1);
    }

    // ---- group order (docs/multi-tenancy.md, "The elastic quota loop") ----

    @Override
    public int compare(GroupView a, GroupView b, EngineView view) {
        if (table == null) {
            Resources cluster = view.cluster().capacity();
            return Double.compare(a.used().dominantShare(cluster), b.used().dominantShare(cluster));
        }
        UnitView ha = head(a, view);
        UnitView hb = head(b, view);
        if (ha == null || hb == null) {
            return ha == null ? (hb == null ? 0 : 1) : -1;
        }
        int c = Integer.compare(hb.job().productionLevel(), ha.job().productionLevel());
        if (c != 0) {
            return c;
        }
        c = Boolean.compare(belowMin(b), belowMin(a));   // groups below their min first
        if (c != 0) {
            return c;
        }
        c = Integer.compare(hb.priority(), ha.priority());
        return c != 0 ? c : Long.compare(ha.submitTime(), hb.submitTime());
    }

    private boolean belowMin(GroupView g) {
        GroupQuota q = funding.quota(g.name());
        return q != null && Usage.belowMin(funding.used(g), q.min());
    }

    private static UnitView head(GroupView g, EngineView view) {
        Iterator<? extends UnitView> it = view.waiting(g.name()).iterator();
        return it.hasNext() ? it.next() : null;
    }

    // ---- cycle ----

    @Override
    public void beforeAllocate(CycleContext ctx) {
        billing.charge(ctx.now(), table);
        TimeSlice before = funding == null ? null : funding.slice();
        refresh(ctx);
        if (table != null && before != null && !before.equals(funding.slice())) {
            ctx.reconsider();   // limits changed at the hour boundary: look at every node again
        }
        if (emergent != null) {
            tryEmergent(ctx);
        }
    }

    private void tryEmergent(CycleContext ctx) {
        JobView job = ctx.job(emergent);
        UnitView head = job == null ? null : firstWaiting(job);
        if (head == null || quotaRoom(head, ctx) == 0) {
            emergent = null;   // placed, gone, or held back by quota: it no longer blocks anyone
            return;
        }
        for (UnitView u : job.units()) {
            if (u.live() && u.remaining() > 0) {
                ctx.schedule(u.id());
            }
        }
        if (firstWaiting(job) == null) {
            emergent = null;
        }
    }

    @Override
    public void afterAllocate(CycleContext ctx) {
        if (table != null) {
            topJob(ctx);
        }
        billing.observe(ctx);
    }

    /** The top job of docs/multi-tenancy.md, "The elastic quota loop": placed, preempted for, or made the emergent job. */
    private void topJob(CycleContext ctx) {
        GroupView top = null;
        for (GroupView g : ctx.groups()) {
            if (g.waitingUnits() > 0 && admitGroup(g, ctx).allowed() && (top == null || compare(g, top, ctx) < 0)) {
                top = g;
            }
        }
        UnitView head = top == null ? null : head(top, ctx);
        if (head == null || head.remaining() == 0 || quotaRoom(head, ctx) == 0) {
            return;   // nothing waits, or it waits for quota rather than for resources
        }
        // the engine is work-conserving: a head still waiting after allocation fits on no node now
        if (options.preemption() && belowMin(top)) {
            int need = (int) Math.min(head.remaining(), quotaRoom(head, ctx));
            if (Preemptor.preempt(ctx, funding, head, need) > 0) {
                ctx.schedule(head.id());
            }
        }
        if (head.remaining() > 0 && options.holdForEmergent() && (head.allOrNothing() || head.granted() == 0)) {
            emergent = head.job().id();
        }
    }

    /** Slots the unit's group may still take by its max (ignoring the emergent hold). */
    private long quotaRoom(UnitView u, EngineView view) {
        GroupQuota q = funding.quota(u.group());
        return q == null ? 0 : Usage.room(funding.used(view.group(u.group())), q.max(), u.slot());
    }

    private static UnitView firstWaiting(JobView job) {
        for (UnitView u : job.units()) {
            if (u.live() && u.remaining() > 0) {
                return u;
            }
        }
        return null;
    }

    // ---- submit filter ----

    @Override
    public Verdict check(JobSpec job, EngineView view) {
        if (table == null) {
            return Verdict.ALLOW;
        }
        List<GroupQuota> funded = new ArrayList<>();
        for (TimeSlice s : table.slices()) {
            for (GroupQuota q : table.groups(s).values()) {
                if (Funding.fullName(q.group(), view).equals(job.group())) {
                    funded.add(q);
                }
            }
        }
        if (funded.isEmpty()) {
            Set<String> groups = new TreeSet<>();
            table.groupNames().forEach(n -> groups.add(Funding.fullName(n, view)));
            return Verdict.reject(Reason.of(ReasonCode.UNKNOWN_GROUP, "group " + job.group(),
                    "has no quota in any slice of the quota table; funded groups: " + String.join(", ", groups)));
        }
        Quota request = allOrNothingRequest(job);
        if (request != null && funded.stream().noneMatch(q -> request.atMost(q.max()))) {
            return Verdict.reject(Reason.of(ReasonCode.TOO_LARGE, "job " + job.id(), "asks all-or-nothing for "
                    + request + ", more than the MaxQuota of group " + job.group() + " in every slice "
                    + funded.stream().map(q -> q.max().toString()).toList()));
        }
        return Verdict.ALLOW;
    }

    /** What an all-or-nothing job needs at once, in the table's form; null if nothing is all-or-nothing. */
    private Quota allOrNothingRequest(JobSpec job) {
        long slots = 0;
        Resources res = Resources.ZERO;
        for (UnitSpec u : job.units()) {
            if (job.gang() || u.allOrNothing()) {
                slots += u.desired();
                res = res.plus(u.total());
            }
        }
        if (slots == 0) {
            return null;
        }
        return table.workerForm() ? Quota.workers(slots) : Quota.of(res);
    }

    // ---- run-time settings and reports ----

    @Override
    public List<String> reconfigure(Object settings, EngineView view) {
        if (!(settings instanceof QuotaTable t)) {
            throw new InvalidRequestException("policy quota", "settings", "expected a quota table, got "
                    + (settings == null ? "nothing" : settings.getClass().getSimpleName()));
        }
        this.table = t;
        this.emergent = null;
        refresh(view);
        return List.of("quota table: " + t.slices().size() + " slices, " + t.groupNames().size() + " groups, counting "
                + (t.workerForm() ? "workers" : "resources") + (t.workerSpans() == null ? "" : ", WorkerSpans " + t.workerSpans())
                + "; slice in force: " + funding.slice());
    }

    public QuotaTable table() {
        return table;
    }

    public QuotaReport quota(EngineView view) {
        refresh(view);
        Map<String, GroupQuotaRow> rows = new LinkedHashMap<>();
        funding.funded().forEach((name, q) -> rows.put(name, row(name, q.groupId(), q.min(), q.max(), view)));
        for (GroupView g : view.groups()) {
            rows.computeIfAbsent(g.name(), n -> row(n, idOf(n, view), zero(), zero(), view));
        }
        return new QuotaReport(funding.slice() == null ? "-" : funding.slice().toString(), funding.workers(funding.slice()),
                options.preemption(), emergent, new ArrayList<>(rows.values()));
    }

    private GroupQuotaRow row(String name, int id, Quota min, Quota max, EngineView view) {
        GroupView g = view.group(name);
        return new GroupQuotaRow(name, id, min, max, funding.used(g), table == null ? QuotaState.NORMAL : funding.state(name, g));
    }

    private Quota zero() {
        return funding.workers() ? Quota.workers(0) : Quota.of(Resources.ZERO);
    }

    private int idOf(String group, EngineView view) {
        if (table != null) {
            for (TimeSlice s : table.slices()) {
                for (GroupQuota q : table.groups(s).values()) {
                    if (Funding.fullName(q.group(), view).equals(group)) {
                        return q.groupId();
                    }
                }
            }
        }
        return -1;
    }

    public List<BillingRow> billing(String day, EngineView view) {
        billing.charge(view.now(), table);
        return billing.rows(day);
    }

    @Override
    public Map<String, String> status() {
        return Map.of("table", table == null ? "none" : table.slices().size() + " slices",
                "preemption", Boolean.toString(options.preemption()), "zone", options.zone().getId());
    }
}

package granary.policy.quota;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

import granary.api.model.InvalidRequestException;
import granary.api.model.JobSpec;
import granary.api.model.Resources;
import granary.api.model.UnitId;
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
import granary.api.spi.GroupBounds;
import granary.api.spi.GroupView;
import granary.api.spi.JobView;
import granary.api.spi.NodeFilter;
import granary.api.spi.NodeView;
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
 *       group is below min, with restraint (see {@link Preemptor}), and becomes the <em>emergent
 *       job</em>: tried first in every cycle, with a claim on the nodes it needs as they free up
 *       (or, in HOLD mode, nothing else granted; {@link QuotaOptions#emergent}); before a boundary
 *       that lowers a group's quota, work that would outlive it is held to the next slice's quota
 *       ({@link Lookahead}); billing integrates usage.</li>
 *   <li><b>Node filter</b> — a node claimed for the emergent job takes no other work.</li>
 *   <li><b>Submit filter</b> — a job of a group funded in no slice, or an all-or-nothing job larger
 *       than its group's max in every slice, is refused at once.</li>
 * </ul>
 *
 * Quota groups are group queues: with a queue tree ({@code granary.policy.queues}) they are leaf
 * queues by full path, table keys may be full paths or unique short names, and both policies'
 * admissions apply; the group order in effect is the one of the policy selected last. Without a
 * table the policy admits everything and orders groups by used share (hunger).
 */
public class QuotaPolicy implements Admission, GroupOrder, CycleAction, SubmitFilter, NodeFilter, Reconfigurable {

    /** The policy's name: console, status and HTTP use it. */
    public static final String NAME = "quota";
    /** How often a claim is worked out again while its job waits (nodes come and go). */
    private static final long CLAIM_REFRESH_MILLIS = 30_000;
    /** How many of a group's heads one preemption attempt serves at most (each only what it needs). */
    static final int MAX_HEADS_PER_ATTEMPT = 64;
    /** How often the funding is worked out again besides at slice boundaries (a queue tree may rename groups). */
    private static final long FUNDING_REFRESH_MILLIS = 10_000;

    private final QuotaOptions options;
    private final SliceClock clock;
    private final Billing billing;
    private final Preemptor preemptor;
    private final Lookahead lookahead;
    private QuotaTable table;
    private Funding funding;
    /** {@link #bounds} per group, for the funding and the lookahead limits they were built from. */
    private final Map<String, GroupBounds> boundsCache = new HashMap<>();
    private Funding boundsFunding;
    private Map<String, Quota> boundsLimits;
    private long fundingUntil = Long.MIN_VALUE;
    private long fundingAt;
    private String emergent;
    /** Nodes claimed for the emergent job (CLAIM mode), and its units that may use them. */
    private final Set<String> claim = new LinkedHashSet<>();
    private Set<UnitId> claimUnits = Set.of();
    private Reason claimReason;
    private long claimAt;
    /** When the emergent job was last scheduled explicitly. */
    private long triedAt = -1;
    /** True while the emergent job is being placed (HOLD mode lets it through). */
    private boolean placingEmergent;
    /** Per group: the wait verdict given last and the usage it was given for (reasons are built once). */
    private final Map<String, Object[]> groupVerdicts = new HashMap<>();
    /**
     * With {@code yieldAboveMin}: the first group below its min whose head waited for resources at the end
     * of the last cycle (groups above their min get nothing new meanwhile), or null.
     */
    private String yieldTo;
    private Verdict yieldVerdict;
    /** Per group below its min whose head waits for resources: since when, without a break. */
    private final Map<String, Long> belowSince = new HashMap<>();
    /** Per group below its min with waiting work, at the end of the last cycle: why it is not back at its min. */
    private final Map<String, String> belowCauses = new HashMap<>();

    public QuotaPolicy(QuotaOptions options, QuotaTable table) {
        this.options = options;
        this.clock = new SliceClock(options.zone());
        this.billing = new Billing(clock, options.billingDays());
        this.preemptor = new Preemptor(options);
        this.lookahead = new Lookahead(clock, options.lookaheadMinutes(), options.packingHeadroomPercent());
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
        belowSince.clear();
        yieldTo = null;
        claim.clear();
        claimUnits = Set.of();
    }

    private void refresh(EngineView view) {
        long now = view.now();
        TimeSlice slice = table == null ? null : table.sliceAt(clock.hour(now));
        funding = new Funding(table, slice, view, options.packingHeadroomPercent(), options.minDeadZonePerMille());
        fundingUntil = clock.nextHour(now);
        fundingAt = now;
        groupVerdicts.clear();
        if (options.lookahead()) {
            lookahead.refresh(now, table, funding, view, true);
        }
    }

    /** Works the funding out again at an hour boundary (or every few seconds); true if the slice changed. */
    private boolean refreshIfDue(EngineView view) {
        long now = view.now();
        if (funding != null && now < fundingUntil && now - fundingAt < FUNDING_REFRESH_MILLIS && now >= fundingAt) {
            return false;
        }
        TimeSlice before = funding == null ? null : funding.slice();
        refresh(view);
        return table != null && before != null && !before.equals(funding.slice());
    }

    // ---- admission ----

    @Override
    public Verdict admitGroup(GroupView group, EngineView view) {
        if (table == null) {
            return Verdict.ALLOW;
        }
        if (holding()) {
            return behind();
        }
        if (yieldTo != null && !yieldTo.equals(group.name()) && funding.state(group) == QuotaState.OVERUSED) {
            return yieldVerdict;
        }
        return groupVerdict(group);
    }

    /** Nothing but the emergent job is granted now (HOLD mode). */
    private boolean holding() {
        return options.emergent() == QuotaOptions.EmergentMode.HOLD && emergent != null && !placingEmergent;
    }

    private Verdict behind() {
        return Verdict.waitFor(Reason.of(ReasonCode.BEHIND, "job " + emergent,
                "is the emergent job: nothing else is granted until it fits (emergent=hold)"));
    }

    /** The group's verdict by its quota alone; a refusal is built once per usage level. */
    private Verdict groupVerdict(GroupView group) {
        GroupQuota q = funding.quota(group.name());
        Quota used = funding.used(group);
        if (q != null && !Usage.reached(used, q.max())) {
            return Verdict.ALLOW;
        }
        Object[] cached = groupVerdicts.get(group.name());
        if (cached != null && cached[0].equals(used)) {
            return (Verdict) cached[1];
        }
        Verdict v = q == null
                ? Verdict.waitFor(Reason.of(QuotaReasons.UNFUNDED, "group " + group.name(),
                        "not funded in slice " + funding.slice() + " of the quota table"))
                : Verdict.waitFor(limit(QuotaReasons.DRAWBACK, group.name(), "Drawback: holds " + used + " of MaxQuota "
                        + q.max() + "; nothing until it releases", q.max(), used));
        groupVerdicts.put(group.name(), new Object[] {used, v});
        return v;
    }

    @Override
    public Verdict admit(UnitView unit, int wanted, EngineView view) {
        if (table == null) {
            return Verdict.ALLOW;
        }
        if (holding() && !emergent.equals(unit.job().id())) {
            return behind();
        }
        GroupView g = view.group(unit.group());
        GroupQuota q = funding.quota(unit.group());
        if (q == null) {
            return groupVerdict(g);
        }
        Quota used = funding.used(g);
        long room = Usage.room(used, q.max(), unit.slot());
        ReasonCode code = QuotaReasons.QUOTA;
        Long pool = funding.poolRoom(view);
        if (pool != null && pool < room) {
            room = pool;
            code = null;   // the pool of WorkerSpans
        }
        Quota after = options.lookahead() ? lookahead.limit(unit, view.now()) : null;
        if (after != null) {
            long r = Usage.room(used, after, unit.slot());
            if (r < room) {
                room = r;
                code = QuotaReasons.LOOKAHEAD;
            }
        }
        if (room >= wanted) {
            return Verdict.ALLOW;
        }
        return Verdict.allow((int) room, why(code, unit, q, used, after, pool));
    }

    /** Why a unit may not have more slots now; built only when it is refused some. */
    private Reason why(ReasonCode code, UnitView unit, GroupQuota q, Quota used, Quota after, Long pool) {
        if (code == QuotaReasons.LOOKAHEAD) {
            return limit(code, unit.group(), "the slice boundary at " + java.time.Instant.ofEpochMilli(lookahead.boundary())
                    + " lowers its quota to " + after + " (slice " + lookahead.nextSlice() + "); work expected to run "
                    + expectedText(unit) + " would outlive it; holds " + used, after, used);
        }
        if (code == null) {
            long workers = funding.workers(funding.slice());
            return new Reason(QuotaReasons.QUOTA, "slice " + funding.slice(), "the " + workers
                    + " workers of the slice (WorkerSpans) are all granted but " + pool, workers, workers - pool);
        }
        return limit(code, unit.group(), "MaxQuota " + q.max() + ", holds " + used, q.max(), used);
    }

    private String expectedText(UnitView u) {
        double s = lookahead.expectedSeconds(u);
        return s < 0 ? "an unknown time" : String.format(java.util.Locale.ROOT, "%.0f s", s);
    }

    @Override
    public GroupBounds bounds(GroupView group, EngineView view) {
        if (table == null) {
            return null;
        }
        // asked for every node a group is offered: built once per funding and lookahead limits
        Map<String, Quota> limits = options.lookahead() ? lookahead.limits() : Map.of();
        if (boundsFunding != funding || boundsLimits != limits) {
            boundsCache.clear();
            boundsFunding = funding;
            boundsLimits = limits;
        }
        GroupBounds b = boundsCache.get(group.name());
        if (b == null && !boundsCache.containsKey(group.name())) {
            b = buildBounds(group);
            boundsCache.put(group.name(), b);
        }
        return b;
    }

    private GroupBounds buildBounds(GroupView group) {
        GroupQuota q = funding.quota(group.name());
        if (q == null) {
            return null;
        }
        if (q.max().isWorkers()) {
            return GroupBounds.ofSlots(funding.guaranteed(group.name()).workers(), q.max().workers());
        }
        GroupBounds b = GroupBounds.ofResources(funding.guaranteed(group.name()).resources(), q.max().resources());
        Quota after = options.lookahead() ? lookahead.groupLimit(group.name()) : null;
        // freed nodes fill the group only up to its next-slice quota (docs/multi-tenancy.md, "Draining before a slice boundary")
        return after != null && after.atMost(q.max()) ? b.fillingUpTo(after.resources()) : b;
    }

    private static Reason limit(ReasonCode code, String group, String message, Quota limit, Quota value) {
        return new Reason(code, "group " + group, message, limit.isWorkers() ? limit.workers() : -1,
                value.isWorkers() ? value.workers() : -1);
    }

    // ---- node filter: the emergent job's claim ----

    @Override
    public Verdict filter(UnitView unit, NodeView node) {
        if (claim.isEmpty() || !claim.contains(node.name()) || unit.job().id().equals(emergent)) {
            return Verdict.ALLOW;
        }
        return Verdict.waitFor(claimReason);
    }

    @Override
    public Set<UnitId> reservedFor(NodeView node) {
        return claim.isEmpty() || !claim.contains(node.name()) ? null : claimUnits;
    }

    // ---- group order (docs/multi-tenancy.md, "The elastic quota loop") ----

    @Override
    public int compare(GroupView a, GroupView b, EngineView view) {
        if (table == null) {
            Resources cluster = view.cluster().capacity();
            return Double.compare(a.used().dominantShare(cluster), b.used().dominantShare(cluster));
        }
        UnitView ha = view.head(a.name());
        UnitView hb = view.head(b.name());
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
        if (c == 0 && options.smallFirst()) {
            // docs/multi-tenancy.md, "Choices and their defaults": the smaller head's job goes first
            c = Long.compare(ha.job().requestedSlots(), hb.job().requestedSlots());
        }
        return c != 0 ? c : Long.compare(ha.submitTime(), hb.submitTime());
    }

    /**
     * Below its min by more than the dead zone (docs/multi-tenancy.md, "Why a group stays below its
     * min"): what makes a group with demand take capacity back, and what the guarantee's bound is
     * measured against. Once it takes, it takes up to its whole min.
     */
    private boolean shortOfMin(GroupView g) {
        Quota guaranteed = funding.guaranteed(g.name());
        return guaranteed != null && Usage.belowMin(funding.used(g), guaranteed);
    }

    private boolean belowMin(GroupView g) {
        GroupQuota q = funding.quota(g.name());
        return q != null && Usage.belowMin(funding.used(g), q.min());
    }

    // ---- cycle ----

    @Override
    public void beforeAllocate(CycleContext ctx) {
        billing.charge(ctx.now(), table);
        if (refreshIfDue(ctx)) {
            ctx.reconsider();   // limits changed at the hour boundary: look at every node again
        }
        if (options.lookahead()) {
            lookahead.refresh(ctx.now(), table, funding, ctx, false);
        }
        if (emergent != null) {
            tryEmergent(ctx);
        }
    }

    private void tryEmergent(CycleContext ctx) {
        JobView job = ctx.job(emergent);
        UnitView head = job == null ? null : firstWaiting(job);
        if (head == null || quotaRoom(head, ctx) == 0) {
            clearEmergent(ctx);   // placed, gone, or held back by quota: it no longer blocks anyone
            return;
        }
        boolean claiming = options.emergent() == QuotaOptions.EmergentMode.CLAIM;
        if (claiming && ctx.now() - triedAt < 1000 && ctx.now() >= triedAt) {
            return;   // with a claim, freed nodes serve it on their own (its nodes by the filter, the others in group order)
        }
        triedAt = ctx.now();
        placingEmergent = true;
        try {
            for (UnitView u : job.units()) {
                if (u.live() && u.remaining() > 0) {
                    ctx.schedule(u.id());
                }
            }
        } finally {
            placingEmergent = false;
        }
        if (firstWaiting(job) == null) {
            clearEmergent(ctx);
        } else if (options.emergent() == QuotaOptions.EmergentMode.CLAIM && ctx.now() - claimAt >= CLAIM_REFRESH_MILLIS) {
            claim(ctx, job);
        }
    }

    private void clearEmergent(CycleContext ctx) {
        emergent = null;
        if (!claim.isEmpty()) {
            claim.clear();
            claimUnits = Set.of();
            ctx.reconsider();   // claimed nodes take other work again
        }
    }

    @Override
    public void afterAllocate(CycleContext ctx) {
        if (table != null) {
            topJob(ctx);
        }
        billing.observe(ctx);
    }

    @Override
    public void released(UnitView unit, int slots, long heldMillis, EngineView view) {
        lookahead.learn(unit, heldMillis);
    }

    /** The top job of docs/multi-tenancy.md, "The elastic quota loop": placed, preempted for, or made the emergent job. */
    private void topJob(CycleContext ctx) {
        if (emergent != null) {
            JobView job = ctx.job(emergent);
            if (job == null || firstWaiting(job) == null) {
                clearEmergent(ctx);   // placed in this cycle's allocation (on its claim), or gone
            }
        }
        GroupView top = null;
        for (GroupView g : ctx.groups()) {
            if (g.waitingUnits() > 0 && groupVerdict(g).allowed() && (top == null || compare(g, top, ctx) < 0)) {
                top = g;
            }
        }
        if (options.preemption()) {
            preemptForGroupsBelowMin(ctx);
        }
        UnitView head = top == null ? null : ctx.head(top.name());
        if (!waitsForResources(head, ctx)) {
            return;   // nothing waits, or it waits for quota (or the lookahead) rather than for resources
        }
        if (emergent == null && head.remaining() > 0 && options.emergent() != QuotaOptions.EmergentMode.OFF
                && (head.allOrNothing() || head.granted() == 0)) {
            emergent = head.job().id();
            if (options.emergent() == QuotaOptions.EmergentMode.CLAIM) {
                claim(ctx, head.job());
            }
        }
    }

    /**
     * Every group below its min whose head waits for resources takes back what the head needs, in group
     * order, each paced on its own: a group below its min does not wait behind another one that is
     * (issue 24: with one attempt for the top group only, the others stayed below their min for hours).
     * A group below its min may take one slot more than the room to its min when its head's slot does not
     * fit under the min: it is below its min in every resource, and that slot brings it there.
     */
    private void preemptForGroupsBelowMin(CycleContext ctx) {
        List<GroupView> below = new ArrayList<>();
        for (GroupView g : ctx.groups()) {
            if (g.waitingUnits() > 0 && shortOfMin(g) && groupVerdict(g).allowed()) {
                below.add(g);
            }
        }
        below.sort((a, b) -> compare(a, b, ctx));
        Map<String, Long> since = new HashMap<>();
        belowCauses.clear();
        String waiting = null;
        for (GroupView g : below) {
            UnitView head = ctx.head(g.name());
            if (!waitsForResources(head, ctx)) {
                belowCauses.put(g.name(), head == null || head.remaining() == 0 ? "no waiting head"
                        : quotaRoom(head, ctx) == 0 ? "head held by its max" : "head held by quota or lookahead");
                continue;
            }
            waiting = waiting == null ? g.name() : waiting;
            long from = belowSince.getOrDefault(g.name(), ctx.now());
            since.put(g.name(), from);
            if (ctx.now() - from < options.graceSeconds() * 1000) {
                belowCauses.put(g.name(), "grace");
                continue;   // capacity that frees up on its own comes to it first (it is below its min)
            }
            // the engine is work-conserving: a head still waiting after allocation fits on no node now.
            // One attempt serves the group's heads one after the other until it is back at its min (issue
            // 24: one head per attempt, a second apart, kept a group whose heads were small jobs below its
            // min for minutes).
            // Only what admission lets the head have now is taken for it (issue 24: with an emergent job the
            // check above passes a head the lookahead holds back; what was taken for it went to others, and
            // was taken again the next second).
            for (int k = 0; k < MAX_HEADS_PER_ATTEMPT; k++) {
                int may = ctx.admissible(head);
                if (may == 0) {
                    if (k == 0) {
                        belowCauses.put(g.name(), "head held by quota or lookahead");
                    }
                    break;
                }
                long toMin = Math.min(may, Math.max(1, Usage.room(funding.used(g), funding.quota(g.name()).min(), head.slot())));
                if (preemptor.preempt(ctx, funding, head, toMin, k > 0) == 0) {
                    break;
                }
                long before = head.remaining();
                UnitId served = head.id();
                ctx.schedule(served);
                head = ctx.head(g.name());
                if (head != null && head.id().equals(served) && head.remaining() >= before) {
                    break;   // what was freed did not serve it: take nothing more for it now
                }
                if (!belowMin(g) || !waitsForResources(head, ctx)) {
                    break;
                }
            }
            if (!belowCauses.containsKey(g.name())) {
                Preemptor.Cause c = preemptor.cause(g.name());
                belowCauses.put(g.name(), c == null ? "paced" : c.toString());
            }
        }
        belowCauses.keySet().removeIf(name -> {
            GroupView g = ctx.group(name);
            return g == null || g.waitingUnits() == 0 || !shortOfMin(g);   // served in this cycle
        });
        belowSince.clear();
        belowSince.putAll(since);
        yieldUntilServed(waiting, ctx);
    }

    /**
     * With {@code yieldAboveMin}, groups above their min take nothing new while {@code group} (below its
     * min, its head waiting for resources) is not served: a grant to them now is the youngest work
     * preemption would take back first (docs/multi-tenancy.md, "Choices and their defaults").
     */
    private void yieldUntilServed(String group, CycleContext ctx) {
        String next = options.yieldAboveMin() ? group : null;
        if (yieldTo != null && next == null) {
            ctx.reconsider();   // nodes passed over for the groups above their min may serve them again
        }
        if (next != null && !next.equals(yieldTo)) {
            yieldVerdict = Verdict.waitFor(Reason.of(QuotaReasons.QUOTA, "group " + next,
                    "is below its MinQuota and waits for resources: groups above theirs get nothing new until it is served"));
        }
        yieldTo = next;
    }

    /** The head waits for resources, not for quota or the lookahead (or nothing waits). */
    private boolean waitsForResources(UnitView head, CycleContext ctx) {
        return head != null && head.remaining() > 0 && quotaRoom(head, ctx) > 0 && (emergent != null || ctx.admissible(head) > 0);
    }

    /**
     * Claims, for the emergent job, the fewest nodes whose capacity covers what it needs to start —
     * all of an all-or-nothing unit, one slot of another — those with the most room for it now
     * first. Nothing else is granted on them; the rest of the cluster keeps working.
     */
    private void claim(CycleContext ctx, JobView job) {
        Set<String> nodes = new LinkedHashSet<>();
        Set<UnitId> units = new HashSet<>();
        for (UnitView u : job.units()) {
            if (!u.live() || u.remaining() == 0 || (!job.gang() && !u.allOrNothing() && !nodes.isEmpty())) {
                continue;
            }
            units.add(u.id());
            long need = u.allOrNothing() ? u.remaining() : 1;
            List<NodeView> candidates = new ArrayList<>();
            for (NodeView n : ctx.cluster().nodes()) {
                if (!n.blacklisted() && u.slot().copiesIn(n.capacity()) > 0 && ctx.mayUse(u, n)) {
                    candidates.add(n);
                }
            }
            candidates.sort(Comparator.comparingInt((NodeView n) -> -u.slot().copiesIn(n.free()))
                    .thenComparing(NodeView::name));
            long have = 0;
            for (NodeView n : candidates) {
                if (have >= need) {
                    break;
                }
                int potential = u.slot().copiesIn(n.capacity());
                int max = u.spec().maxPerNode();
                have += max > 0 ? Math.min(potential, max) : potential;
                nodes.add(n.name());
            }
        }
        boolean shrank = !nodes.containsAll(claim);
        claim.clear();
        claim.addAll(nodes);
        claimUnits = Set.copyOf(units);
        claimReason = Reason.of(QuotaReasons.LOCKED, "job " + job.id(), "the emergent job has claimed this node ("
                + claim.size() + " claimed) until it starts");
        claimAt = ctx.now();
        if (shrank) {
            ctx.reconsider();
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
        this.claim.clear();
        this.claimUnits = Set.of();
        refresh(view);
        return List.of("quota table: " + t.slices().size() + " slices, " + t.groupNames().size() + " groups, counting "
                + (t.workerForm() ? "workers" : "resources") + (t.workerSpans() == null ? "" : ", WorkerSpans " + t.workerSpans())
                + "; slice in force: " + funding.slice());
    }

    public QuotaTable table() {
        return table;
    }

    /** The quota table in force. */
    @Override
    public Object settings() {
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
                options.preemption(), emergent, claim.size(), lookahead.boundary() < 0 ? null
                        : java.time.Instant.ofEpochMilli(lookahead.boundary()).toString(), new ArrayList<>(rows.values()));
    }

    private GroupQuotaRow row(String name, int id, Quota min, Quota max, EngineView view) {
        GroupView g = view.group(name);
        long[] p = preemptor.counts().getOrDefault(name, new long[3]);
        return new GroupQuotaRow(name, id, min, max, funding.used(g), table == null ? QuotaState.NORMAL : funding.state(name, g),
                p[0], p[1], p[2] / 1000.0);
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

    /**
     * Its options, then one line per group below its min with waiting work at the end of the last cycle,
     * {@code below-min <group>}: why it is not back at its min (the simulator charges long stretches below
     * the min to these; docs/multi-tenancy.md, "Why a group stays below its min").
     */
    @Override
    public Map<String, String> status() {
        Map<String, String> s = new LinkedHashMap<>();
        s.put("table", table == null ? "none" : table.slices().size() + " slices");
        s.put("preemption", Boolean.toString(options.preemption()));
        s.put("zone", options.zone().getId());
        s.put("emergent", options.emergent().name().toLowerCase(java.util.Locale.ROOT));
        s.put("lookahead", Boolean.toString(options.lookahead()));
        new TreeMap<>(belowCauses).forEach((g, c) -> s.put(BELOW_MIN_STATUS + g, c));
        return s;
    }

    /** The prefix of the status lines that say why a group is below its min. */
    public static final String BELOW_MIN_STATUS = "below-min ";

    /** Why each group below its min with waiting work is not back at it, as of the last cycle. */
    Map<String, String> belowMinCauses() {
        return Map.copyOf(belowCauses);
    }
}

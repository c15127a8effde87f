package granary.engine.cycle;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

import granary.api.model.Resources;
import granary.api.model.UnitId;
import granary.api.spi.GangPlacement;
import granary.api.spi.GangPlan;
import granary.api.spi.PlacementContext;
import granary.api.spi.Reason;
import granary.api.spi.ReasonCode;
import granary.engine.policy.PolicySet;
import granary.engine.state.Allocator;
import granary.engine.state.Cluster;
import granary.engine.state.GroupState;
import granary.engine.state.JobState;
import granary.engine.state.NodeIndex;
import granary.engine.state.NodeState;
import granary.engine.state.UnitState;
import granary.engine.state.Workload;

/**
 * All-or-nothing scheduling (docs/scheduling.md, "Gangs"): a gang — one all-or-nothing unit, or every
 * waiting unit of a gang job — gets all its remaining slots in one step or none. The gang-placement
 * policy proposes a plan; the engine checks all of it against free resources, per-node limits, filters
 * and admission before granting any of it, then grants it whole. A plan that does not hold grants
 * nothing.
 */
public final class GangScheduler {

    private final Cluster cluster;
    private final Workload workload;
    private final PolicySet policies;
    private final Eligibility eligibility;
    private final Allocator allocator;
    private final PlacementContext context;
    private final WaitLedger ledger;

    public GangScheduler(Cluster cluster, Workload workload, PolicySet policies, Eligibility eligibility,
                  Allocator allocator, PlacementContext context, WaitLedger ledger) {
        this.cluster = cluster;
        this.workload = workload;
        this.policies = policies;
        this.eligibility = eligibility;
        this.allocator = allocator;
        this.context = context;
        this.ledger = ledger;
    }

    /**
     * Tries every waiting gang that could fit, groups in group order, gangs in unit order.
     *
     * <p>This runs whenever something was freed, so it first drops, without asking any policy and
     * without allocating, what cannot fit: a group whose smallest waiting gang slot (its gang
     * queue's minimum shape) fits no node, found through the node index; then each gang whose total
     * exceeds what the whole cluster has free, or one of whose slots fits no node. Only the gangs
     * that pass these necessary conditions go to admission and the gang-placement policy, so a
     * release costs O(waiting gangs) comparisons, not a plan per gang.
     */
    public void run() {
        NodeIndex index = cluster.index();
        List<GroupState> groups = new ArrayList<>();
        for (GroupState g : workload.groups()) {
            long[] smallest = g.gangs().minShape();
            if (smallest != null && index.find(0, smallest) >= 0) {
                groups.add(g);
            }
        }
        if (groups.size() > 1) {
            groups.sort((a, b) -> {
                int c = policies.groupOrder().compare(a, b, context);
                return c != 0 ? c : a.name().compareTo(b.name());
            });
        }
        Resources free = cluster.free();
        Set<String> triedJobs = new HashSet<>();
        for (GroupState g : groups) {
            if (!eligibility.groupAdmitted(g)) {
                continue;
            }
            // look first (the queue must not change while it is walked), then try the hopeful ones
            List<UnitState> hopeful = new ArrayList<>();
            for (UnitState u : g.gangs()) {
                if ((!u.job().gang() || triedJobs.add(u.job().id())) && mayFit(u, free)) {
                    hopeful.add(u);
                }
            }
            for (UnitState u : hopeful) {
                if (u.queued() && mayFit(u, free) && schedule(gangOf(u)) > 0) {
                    free = cluster.free();
                }
            }
        }
    }

    /**
     * Tries only gangs that were just requested (nothing was freed: the others' chances did not
     * change), in arrival order — the all-or-nothing counterpart of active scheduling.
     */
    public void runFresh(List<UnitState> fresh) {
        Resources free = cluster.free();
        Set<String> triedJobs = new HashSet<>();
        for (UnitState f : fresh) {
            UnitState u = f.job().gang() ? firstWaiting(JobState.of(f)) : f;   // any waiting unit leads a gang job
            if (u != null && u.queued() && (!u.job().gang() || triedJobs.add(u.job().id()))
                    && eligibility.groupAdmitted(workload.group(u.group())) && mayFit(u, free)
                    && schedule(gangOf(u)) > 0) {
                free = cluster.free();
            }
        }
    }

    private static UnitState firstWaiting(JobState job) {
        for (UnitState m : job.units()) {
            if (m.queued()) {
                return m;
            }
        }
        return null;
    }

    /**
     * Necessary conditions for the gang of {@code u} to fit, in O(units × dims) without allocating:
     * each slot fits some node, and the gang's total fits in what the cluster has free. A gang that
     * fails waits with a reason.
     */
    private boolean mayFit(UnitState u, Resources free) {
        if (!u.job().gang()) {
            return mayFit(u, u.remaining(), free, u);
        }
        for (UnitState m : JobState.of(u).units()) {
            if (m.live() && m.remaining() > 0 && !mayFit(m, m.remaining(), free, u)) {
                return false;
            }
        }
        return totalFits(JobState.of(u).units(), free);
    }

    /** One unit of a gang: its slot fits some node, and its own part fits in what is free. */
    private boolean mayFit(UnitState m, int slots, Resources free, UnitState gang) {
        if (!timesFits(m.slot(), slots, free)) {
            boolean never = !timesFits(m.slot(), slots, cluster.capacity());
            markIfUnexplained(gang, never ? ReasonCode.TOO_LARGE : ReasonCode.NO_PLACEMENT, subject -> lacking(subject,
                    never, false, "unit " + m.id() + " needs " + slots + " x " + m.slot() + " at once", m.slot().times(slots)));
            return false;
        }
        if (cluster.index().find(0, m.slotVector()) < 0) {
            boolean never = !m.slot().fitsIn(cluster.largestNode());
            markIfUnexplained(gang, never ? ReasonCode.TOO_LARGE : ReasonCode.NO_PLACEMENT, subject -> lacking(subject,
                    never, true, "no node has room for slot " + m.slot() + " of unit " + m.id() + " now", m.slot()));
            return false;
        }
        return true;
    }

    /** The whole gang job's total fits in what is free. */
    private boolean totalFits(List<UnitState> units, Resources free) {
        Resources total = Resources.ZERO;
        for (UnitState m : units) {
            if (m.live() && m.remaining() > 0) {
                total = total.plus(m.slot().times(m.remaining()));
            }
        }
        if (!total.fitsIn(free)) {
            Resources need = total;
            boolean never = !total.fitsIn(cluster.capacity());
            markIfUnexplained(units.get(0), never ? ReasonCode.TOO_LARGE : ReasonCode.NO_PLACEMENT,
                    subject -> lacking(subject, never, false, "the gang needs " + need + " at once", need));
            return false;
        }
        return true;
    }

    /**
     * A gang short of {@code need} ({@code oneSlot}: of a node with room for one slot): TOO_LARGE when
     * even the whole cluster's capacity (for one slot, the largest node) has less, else NO_PLACEMENT;
     * with the amount of the resource that binds, needed against what there is (docs/scheduling.md,
     * "Why is my job not scheduled?").
     */
    private Reason lacking(String subject, boolean never, boolean oneSlot, String what, Resources need) {
        Resources have = never ? (oneSlot ? cluster.largestNode() : cluster.capacity()) : cluster.free();
        String r = oneSlot && !never ? null : Amounts.binding(need, have);
        ReasonCode code = never ? ReasonCode.TOO_LARGE : ReasonCode.NO_PLACEMENT;
        if (r == null) {
            return Reason.of(code, subject, what);
        }
        long amount = Math.max(0, have.get(r));
        String than = never ? (oneSlot ? "the largest node has " : "the whole cluster has ") : "the cluster has free ";
        return new Reason(code, subject, what + ": " + than + Amounts.of(r, amount) + " of " + Amounts.word(r)
                + ", it needs " + Amounts.of(r, need.get(r)), need.get(r), amount);
    }

    /** {@code n × slot ≤ free} in every resource, without allocating or overflowing. */
    private static boolean timesFits(Resources slot, long n, Resources free) {
        if (!timesFits(slot.cpu(), n, free.cpu()) || !timesFits(slot.memMb(), n, free.memMb())) {
            return false;
        }
        for (int i = 0; i < slot.extendedCount(); i++) {
            if (!timesFits(slot.extendedValue(i), n, free.get(slot.extendedName(i)))) {
                return false;
            }
        }
        return true;
    }

    private static boolean timesFits(long amount, long n, long free) {
        return amount <= 0 || n <= 0 || (free >= 0 && amount <= free / n);
    }

    /** Tries the gang {@code u} belongs to; returns slots granted (all of the gang's, or 0). */
    public int schedule(UnitState u) {
        return schedule(gangOf(u));
    }

    private int schedule(List<UnitState> gang) {
        UnitState u = gang.get(0);
        GangPlacement placement = policies.gangPlacement();
        if (placement == null) {
            mark(gang, Reason.of(ReasonCode.NO_POLICY, "unit " + u.id(), "no gang-placement policy in effect"));
            return 0;
        }
        for (UnitState m : gang) {
            if (eligibility.admit(m, m.remaining()) < m.remaining()) {
                return 0;   // admission said why on the unit
            }
        }
        GangPlan plan = placement.plan(gang, context);
        String problem = plan == null ? "no placement fits the whole gang now" : check(gang, plan);
        if (problem != null) {
            mark(gang, Reason.of(ReasonCode.NO_PLACEMENT, "gang " + gang, problem));
            return 0;
        }
        int total = 0;
        for (UnitState m : gang) {
            for (Map.Entry<String, Integer> e : plan.slots().get(m.id()).entrySet()) {
                allocator.grant(m, cluster.node(e.getKey()), e.getValue());
                total += e.getValue();
            }
        }
        return total;
    }

    private List<UnitState> gangOf(UnitState u) {
        if (!u.job().gang()) {
            return List.of(u);
        }
        List<UnitState> gang = new ArrayList<>();
        for (UnitState m : JobState.of(u).units()) {
            if (m.live() && m.remaining() > 0) {
                gang.add(m);
            }
        }
        return gang;
    }

    /** Null if the plan gives every unit exactly its remaining desire within every limit, else what is wrong. */
    private String check(List<UnitState> gang, GangPlan plan) {
        Set<UnitId> ids = new HashSet<>();
        gang.forEach(m -> ids.add(m.id()));
        if (!plan.slots().keySet().equals(ids)) {
            return "plan covers units " + plan.slots().keySet() + ", gang is " + ids;
        }
        Map<NodeState, Resources> use = new HashMap<>();
        for (UnitState m : gang) {
            int sum = 0;
            for (Map.Entry<String, Integer> e : plan.slots().get(m.id()).entrySet()) {
                NodeState n = cluster.node(e.getKey());
                int k = e.getValue();
                if (n == null || k <= 0) {
                    return "plan names node " + e.getKey() + " with " + k + " slots";
                }
                if (k > eligibility.room(m, n)) {
                    return "unit " + m.id() + " may not have " + k + " slots on " + n.name();
                }
                use.merge(n, m.slot().times(k), Resources::plus);
                sum += k;
            }
            if (sum != m.remaining()) {
                return "plan gives unit " + m.id() + " " + sum + " slots, it wants " + m.remaining();
            }
        }
        for (Map.Entry<NodeState, Resources> e : use.entrySet()) {
            if (!e.getValue().fitsIn(e.getKey().free())) {
                return "plan puts " + e.getValue() + " on " + e.getKey().name() + " with free " + e.getKey().free();
            }
        }
        return null;
    }

    /**
     * Says why the gang of {@code u} waits, found by the quick checks of {@link #run}, which run for
     * every waiting gang on every release: so the text is built only for a member with no reason yet
     * (ledger off: the reason a real try left stays), or with no fresh one of this code (ledger on:
     * {@link WaitLedger#again} counts it without building anything).
     */
    private void markIfUnexplained(UnitState u, ReasonCode code, Function<String, Reason> why) {
        if (!ledger.on() && !u.job().gang() && u.waitReason() != null) {
            return;
        }
        Reason r = null;
        for (UnitState m : u.job().gang() ? JobState.of(u).units() : List.of(u)) {
            if (!m.live() || m.remaining() <= 0 || (ledger.on() ? ledger.again(m, code) : m.waitReason() != null)) {
                continue;
            }
            r = r != null ? r : why.apply("gang " + gangOf(u));
            ledger.record(m, r);
        }
    }

    private void mark(List<UnitState> gang, Reason r) {
        for (UnitState m : gang) {
            ledger.record(m, r);
        }
    }
}

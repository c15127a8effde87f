package granary.engine;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import granary.api.Resources;
import granary.api.UnitId;
import granary.api.spi.GangPlacement;
import granary.api.spi.GangPlan;
import granary.api.spi.PlacementContext;
import granary.api.spi.Reason;
import granary.api.spi.ReasonCode;

/**
 * All-or-nothing scheduling (spec §8): a gang — one all-or-nothing unit, or every waiting unit of a
 * gang job — gets all its remaining slots in one step or none. The gang-placement policy proposes a
 * plan; the engine checks all of it against free resources, per-node limits, filters and admission
 * before granting any of it, then grants it whole. A plan that does not hold grants nothing.
 */
final class GangScheduler {

    private final Cluster cluster;
    private final Workload workload;
    private final PolicySet policies;
    private final Eligibility eligibility;
    private final Allocator allocator;
    private final PlacementContext context;

    GangScheduler(Cluster cluster, Workload workload, PolicySet policies, Eligibility eligibility,
                  Allocator allocator, PlacementContext context) {
        this.cluster = cluster;
        this.workload = workload;
        this.policies = policies;
        this.eligibility = eligibility;
        this.allocator = allocator;
        this.context = context;
    }

    /** Tries every waiting gang, groups in group order, gangs in unit order. */
    void run() {
        List<GroupState> groups = new ArrayList<>();
        for (GroupState g : workload.groups()) {
            if (!g.gangs.isEmpty()) {
                groups.add(g);
            }
        }
        groups.sort((a, b) -> {
            int c = policies.groupOrder().compare(a, b, context);
            return c != 0 ? c : a.name().compareTo(b.name());
        });
        Set<String> triedJobs = new HashSet<>();
        for (GroupState g : groups) {
            if (!eligibility.groupAdmitted(g)) {
                continue;
            }
            List<UnitState> waiting = new ArrayList<>(g.gangs.size());
            g.gangs.forEach(waiting::add);
            for (UnitState u : waiting) {
                if (u.queuedIn != null && (!u.job().gang() || triedJobs.add(u.job().id()))) {
                    schedule(u);
                }
            }
        }
    }

    /** Tries the gang {@code u} belongs to; returns slots granted (all of the gang's, or 0). */
    int schedule(UnitState u) {
        List<UnitState> gang = gangOf(u);
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
        for (UnitState m : u.job().units()) {
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

    private static void mark(List<UnitState> gang, Reason r) {
        for (UnitState m : gang) {
            m.waitReason(r);
        }
    }
}

package granary.engine.cycle;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import granary.api.model.UnitId;
import granary.api.spi.EngineView;
import granary.api.spi.NodeFilter;
import granary.engine.policy.PolicySet;
import granary.engine.state.Allocator;
import granary.engine.state.Dims;
import granary.engine.state.GroupState;
import granary.engine.state.NodeState;
import granary.engine.state.UnitState;
import granary.engine.state.Workload;

/**
 * Passive scheduling (docs/scheduling.md, "Passive scheduling"): fills a node whose free resources
 * grew. Group queues are served in group order (built-in: hunger, lowest used share first), sorted
 * once per node and kept in order by re-positioning the one group each grant changes; in a queue the
 * first unit in unit order that fits the node and may use it is found by {@link FitQueue#first} in
 * O(log N), and gets as many slots there as limits allow — one at a time under an order that reads
 * grants (FAIR), which re-positions the unit after each. Repeats until nothing fits.
 */
public final class PassiveFiller {

    private final Workload workload;
    private final PolicySet policies;
    private final Eligibility eligibility;
    private final Allocator allocator;
    private final EngineView view;

    public PassiveFiller(Workload workload, PolicySet policies, Eligibility eligibility, Allocator allocator, EngineView view) {
        this.workload = workload;
        this.policies = policies;
        this.eligibility = eligibility;
        this.allocator = allocator;
        this.view = view;
    }

    public void fill(NodeState n) {
        long[] min = workload.minWaitingShape();
        if (min == null || !Dims.fits(min, n.freeVector())) {
            return;   // no waiting slot is small enough for what this node has free
        }
        List<GroupState> groups = null;   // ordered once per node, then kept in order grant by grant
        while (n.takesWork() && workload.waitingUnits() > 0) {
            Set<UnitId> reserved = reservedFor(n);
            UnitState u;
            if (reserved != null) {
                u = pickReserved(n, reserved);
            } else {
                if (groups == null) {
                    groups = groupsInOrder();
                }
                u = pick(n, groups);
            }
            if (u == null) {
                return;
            }
            int k = Math.min(eligibility.room(u, n), eligibility.admit(u, u.remaining()));
            if (workload.unitOrder().readsGrants()) {
                k = Math.min(k, 1);
            }
            if (k <= 0) {
                return;   // pick() vouched for one slot; a policy changed its mind: stop, retry next cycle
            }
            allocator.grant(u, n, k);
            if (groups != null) {
                reposition(groups, workload.group(u.group()));
            }
        }
    }

    /**
     * The unit of the first group, in group order, that gets the node next, or null. A unit that
     * fits but may not use the node, or that admission refuses, has the reason recorded in its
     * ledger (docs/scheduling.md, "Why is my job not scheduled?").
     */
    private UnitState pick(NodeState n, List<GroupState> groups) {
        for (GroupState g : groups) {
            long[] free = eligibility.bound(g, n.freeVector());
            UnitState u = g.queue().first(free, c -> eligibility.offered(c, n) && eligibility.admit(c, 1) > 0);
            if (u != null) {
                return u;
            }
        }
        return null;
    }

    /**
     * After a grant only the granted group's usage changed: take it out and put it back where the
     * group order now puts it (O(log G) comparisons), or leave it out when it has nothing left to
     * serve or admission now holds it back.
     */
    private void reposition(List<GroupState> groups, GroupState g) {
        groups.remove(g);
        if (g.queue().isEmpty() || !eligibility.groupAdmitted(g)) {
            return;
        }
        int lo = 0;
        int hi = groups.size();
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (compare(groups.get(mid), g) <= 0) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        groups.add(lo, g);
    }

    private int compare(GroupState a, GroupState b) {
        int c = policies.groupOrder().compare(a, b, view);
        return c != 0 ? c : a.name().compareTo(b.name());
    }

    /** Groups with units in their slot queue that admission lets through, in group order. */
    private List<GroupState> groupsInOrder() {
        List<GroupState> gs = new ArrayList<>();
        for (GroupState g : workload.groups()) {
            if (!g.queue().isEmpty() && eligibility.groupAdmitted(g)) {
                gs.add(g);
            }
        }
        if (gs.size() > 1) {
            gs.sort(this::compare);
        }
        return gs;
    }

    /** The units every restricting filter leaves for this node, or null if none restricts it. */
    private Set<UnitId> reservedFor(NodeState n) {
        Set<UnitId> result = null;
        for (NodeFilter f : policies.nodeFilters()) {
            Set<UnitId> only = f.reservedFor(n);
            if (only != null) {
                if (result == null) {
                    result = new HashSet<>(only);
                } else {
                    result.retainAll(only);
                }
            }
        }
        return result;
    }

    private UnitState pickReserved(NodeState n, Set<UnitId> reserved) {
        List<UnitState> candidates = new ArrayList<>();
        for (UnitId id : reserved) {
            UnitState u = workload.unit(id);
            if (u != null && u.queued() && !u.allOrNothing() && eligibility.room(u, n) > 0
                    && eligibility.admit(u, 1) > 0) {
                candidates.add(u);
            }
        }
        Comparator<UnitState> order = workload.order();
        return candidates.stream().min(order).orElse(null);
    }
}

package granary.engine;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import granary.api.UnitId;
import granary.api.spi.EngineView;
import granary.api.spi.GroupOrder;
import granary.api.spi.NodeFilter;

/**
 * Passive scheduling (spec §4, "OnResourceFree"): fills a node whose free resources grew. Group
 * queues are served in group order (built-in: hunger, lowest used share first); in a queue the
 * first unit in unit order that fits the node and may use it is found by {@link FitQueue#first} in
 * O(log N), and gets as many slots there as limits allow — one at a time under an order that reads
 * grants (FAIR), which re-positions the unit after each. Repeats until nothing fits.
 */
final class PassiveFiller {

    private final Workload workload;
    private final PolicySet policies;
    private final Eligibility eligibility;
    private final Allocator allocator;
    private final EngineView view;

    PassiveFiller(Workload workload, PolicySet policies, Eligibility eligibility, Allocator allocator, EngineView view) {
        this.workload = workload;
        this.policies = policies;
        this.eligibility = eligibility;
        this.allocator = allocator;
        this.view = view;
    }

    void fill(NodeState n) {
        long[] min = workload.minWaitingShape();
        if (min == null || !Dims.fits(min, n.freeVector())) {
            return;   // no waiting slot is small enough for what this node has free
        }
        while (n.takesWork() && workload.waitingUnits() > 0) {
            UnitState u = pick(n);
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
        }
    }

    /** The unit that gets the node next, or null. */
    private UnitState pick(NodeState n) {
        Set<UnitId> reserved = reservedFor(n);
        if (reserved != null) {
            return pickReserved(n, reserved);
        }
        for (GroupState g : groupsInOrder()) {
            UnitState u = g.queue.first(n.freeVector(), c -> eligibility.mayUse(c, n) && eligibility.admit(c, 1) > 0);
            if (u != null) {
                return u;
            }
        }
        return null;
    }

    /** Groups with units in their slot queue that admission lets through, in group order. */
    private List<GroupState> groupsInOrder() {
        List<GroupState> gs = new ArrayList<>();
        for (GroupState g : workload.groups()) {
            if (!g.queue.isEmpty() && eligibility.groupAdmitted(g)) {
                gs.add(g);
            }
        }
        if (gs.size() > 1) {
            GroupOrder order = policies.groupOrder();
            gs.sort((a, b) -> {
                int c = order.compare(a, b, view);
                return c != 0 ? c : a.name().compareTo(b.name());
            });
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
            if (u != null && u.queuedIn != null && !u.allOrNothing() && eligibility.room(u, n) > 0
                    && eligibility.admit(u, 1) > 0) {
                candidates.add(u);
            }
        }
        Comparator<UnitState> order = workload.order();
        return candidates.stream().min(order).orElse(null);
    }
}

package granary.policy.reservation;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import granary.api.model.Resources;
import granary.api.model.UnitId;
import granary.api.spi.CycleContext;
import granary.api.spi.JobView;
import granary.api.spi.NodeView;
import granary.api.spi.UnitView;

/**
 * The node group of a reservation (docs/policies.md, "reservation"): the nodes locked so far, then the other nodes in
 * {@link Mode} order — by capacity (spec first) or by free amount (idle first) of the target's main
 * resource, largest first, then by name — each taken while the target's waiting slots are not all
 * covered. A node covers the slots of the target that fit in its capacity (not its free space: the
 * lock is non-preemptive, running work drains and the whole node becomes the target's), less what
 * the target already holds there, within the per-node maximum and only for units that may use the
 * node at all. Sorting by the main resource, largest first, makes the group the fewest nodes that
 * cover the target in that order.
 *
 * <p>Cost: O(N log N) for N nodes, computed only while the locks do not yet cover the target, one
 * node locked per cycle.
 */
final class NodeGroup {

    /**
     * @param nodes   the group in locking order: the locked nodes that help, then the ones to lock
     * @param covered true if the group holds every waiting slot of the target
     * @param lockedCover true if the locked nodes alone hold them
     */
    record Plan(List<NodeView> nodes, boolean covered, boolean lockedCover) {
    }

    private NodeGroup() {
    }

    static Plan plan(JobView target, Collection<String> locked, Mode mode, CycleContext ctx) {
        List<UnitView> units = Jobs.waitingUnits(target);
        Resources capacity = ctx.cluster().capacity();
        units.sort(Comparator.comparingDouble((UnitView u) -> -u.slot().dominantShare(capacity)));
        Cover c = new Cover(units);

        List<NodeView> group = new ArrayList<>();
        for (String name : locked) {
            NodeView n = ctx.cluster().node(name);
            if (n != null && c.add(n, ctx)) {
                group.add(n);
            }
        }
        boolean lockedCover = c.leftTotal == 0;
        if (!lockedCover) {
            for (NodeView n : ordered(ctx.cluster().nodes(), mode, Jobs.mainResource(Jobs.need(target), capacity))) {
                if (c.leftTotal == 0) {
                    break;
                }
                if (!locked.contains(n.name()) && c.add(n, ctx)) {
                    group.add(n);
                }
            }
        }
        return new Plan(group, c.leftTotal == 0, lockedCover);
    }

    private static List<NodeView> ordered(Collection<? extends NodeView> nodes, Mode mode, String main) {
        List<NodeView> out = new ArrayList<>(nodes);
        Comparator<NodeView> byAmount = mode == Mode.SPEC_FIRST
                ? Comparator.comparingLong((NodeView n) -> n.capacity().get(main))
                : Comparator.comparingLong((NodeView n) -> n.free().get(main));
        out.sort(byAmount.reversed().thenComparing(NodeView::name));
        return out;
    }

    /** The target's waiting slots not yet covered by the nodes added so far. */
    private static final class Cover {
        private final List<UnitView> units;
        private final Map<UnitId, Integer> left = new HashMap<>();
        private final Map<UnitId, Map<String, Integer>> held = new HashMap<>();
        int leftTotal;

        Cover(List<UnitView> units) {
            this.units = units;
            for (UnitView u : units) {
                left.put(u.id(), u.remaining());
                held.put(u.id(), u.allocations());
                leftTotal += u.remaining();
            }
        }

        /** Counts the target's slots the node holds against what is left; true if it holds any. */
        boolean add(NodeView n, CycleContext ctx) {
            Resources room = n.capacity();
            for (UnitView u : units) {
                int h = held(u, n);
                if (h > 0) {
                    room = room.minus(u.slot().times(h));
                }
            }
            boolean any = false;
            for (UnitView u : units) {
                int want = left.get(u.id());
                if (want == 0 || !ctx.mayUse(u, n)) {
                    continue;
                }
                int k = Math.min(want, u.slot().copiesIn(room));
                int max = u.spec().maxPerNode();
                if (max > 0) {
                    k = Math.min(k, max - held(u, n));
                }
                if (k > 0) {
                    room = room.minus(u.slot().times(k));
                    left.put(u.id(), want - k);
                    leftTotal -= k;
                    any = true;
                }
            }
            return any;
        }

        private int held(UnitView u, NodeView n) {
            return held.get(u.id()).getOrDefault(n.name(), 0);
        }
    }
}

package granary.policy.gang;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import granary.api.model.Locality;
import granary.api.model.Resources;
import granary.api.model.UnitId;
import granary.api.spi.GangPlan;
import granary.api.spi.NodeView;
import granary.api.spi.PlacementContext;
import granary.api.spi.UnitView;

/**
 * Plans one gang whole, or answers null. One instance per call.
 *
 * <p><b>How it decides.</b>
 * <ol>
 *   <li>If the gang's total (slot × remaining, summed over its units) exceeds what the whole cluster
 *       has free in any resource, no plan exists: null at once, O(units).</li>
 *   <li>Units are planned one after another, the largest slot first (by its share of the cluster's
 *       capacity in its main resource): big pieces first, small ones fill the gaps. Every unit sees
 *       the resources the units before it were planned to take.</li>
 *   <li>A unit's slots are placed in locality steps: its MACHINE preferences (each up to its count,
 *       on the named node), then ROOM (up to the count, on the room's nodes), then CLUSTER (up to
 *       the count, anywhere), then whatever is still missing on any node the unit may use. The
 *       engine's {@code candidates()} and {@code room()} already apply every limit (blacklists,
 *       labels, per-node maximum, node filters such as reservation locks).</li>
 *   <li>Inside a step the nodes are taken in {@link Packing} order, each filled with as many slots
 *       as it takes. {@link Packing#BEST_FIT}: ascending by the number of the unit's slots the node
 *       can still take; ties by the free amount of the slot's main resource, ascending; then by
 *       node name. So slots go where they fill the free space most tightly, a node is filled before
 *       the next is touched, and the nodes with the most free space — whole free nodes — are used
 *       last: of the placements this greedy walk can make, it leaves the largest free blocks.</li>
 *   <li>If a unit cannot get all its remaining slots, the gang has no plan: null. The engine then
 *       grants nothing (no partial holds).</li>
 * </ol>
 * Cost: one {@code candidates()} call per unit (the engine finds them through its node index), a
 * sort of those candidates for best fit, and O(1) per node visited.
 */
final class GangPlanner {

    private final Packing packing;
    private final PlacementContext ctx;
    /** Resources the plan so far puts on each node, over all units of the gang. */
    private final Map<String, Resources> planned = new HashMap<>();

    GangPlanner(Packing packing, PlacementContext ctx) {
        this.packing = packing;
        this.ctx = ctx;
    }

    GangPlan plan(List<? extends UnitView> gang) {
        Resources total = Resources.ZERO;
        for (UnitView u : gang) {
            total = total.plus(u.slot().times(u.remaining()));
        }
        if (!total.fitsIn(ctx.cluster().free())) {
            return null;
        }
        Resources capacity = ctx.cluster().capacity();
        List<UnitView> units = new ArrayList<>(gang);
        units.sort(Comparator.comparingDouble((UnitView u) -> -u.slot().dominantShare(capacity)));
        Map<UnitId, Map<String, Integer>> slots = new HashMap<>();
        for (UnitView u : units) {
            Map<String, Integer> p = place(u);
            if (p == null) {
                return null;
            }
            slots.put(u.id(), p);
        }
        return new GangPlan(slots);
    }

    /** All remaining slots of {@code u}, node → slots, or null if they do not all fit. */
    private Map<String, Integer> place(UnitView u) {
        Collection<? extends NodeView> candidates = ctx.candidates(u);
        Map<String, Integer> mine = new LinkedHashMap<>();
        int left = u.remaining();
        for (Locality step : steps(u)) {
            if (left == 0) {
                break;
            }
            left -= fill(u, nodes(step, candidates), Math.min(left, step.count()), mine);
        }
        return left == 0 ? mine : null;
    }

    /** The unit's preferences in level order (listed order within a level), then "anywhere it may go". */
    private static List<Locality> steps(UnitView u) {
        List<Locality> steps = new ArrayList<>(u.spec().locality());
        steps.sort(Comparator.comparing(Locality::level));
        steps.add(Locality.cluster(Integer.MAX_VALUE));
        return steps;
    }

    /** The candidates a step may use: the named machine, the room's nodes, or all of them. */
    private static List<NodeView> nodes(Locality step, Collection<? extends NodeView> candidates) {
        List<NodeView> out = new ArrayList<>();
        for (NodeView n : candidates) {
            boolean in = switch (step.level()) {
                case MACHINE -> n.name().equals(step.target());
                case ROOM -> n.room().equals(step.target());
                case CLUSTER -> true;
            };
            if (in) {
                out.add(n);
            }
        }
        return out;
    }

    /** Places up to {@code want} slots on {@code nodes} in packing order; returns how many. */
    private int fill(UnitView u, List<NodeView> nodes, int want, Map<String, Integer> mine) {
        int placed = 0;
        for (NodeView n : ordered(u, nodes, mine)) {
            if (placed == want) {
                break;
            }
            int k = Math.min(want - placed, room(u, n, mine));
            if (k > 0) {
                mine.merge(n.name(), k, Integer::sum);
                planned.merge(n.name(), u.slot().times(k), Resources::plus);
                placed += k;
            }
        }
        return placed;
    }

    /**
     * How many more slots of {@code u} the node takes, given the plan so far: the engine's room
     * (free resources and per-node maximum) less the unit's slots planned there, and no more than
     * fit in what the plan leaves free.
     */
    private int room(UnitView u, NodeView n, Map<String, Integer> mine) {
        int byLimits = ctx.room(u, n) - mine.getOrDefault(n.name(), 0);
        Resources used = planned.get(n.name());
        int byFree = used == null ? byLimits : u.slot().copiesIn(n.free().minus(used));
        return Math.min(byLimits, byFree);
    }

    private List<NodeView> ordered(UnitView u, List<NodeView> nodes, Map<String, Integer> mine) {
        if (packing == Packing.FIRST_FIT || nodes.size() < 2) {
            return nodes;
        }
        String main = mainResource(u.slot(), ctx.cluster().capacity());
        List<Fit> fits = new ArrayList<>(nodes.size());
        for (NodeView n : nodes) {
            int room = room(u, n, mine);
            if (room > 0) {
                Resources used = planned.getOrDefault(n.name(), Resources.ZERO);
                fits.add(new Fit(n, room, n.free().get(main) - used.get(main)));
            }
        }
        fits.sort(Fit.TIGHTEST_FIRST);
        List<NodeView> out = new ArrayList<>(fits.size());
        fits.forEach(f -> out.add(f.node()));
        return out;
    }

    /** A node as best fit sees it: how many slots it takes, and its free main resource. */
    private record Fit(NodeView node, int room, long free) {
        static final Comparator<Fit> TIGHTEST_FIRST = Comparator.comparingInt(Fit::room)
                .thenComparingLong(Fit::free).thenComparing(f -> f.node().name());
    }

    /** The resource in which {@code slot} takes the largest share of {@code total} (cpu on a tie). */
    static String mainResource(Resources slot, Resources total) {
        return slot.dominantResource(total);
    }
}

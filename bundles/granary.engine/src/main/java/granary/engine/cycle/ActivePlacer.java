package granary.engine.cycle;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

import granary.api.model.Locality;
import granary.engine.state.Allocator;
import granary.engine.state.Cluster;
import granary.engine.state.Dims;
import granary.engine.state.NodeIndex;
import granary.engine.state.NodeState;
import granary.engine.state.UnitState;

/**
 * Active scheduling (docs/scheduling.md, "Active scheduling"): when a unit is requested or wants more,
 * place it greedily at once. Its locality preferences are walked MACHINE, then ROOM, then CLUSTER; a
 * MACHINE preference tries its node directly, ROOM and CLUSTER go round-robin over the fitting nodes
 * of the room or cluster, one slot per node per lap, starting where the last placement there stopped.
 * Whatever cannot be placed stays waiting in the group queue, and {@link ShortfallReasons} records why.
 */
public final class ActivePlacer {

    private static final Comparator<Locality> LEVEL_ORDER = Comparator.comparing(Locality::level);

    private final Cluster cluster;
    private final Eligibility eligibility;
    private final Allocator allocator;
    private final ShortfallReasons shortfall;

    public ActivePlacer(Cluster cluster, Eligibility eligibility, Allocator allocator, WaitLedger ledger, Dims dims) {
        this.cluster = cluster;
        this.eligibility = eligibility;
        this.allocator = allocator;
        this.shortfall = new ShortfallReasons(cluster, eligibility, ledger, dims);
    }

    /** Places as much of {@code u}'s remaining desire as limits allow; returns slots granted. */
    public int place(UnitState u) {
        int budget = eligibility.admit(u, u.remaining());
        int placed = 0;
        for (Locality pref : preferences(u)) {
            if (placed >= budget) {
                break;
            }
            int want = Math.min(pref.count(), budget - placed);
            placed += switch (pref.level()) {
                case MACHINE -> onMachine(u, pref.target(), want);
                case ROOM -> roundRobin(cluster.room(pref.target()), u, want);
                case CLUSTER -> roundRobin(cluster.index(), u, want);
            };
        }
        if (u.remaining() > 0 && placed < budget) {
            shortfall.explain(u);   // admission said already why it allows no more than the budget
        }
        return placed;
    }

    private static List<Locality> preferences(UnitState u) {
        List<Locality> prefs = u.request().locality();
        if (prefs.isEmpty()) {
            return List.of(Locality.cluster(Integer.MAX_VALUE));
        }
        List<Locality> sorted = new ArrayList<>(prefs);
        sorted.sort(LEVEL_ORDER);   // stable: listed order within a level
        return sorted;
    }

    private int onMachine(UnitState u, String node, int want) {
        NodeState n = cluster.node(node);
        if (n == null) {
            return 0;   // the node left after the unit was requested
        }
        int k = Math.min(want, eligibility.room(u, n));
        allocator.grant(u, n, k);
        return k;
    }

    /**
     * Round-robin over an index: laps over the fitting, eligible nodes, each node getting an equal
     * share of what is left per lap (at least one slot), until {@code want} or a lap places nothing.
     * A unit of many slots is spread evenly in a few decisions instead of one per slot.
     */
    private int roundRobin(NodeIndex index, UnitState u, int want) {
        if (index == null) {
            return 0;
        }
        int placed = 0;
        while (placed < want) {
            int start = index.cursor();
            int share = Math.max(1, (want - placed) / Math.max(1, index.count()));
            int lap = lap(index, u, start, index.limit(), want - placed, share);
            lap += lap(index, u, 0, start, want - placed - lap, share);
            placed += lap;
            if (lap == 0) {
                break;
            }
        }
        return placed;
    }

    private int lap(NodeIndex index, UnitState u, int from, int to, int want, int share) {
        int placed = 0;
        int pos = from;
        while (placed < want && pos < to) {
            int i = index.find(pos, u.slotVector());
            if (i < 0 || i >= to) {
                break;
            }
            NodeState n = index.at(i);
            int k = share == 1 ? (eligibility.mayUse(u, n) ? 1 : 0) : Math.min(Math.min(share, want - placed),
                    eligibility.room(u, n));
            if (k > 0) {
                allocator.grant(u, n, k);
                placed += k;
                index.cursor(i + 1);
            }
            pos = i + 1;
        }
        return placed;
    }
}

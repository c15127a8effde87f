package granary.engine.state;

import static org.junit.jupiter.api.Assertions.assertEquals;

import granary.api.model.JobSpec;
import granary.api.model.NodeSpec;
import granary.api.model.Resources;
import granary.api.model.UnitId;
import granary.api.model.UnitSpec;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * What a node holds, kept as links through the units' own entries (no map per node): over random
 * grants and returns of several units on several nodes, each node lists exactly the units with slots
 * there, with their slots, in the order they were first granted there (a unit that returned all its
 * slots and is granted again goes to the end), and its granted and free resources add up — as the
 * map of units to slots it replaced kept them.
 */
class NodeHoldersTest {

    private final Dims dims = new Dims();

    @Test
    void aNodeListsItsHoldersInFirstGrantOrderOverRandomGrantsAndReturns() {
        for (long seed = 1; seed <= 40; seed++) {
            Random rnd = new Random(seed);
            List<UnitState> units = new ArrayList<>();
            for (int i = 0; i < 6; i++) {
                UnitSpec spec = UnitSpec.builder("u" + i).slot(1 + i, 2).desired(10_000).build();
                units.add(new UnitState(new JobState(JobSpec.of("j" + i, null, spec), 0), spec, i, 0, dims));
            }
            List<NodeState> nodes = new ArrayList<>();
            List<Map<UnitState, Integer>> model = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                nodes.add(new NodeState(new NodeSpec("n" + i, "r", Resources.of(1_000_000, 1_000_000)), dims));
                model.add(new LinkedHashMap<>());
            }
            long seq = 0;
            for (int step = 0; step < 400; step++) {
                int ni = rnd.nextInt(nodes.size());
                NodeState n = nodes.get(ni);
                UnitState u = units.get(rnd.nextInt(units.size()));
                Map<UnitState, Integer> m = model.get(ni);
                int held = m.getOrDefault(u, 0);
                if (held > 0 && rnd.nextInt(2) == 0) {
                    int k = rnd.nextBoolean() ? held : 1 + rnd.nextInt(held);
                    n.take(u.take(n, k), k);   // as Allocator moves slots back
                    if (k == held) {
                        m.remove(u);
                    } else {
                        m.put(u, held - k);
                    }
                } else {
                    int k = 1 + rnd.nextInt(3);
                    n.add(u.add(n, k, step, ++seq), k);
                    m.merge(u, k, Integer::sum);
                }
                for (int i = 0; i < nodes.size(); i++) {
                    check("seed " + seed + " step " + step, nodes.get(i), model.get(i), units);
                }
            }
        }
    }

    private static void check(String where, NodeState n, Map<UnitState, Integer> expected, List<UnitState> units) {
        assertEquals(new ArrayList<>(expected.entrySet()), new ArrayList<>(n.units().entrySet()), where + ": the holders of " + n);
        assertEquals(new ArrayList<>(expected.keySet()), n.holders(null), where + ": holders() of " + n);
        Map<UnitId, Integer> ids = new LinkedHashMap<>();
        expected.forEach((u, k) -> ids.put(u.id(), k));
        assertEquals(ids, n.allocations(), where + ": allocations of " + n);
        Resources granted = Resources.ZERO;
        for (UnitState u : units) {
            int k = expected.getOrDefault(u, 0);
            assertEquals(k, n.slotsOf(u), where + ": slots of " + u + " on " + n);
            assertEquals(k, n.slotsOf(u.id()), where + ": slots of " + u.id() + " on " + n);
            assertEquals(k, u.slotsOn(n), where + ": the unit's own count on " + n);
            granted = granted.plus(u.slot().times(k));
        }
        assertEquals(granted, n.granted(), where + ": granted on " + n);
        assertEquals(n.capacity().minus(granted), n.free(), where + ": free on " + n);
    }
}

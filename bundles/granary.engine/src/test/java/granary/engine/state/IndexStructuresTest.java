package granary.engine.state;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;

import granary.api.model.JobSpec;
import granary.api.model.NodeSpec;
import granary.api.model.Resources;
import granary.api.model.UnitSpec;

import org.junit.jupiter.api.Test;

/** FitQueue and NodeIndex agree with brute force on random data. */
class IndexStructuresTest {

    private final Dims dims = new Dims();

    private UnitState unit(int i, long cpu, long mem, int prio) {
        JobState job = new JobState(JobSpec.of("j" + i, null, UnitSpec.builder("u").slot(cpu, mem).desired(1).build()), 0);
        return new UnitState(job, UnitSpec.builder("u").slot(cpu, mem).desired(1).priority(prio).build(), i, 0, dims);
    }

    @Test
    void fitQueueFindsTheFirstFittingUnitInOrder() {
        checkFitQueue(new Random(7), rnd -> new long[] {1 + rnd.nextInt(1000), 1 + rnd.nextInt(1000)});
    }

    /** Few shapes, many units each (the usual queue): buckets, the scan inside one, the early stop. */
    @Test
    void fitQueueWithFewShapes() {
        long[][] palette = {{800, 100}, {50, 3200}, {100, 400}, {100, 100}, {400, 400}};
        checkFitQueue(new Random(13), rnd -> palette[rnd.nextInt(palette.length)].clone());
    }

    private void checkFitQueue(Random rnd, java.util.function.Function<Random, long[]> shapes) {
        Comparator<UnitState> order = Comparator.comparingInt(UnitState::priority).reversed()
                .thenComparingLong(UnitState::sequence);
        FitQueue q = new FitQueue(order);
        List<UnitState> all = new ArrayList<>();
        for (int round = 0; round < 3000; round++) {
            if (all.isEmpty() || rnd.nextInt(3) > 0) {
                long[] shape = shapes.apply(rnd);
                UnitState u = unit(round, shape[0], shape[1], rnd.nextInt(5));
                all.add(u);
                q.add(u);
            } else {
                UnitState u = all.remove(rnd.nextInt(all.size()));
                q.remove(u);
            }
            long[] free = {rnd.nextInt(1000), rnd.nextInt(4000)};
            boolean skipOdd = rnd.nextBoolean();
            UnitState expected = all.stream().sorted(order)
                    .filter(u -> Dims.fits(u.slotVector(), free) && (!skipOdd || u.sequence() % 2 == 0))
                    .findFirst().orElse(null);
            assertSame(expected, q.first(free, u -> !skipOdd || u.sequence() % 2 == 0), "round " + round);
            assertEquals(all.size(), q.size());
        }
        List<UnitState> inOrder = new ArrayList<>();
        q.forEach(inOrder::add);
        all.sort(order);
        assertEquals(all, inOrder);
        Comparator<UnitState> reversed = order.reversed();
        q.reorder(reversed);
        inOrder.clear();
        q.forEach(inOrder::add);
        all.sort(reversed);
        assertEquals(all, inOrder);
    }

    @Test
    void nodeIndexFindsTheNextFittingNode() {
        Random rnd = new Random(11);
        NodeIndex index = new NodeIndex(2);
        List<NodeState> nodes = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            NodeState n = new NodeState(new NodeSpec("n" + i, "r", Resources.of(rnd.nextInt(100), rnd.nextInt(100))), dims);
            nodes.add(n);
            n.clusterPos = index.add(n);
        }
        for (int round = 0; round < 2000; round++) {
            if (rnd.nextInt(10) == 0) {
                NodeState n = nodes.remove(rnd.nextInt(nodes.size()));
                index.remove(n.clusterPos);
                NodeState m = new NodeState(new NodeSpec("m" + round, "r", Resources.of(rnd.nextInt(100), rnd.nextInt(100))), dims);
                m.clusterPos = index.add(m);
                nodes.add(m);
            }
            long[] need = {rnd.nextInt(100), rnd.nextInt(100)};
            int from = rnd.nextInt(index.limit());
            int expected = -1;
            for (int p = from; p < index.limit() && expected < 0; p++) {
                NodeState n = index.at(p);
                if (n != null && Dims.fits(need, n.freeVector())) {
                    expected = p;
                }
            }
            assertEquals(expected, index.find(from, need), "round " + round);
        }
    }
}

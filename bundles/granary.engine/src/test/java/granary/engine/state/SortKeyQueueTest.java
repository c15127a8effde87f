package granary.engine.state;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;

import granary.api.model.JobSpec;
import granary.api.model.UnitSpec;
import granary.api.spi.UnitOrder;
import granary.api.spi.UnitView;

import org.junit.jupiter.api.Test;

/**
 * Sort keys (docs/scheduling.md, "Sort keys"): a queue that compares the records of a
 * {@link KeyedOrder} decides exactly as one that calls the same order as a comparator — same first
 * fitting unit after every change, same heap layout, same order after swaps between keyed and
 * comparator-only orders. Randomized with fixed seeds.
 */
class SortKeyQueueTest {

    private final Dims dims = new Dims();

    /** Priority first (higher first), then submit time, then sequence: as FIFO orders. */
    private static final Comparator<UnitState> FIFO_LIKE = Comparator.<UnitState>comparingInt(UnitState::priority).reversed()
            .thenComparingLong(UnitState::submitTime).thenComparingLong(UnitState::sequence);

    /** The same order as records: {-priority, submitTime, sequence}. */
    private static final KeyedOrder FIFO_KEYED = new KeyedOrder() {
        @Override
        public int compare(UnitState a, UnitState b) {
            return FIFO_LIKE.compare(a, b);
        }

        @Override
        public int keyLongs() {
            return 3;
        }

        @Override
        public void key(UnitState u, long[] into, int at) {
            into[at] = -(long) u.priority();
            into[at + 1] = u.submitTime();
            into[at + 2] = u.sequence();
        }
    };

    /** Desired slots first, then sequence: a comparator-only order to swap to and from. */
    private static final Comparator<UnitState> BY_DESIRED = Comparator.<UnitState>comparingInt(UnitState::desired)
            .thenComparingLong(UnitState::sequence);

    private UnitState unit(Random rnd, int i) {
        long[][] palette = {{800, 100}, {50, 3200}, {100, 400}, {100, 100}};
        long[] shape = palette[rnd.nextInt(palette.length)];
        UnitSpec spec = UnitSpec.builder("u").slot(shape[0], shape[1]).desired(1 + rnd.nextInt(5))
                .priority(rnd.nextInt(4)).build();
        JobState job = new JobState(JobSpec.of("j" + i, null, spec), 0);
        return new UnitState(job, spec, i, rnd.nextInt(50), dims);   // many equal submit times: the sequence decides
    }

    @Test
    void keyedQueueDecidesExactlyAsTheComparatorQueue() {
        Random rnd = new Random(42);
        FitQueue keyed = new FitQueue(FIFO_KEYED);
        FitQueue plain = new FitQueue(FIFO_LIKE);
        List<UnitState> shadowKeyed = new ArrayList<>();
        List<UnitState> shadowPlain = new ArrayList<>();
        for (int round = 0; round < 4000; round++) {
            int op = rnd.nextInt(10);
            if (shadowKeyed.isEmpty() || op < 6) {
                long seed = rnd.nextLong();   // the same unit for both queues
                UnitState a = unit(new Random(seed), round);
                UnitState b = unit(new Random(seed), round);
                shadowKeyed.add(a);
                shadowPlain.add(b);
                keyed.add(a);
                plain.add(b);
            } else if (op < 9) {
                int i = rnd.nextInt(shadowKeyed.size());
                keyed.remove(shadowKeyed.remove(i));
                plain.remove(shadowPlain.remove(i));
            } else {
                boolean toKeys = rnd.nextBoolean();   // swap both to the same order: keyed, or comparator only
                keyed.reorder(toKeys ? FIFO_KEYED : BY_DESIRED);
                plain.reorder(toKeys ? FIFO_LIKE : BY_DESIRED);
            }
            long[] free = {rnd.nextInt(1000), rnd.nextInt(4000)};
            boolean odd = rnd.nextBoolean();
            UnitState k = keyed.first(free, u -> odd || u.sequence() % 2 == 0);
            UnitState p = plain.first(free, u -> odd || u.sequence() % 2 == 0);
            assertEquals(p == null ? null : p.sequence(), k == null ? null : k.sequence(), "round " + round);
            for (int i = 0; i < shadowKeyed.size(); i++) {
                assertEquals(plain.positionOf(shadowPlain.get(i)), keyed.positionOf(shadowKeyed.get(i)),
                        "same heap layout, round " + round);
            }
        }
        assertEquals(sequences(plain), sequences(keyed));
        keyed.reorder(FIFO_KEYED);
        List<UnitState> sorted = new ArrayList<>(shadowKeyed);
        sorted.sort(FIFO_LIKE);
        assertEquals(sorted.stream().map(UnitState::sequence).toList(), sequences(keyed));
    }

    private static List<Long> sequences(FitQueue q) {
        List<Long> out = new ArrayList<>();
        q.forEach(u -> out.add(u.sequence()));
        return out;
    }

    /** A policy with a sort key: the workload's queues hold its order with the sequence as last tie-break. */
    @Test
    void workloadQueuesFollowAPolicysSortKey() {
        Workload w = new Workload(dims);
        w.unitOrder(new KeyedPolicy(false));
        Random rnd = new Random(5);
        for (int i = 0; i < 300; i++) {
            UnitSpec spec = UnitSpec.builder("u").slot(100, 100).desired(1).priority(rnd.nextInt(3)).build();
            w.addUnit(w.addJob(JobSpec.of("j" + i, "g", spec), i / 7), spec, i / 7);
        }
        assertNull(w.takeFault());
        List<UnitState> expected = new ArrayList<>(w.units());
        expected.sort(FIFO_LIKE);
        List<UnitState> actual = new ArrayList<>();
        w.group("g").queue().forEach(actual::add);
        assertEquals(expected, actual);
        assertSame(expected.get(0), w.group("g").queue().first(new long[] {100, 100}, u -> true));
    }

    /** A sort key that throws is a policy fault like a throwing compare: kept for the engine, no unit lost. */
    @Test
    void aThrowingSortKeyIsAFaultAndLosesNoUnit() {
        Workload w = new Workload(dims);
        w.unitOrder(new KeyedPolicy(true));
        for (int i = 0; i < 20; i++) {
            UnitSpec spec = UnitSpec.builder("u").slot(100, 100).desired(1).build();
            w.addUnit(w.addJob(JobSpec.of("j" + i, "g", spec), i), spec, i);
        }
        assertNotNull(w.takeFault());
        assertEquals(20, w.group("g").queue().size());
        w.unitOrder(null);   // what the engine does after setting the policy aside: arrival order
        List<Long> seq = sequences(w.group("g").queue());
        assertEquals(seq.stream().sorted().toList(), seq);
    }

    private record KeyedPolicy(boolean failing) implements UnitOrder {
        @Override
        public String name() {
            return "keyed";
        }

        @Override
        public int compare(UnitView a, UnitView b) {
            return a.priority() != b.priority() ? Integer.compare(b.priority(), a.priority())
                    : Long.compare(a.submitTime(), b.submitTime());
        }

        @Override
        public int sortKeyWidth() {
            return 2;
        }

        @Override
        public void sortKey(UnitView u, long[] key, int at) {
            if (failing && u.sequence() == 3) {
                throw new IllegalStateException("no key for unit 3");
            }
            key[at] = -(long) u.priority();
            key[at + 1] = u.submitTime();
        }
    }
}

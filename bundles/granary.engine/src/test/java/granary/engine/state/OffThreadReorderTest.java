package granary.engine.state;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.Random;
import java.util.concurrent.Executor;

import granary.api.model.JobSpec;
import granary.api.model.UnitSpec;
import granary.api.spi.UnitOrder;
import granary.api.spi.UnitView;

import org.junit.jupiter.api.Test;

/**
 * A unit order built off the engine thread (docs/scheduling.md, "Swapping the order off the engine
 * thread"): with a direct executor the heaps are exactly those of the in-place re-order; with a held
 * executor, whatever the workload does between the snapshot, the build and the swap-in, every queue
 * ends up holding exactly the units that wait, in the new order, as a fresh re-order would. Randomized
 * with fixed seeds; the executor is run by the test, so nothing depends on timing.
 */
class OffThreadReorderTest {

    private final Dims dims = new Dims();

    /** Runs nothing until told: the build happens when the test says. */
    private static final class HeldExecutor implements Executor {
        final Queue<Runnable> held = new ArrayDeque<>();

        @Override
        public void execute(Runnable r) {
            held.add(r);
        }

        void runAll() {
            while (!held.isEmpty()) {
                held.poll().run();
            }
        }
    }

    /** Priority first, then submit time; keyed (like FIFO) or not. */
    private record Fifo(String name, boolean keyed) implements UnitOrder {
        @Override
        public int compare(UnitView a, UnitView b) {
            return a.priority() != b.priority() ? Integer.compare(b.priority(), a.priority())
                    : Long.compare(a.submitTime(), b.submitTime());
        }

        @Override
        public int sortKeyWidth() {
            return keyed ? 2 : 0;
        }

        @Override
        public void sortKey(UnitView u, long[] key, int at) {
            key[at] = -(long) u.priority();
            key[at + 1] = u.submitTime();
        }
    }

    /** Fewest slots held relative to desire first (like FAIR), then submit time; no key. */
    private record Fair(String name) implements UnitOrder {
        @Override
        public int compare(UnitView a, UnitView b) {
            int c = Long.compare((long) a.granted() * b.desired(), (long) b.granted() * a.desired());
            return c != 0 ? c : Long.compare(b.desired(), a.desired());
        }

        @Override
        public boolean readsGrants() {
            return true;
        }
    }

    /** Submit time in windows of 10, then most desired first: a second keyed order. */
    private record Window(String name) implements UnitOrder {
        @Override
        public int compare(UnitView a, UnitView b) {
            int c = Long.compare(a.submitTime() / 10, b.submitTime() / 10);
            return c != 0 ? c : Integer.compare(b.desired(), a.desired());
        }

        @Override
        public int sortKeyWidth() {
            return 2;
        }

        @Override
        public void sortKey(UnitView u, long[] key, int at) {
            key[at] = u.submitTime() / 10;
            key[at + 1] = -(long) u.desired();
        }
    }

    private static final List<UnitOrder> ORDERS = List.of(new Fifo("fifo", true), new Fair("fair"),
            new Window("window"), new Fifo("plain", false));

    /** A workload and the units it has seen, driven by one random generator. */
    private final class Driver {
        final Workload w;
        final Random rnd;
        final List<UnitState> all = new ArrayList<>();
        int jobs;
        long now;

        Driver(Executor reorders, long seed) {
            w = new Workload(dims, reorders);
            rnd = new Random(seed);
        }

        void submit() {
            long[][] palette = {{800, 100}, {50, 3200}, {100, 400}};
            long[] shape = palette[rnd.nextInt(palette.length)];
            UnitSpec spec = UnitSpec.builder("u").slot(shape[0], shape[1]).desired(1 + rnd.nextInt(6))
                    .priority(rnd.nextInt(3)).build();
            String group = "g" + rnd.nextInt(3);
            JobState j = w.addJob(JobSpec.of("j" + jobs++, group, spec), now);
            all.add(w.addUnit(j, spec, now));
            now += rnd.nextInt(3);
        }

        /** One random change of the kinds the engine makes: submit, desire change, grant-like change, end, move, forget. */
        void step() {
            int op = rnd.nextInt(12);
            if (all.isEmpty() || op < 4) {
                submit();
                return;
            }
            UnitState u = all.get(rnd.nextInt(all.size()));
            if (!u.live()) {
                return;
            }
            JobState j = (JobState) u.job();
            switch (op) {
                case 4, 5 -> w.desire(u, u.granted() + rnd.nextInt(6), now);
                case 6, 7 -> {   // a change of what the orders read, made as the allocator makes one
                    if (u.remaining() > 0) {
                        w.beforeChange(u, true);
                        u.desired(u.desired() - 1);
                        w.afterChange(u, now);
                    }
                }
                case 8 -> w.end(u, now);
                case 9 -> w.move(j, "g" + rnd.nextInt(4), now);
                case 10 -> {
                    for (UnitState x : j.units()) {
                        w.end(x, now);
                    }
                    w.removeJob(j);
                    all.removeAll(j.units());
                }
                default -> submit();
            }
        }

        /** Every queue holds exactly the units that wait in it, in the order in force (a full sort). */
        void assertQueuesAreFresh(String where) {
            int waiting = 0;
            for (GroupState g : w.groups()) {
                for (FitQueue q : List.of(g.queue(), g.gangs())) {
                    List<UnitState> expected = new ArrayList<>();
                    for (UnitState u : w.units()) {
                        if (u.queuedIn == q) {
                            expected.add(u);
                        }
                    }
                    expected.sort(w.order());
                    List<UnitState> actual = new ArrayList<>();
                    q.forEach(actual::add);
                    assertEquals(ids(expected), ids(actual), where + ": queue of " + g.name());
                    assertEquals(expected.size(), q.size(), where);
                    q.reorder(w.order());   // a fresh re-order gives the same order
                    List<UnitState> fresh = new ArrayList<>();
                    q.forEach(fresh::add);
                    assertEquals(ids(actual), ids(fresh), where);
                    assertEquals(0, q.repairs(), where + ": no swap-in fell back to re-ordering in place");
                    waiting += expected.size();
                }
            }
            assertEquals(waiting, w.waitingUnits(), where + ": waiting units");
            for (UnitState u : w.units()) {
                assertEquals(u.live() && u.remaining() > 0, u.queuedIn != null, where + ": " + u);
            }
        }
    }

    private static List<String> ids(List<UnitState> us) {
        return us.stream().map(u -> u.id() + "#" + u.sequence()).toList();
    }

    @Test
    void aDirectExecutorBuildsExactlyTheHeapsOfTheInPlaceReorder() {
        Driver inPlace = new Driver(Runnable::run, 7);
        Driver built = new Driver(Runnable::run, 7);
        inPlace.w.unitOrder(ORDERS.get(0));
        built.w.unitOrder(ORDERS.get(0));
        Random swaps = new Random(8);
        for (int round = 0; round < 60; round++) {
            for (int i = 0; i < 40; i++) {
                inPlace.step();
                built.step();
            }
            UnitOrder next = ORDERS.get(swaps.nextInt(ORDERS.size()));
            inPlace.w.unitOrder(next);          // the re-order in place, as before
            built.w.unitOrder(next, true);      // snapshot, build (at once), swap in
            assertNull(built.w.pendingUnitOrder(), "a direct executor leaves nothing pending");
            assertSame(next, built.w.unitOrder());
            assertEquals(inPlace.all.size(), built.all.size());
            for (int i = 0; i < inPlace.all.size(); i++) {
                UnitState a = inPlace.all.get(i);
                UnitState b = built.all.get(i);
                FitQueue qa = a.queuedIn;
                FitQueue qb = b.queuedIn;
                assertEquals(qa == null, qb == null, "round " + round);
                if (qa != null) {
                    assertEquals(qa.positionOf(a), qb.positionOf(b), "same heap position, round " + round);
                }
            }
            for (GroupState g : inPlace.w.groups()) {
                assertEquals(sequences(g.queue()), sequences(built.w.group(g.name()).queue()), "round " + round);
            }
        }
    }

    @Test
    void changesDuringTheBuildEndInTheSameQueuesAsAFreshReorder() {
        for (long seed = 1; seed <= 40; seed++) {
            HeldExecutor ex = new HeldExecutor();
            Driver d = new Driver(ex, seed);
            d.w.unitOrder(ORDERS.get((int) (seed % ORDERS.size())));
            for (int i = 0; i < 300; i++) {
                d.step();
            }
            UnitOrder from = d.w.unitOrder();
            UnitOrder to = ORDERS.get((int) ((seed + 1 + (seed / 4) % 3) % ORDERS.size()));   // every pair, never the same
            d.w.unitOrder(to, true);
            assertSame(from, d.w.unitOrder(), "the old order stays in force while the new one is built");
            assertSame(to, d.w.pendingUnitOrder());
            for (int i = 0; i < 60; i++) {
                d.step();   // before the build reads the units
            }
            d.assertQueuesAreFresh("seed " + seed + ", under the old order during the build");
            ex.runAll();
            assertTrue(d.w.swapReady());
            for (int i = 0; i < 60; i++) {
                d.step();   // after the build, before the swap-in
            }
            assertTrue(d.w.swapIn());
            assertSame(to, d.w.unitOrder());
            assertNull(d.w.takeFault(), "seed " + seed);
            d.assertQueuesAreFresh("seed " + seed + ", " + from.name() + " -> " + to.name());
        }
    }

    @Test
    void aSwapBackBeforeTheBuildFinishesDropsTheBuild() {
        HeldExecutor ex = new HeldExecutor();
        Driver d = new Driver(ex, 3);
        UnitOrder fifo = ORDERS.get(0);
        UnitOrder fair = ORDERS.get(1);
        UnitOrder window = ORDERS.get(2);
        d.w.unitOrder(fifo);
        for (int i = 0; i < 300; i++) {
            d.step();
        }
        d.w.unitOrder(fair, true);
        d.step();
        d.w.unitOrder(fifo, true);   // back: the queues are in this order already
        assertNull(d.w.pendingUnitOrder());
        ex.runAll();                 // the dropped build may still run; its result is ignored
        assertFalse(d.w.swapIn());
        assertSame(fifo, d.w.unitOrder());
        d.assertQueuesAreFresh("after the swap back");

        d.w.unitOrder(fair, true);
        d.step();
        d.w.unitOrder(window, true); // another order before the first build finished: built from a new snapshot
        d.step();
        ex.runAll();
        assertTrue(d.w.swapIn());
        assertSame(window, d.w.unitOrder());
        d.assertQueuesAreFresh("fifo -> fair -> window");
    }

    @Test
    void anOrderThatMustGoNowIsReplacedOnThisThread() {
        HeldExecutor ex = new HeldExecutor();
        Driver d = new Driver(ex, 4);
        d.w.unitOrder(ORDERS.get(0));
        for (int i = 0; i < 200; i++) {
            d.step();
        }
        d.w.unitOrder(ORDERS.get(1), true);
        d.step();
        d.w.unitOrder(ORDERS.get(1), false);   // e.g. the old order's policy is uninstalled
        assertNull(d.w.pendingUnitOrder());
        assertSame(ORDERS.get(1), d.w.unitOrder());
        d.assertQueuesAreFresh("re-ordered at once");
        ex.runAll();
        assertFalse(d.w.swapIn());
    }

    private static List<Long> sequences(FitQueue q) {
        List<Long> out = new ArrayList<>();
        q.forEach(u -> out.add(u.sequence()));
        return out;
    }

}

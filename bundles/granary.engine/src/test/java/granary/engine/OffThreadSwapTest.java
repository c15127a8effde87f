package granary.engine;

import static granary.engine.Harness.unit;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Random;
import java.util.concurrent.Executor;

import granary.api.event.ClockTick;
import granary.api.event.JobCancelled;
import granary.api.event.PolicyActivated;
import granary.api.event.PolicyUninstalled;
import granary.api.event.Receipt;
import granary.api.event.UnitCancelled;
import granary.api.model.InvalidRequestException;
import granary.api.model.UnitId;
import granary.api.spi.UnitOrder;
import granary.api.spi.UnitView;
import granary.engine.state.UnitState;
import granary.engine.state.Workload;

import org.junit.jupiter.api.Test;

/**
 * A unit-order swap built off the engine thread (docs/scheduling.md, "Swapping the order off the
 * engine thread"), through the engine: the old order decides until the new one is built; grants,
 * releases, submits and cancels made meanwhile are carried over; after the swap-in every group queue
 * holds exactly the waiting units in the new order, as a synchronous re-order would. The build runs
 * when the test says (a held executor), so nothing depends on timing.
 */
class OffThreadSwapTest {

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

    /** Fewest slots held relative to desire first, like FAIR: reads grants, no sort key. */
    static final class Fairish implements UnitOrder {
        @Override
        public String name() {
            return "fair";
        }

        @Override
        public int compare(UnitView a, UnitView b) {
            return Long.compare((long) a.granted() * b.desired(), (long) b.granted() * a.desired());
        }

        @Override
        public boolean readsGrants() {
            return true;
        }
    }

    private final HeldExecutor builds = new HeldExecutor();

    private final Harness.ArrivalOrder fifo = new Harness.ArrivalOrder("fifo");

    private Harness loaded(long seed) {
        Harness h = new Harness(List.of("fifo"), builds);
        h.install(fifo);
        h.install(new Fairish());
        h.nodes("n", "r1", 4, 400, 4096);
        Random rnd = new Random(seed);
        for (int j = 0; j < 40; j++) {
            h.submit("j" + j, "g" + rnd.nextInt(2), unit("u", 100, 512, 1 + rnd.nextInt(4)));
            h.clock.advance(1 + rnd.nextInt(3));
        }
        return h;
    }

    /** Releases, submits and cancels, at random: grants follow under whatever order is in force. */
    private static void traffic(Harness h, Random rnd, int events, int[] nextJob) {
        for (int i = 0; i < events; i++) {
            int op = rnd.nextInt(6);
            List<UnitView> holding = new ArrayList<>();
            h.engine.view().jobs().forEach(j -> j.units().forEach(u -> {
                if (u.granted() > 0 && u.live()) {
                    holding.add(u);
                }
            }));
            if (op < 3 && !holding.isEmpty()) {
                UnitView u = holding.get(rnd.nextInt(holding.size()));
                Map.Entry<String, Integer> on = u.allocations().entrySet().iterator().next();
                h.release(u.id().toString(), on.getKey(), 1 + rnd.nextInt(on.getValue()));
            } else if (op == 3) {
                h.submit("x" + nextJob[0]++, "g" + rnd.nextInt(3), unit("u", 100, 512, 1 + rnd.nextInt(4)));
            } else {
                try {
                    h.handle(op == 4 ? new UnitCancelled(UnitId.parse("j" + rnd.nextInt(40) + "/u"))
                            : new JobCancelled("j" + rnd.nextInt(40)));
                } catch (InvalidRequestException gone) {
                    // cancelled before: refused, nothing changed
                }
            }
            h.clock.advance(1);
        }
    }

    /** Every group queue: exactly the waiting units, in the order in force. */
    private static void assertQueuesInOrder(Harness h, String where) {
        Workload w = h.engine.workload();
        int waiting = 0;
        for (var g : w.groups()) {
            List<UnitState> actual = new ArrayList<>();
            h.engine.view().waiting(g.name()).forEach(u -> actual.add((UnitState) u));
            List<UnitState> expected = new ArrayList<>(actual);
            expected.sort(w.order());
            assertEquals(expected, actual, where + ": group " + g.name());
            assertEquals(0, g.queue().repairs() + g.gangs().repairs(), where + ": no swap-in fell back to re-ordering in place");
            waiting += actual.size();
        }
        assertEquals(w.waitingUnits(), waiting, where);
        h.engine.checkInvariants();
    }

    @Test
    void eventsDuringTheBuildAreCarriedIntoTheNewOrder() {
        for (String[] swap : new String[][] {{"fifo", "fair"}, {"fair", "fifo"}}) {
            for (long seed = 1; seed <= 10; seed++) {
                Harness h = loaded(seed);
                if (!swap[0].equals("fifo")) {
                    h.handle(new PolicyActivated(swap[0]));
                    builds.runAll();
                    h.handle(new ClockTick());
                }
                Random rnd = new Random(seed * 31);
                int[] next = {0};
                Receipt r = h.handle(new PolicyActivated(swap[1]));
                assertTrue(r.notes().get(0).startsWith("unit-order: " + swap[0] + " -> " + swap[1]), r.notes().toString());
                String where = "seed " + seed + " " + swap[0] + " -> " + swap[1];
                assertSame(swap[1], h.engine.workload().pendingUnitOrder().name(), where);
                traffic(h, rnd, 25, next);   // decided under the old order, the build still held
                assertEquals(swap[0], h.engine.workload().unitOrder().name(), where);
                assertQueuesInOrder(h, where + ", during the build");
                builds.runAll();
                traffic(h, rnd, 5, next);    // built, not yet swapped in: the next event puts it in force
                assertEquals(swap[1], h.engine.workload().unitOrder().name(), where);
                assertQueuesInOrder(h, where + ", after the swap-in");
            }
        }
    }

    @Test
    void theNewOrderTakesEffectAtTheNextEventAndLooksAtEveryNode() {
        Harness h = loaded(5);
        h.handle(new PolicyActivated("fair"));
        assertEquals("fifo", h.engine.view().status().policies().get("unit-order"), "status: the order in force while fair is built");
        builds.runAll();
        assertEquals("fifo", h.engine.view().status().policies().get("unit-order"), "built, not yet swapped in");
        Receipt r = h.handle(new ClockTick());
        assertEquals("fair", h.engine.view().status().policies().get("unit-order"));
        assertEquals(List.of("unit order fair in force (built off the engine thread)"), r.notes());
        assertEquals("fair", h.engine.workload().unitOrder().name());
        assertQueuesInOrder(h, "fair in force");
    }

    @Test
    void aSwapBackDuringTheBuildKeepsTheOrderInForce() {
        Harness h = loaded(9);
        Random rnd = new Random(2);
        int[] next = {0};
        h.handle(new PolicyActivated("fair"));
        traffic(h, rnd, 10, next);
        h.handle(new PolicyActivated("fifo"));   // back before the build finished
        builds.runAll();
        Receipt r = h.handle(new ClockTick());
        assertTrue(r.notes().isEmpty(), r.notes().toString());
        assertEquals("fifo", h.engine.workload().unitOrder().name());
        assertQueuesInOrder(h, "swapped back");
        h.handle(new PolicyActivated("fair"));   // and forth again: a new build from a new snapshot
        traffic(h, rnd, 10, next);
        builds.runAll();
        traffic(h, rnd, 3, next);
        assertEquals("fair", h.engine.workload().unitOrder().name());
        assertQueuesInOrder(h, "swapped forth again");
    }

    @Test
    void uninstallingTheOrderInForceDuringTheBuildSwapsAtOnce() {
        Harness h = loaded(4);
        h.handle(new PolicyActivated("fair"));
        Receipt r = h.handle(new PolicyUninstalled(fifo));   // the old policy goes: the engine must stop calling it now
        assertEquals("fair", h.engine.workload().unitOrder().name(), r.notes().toString());
        assertEquals("fair", h.engine.workload().unitOrder().name());
        assertEquals(null, h.engine.workload().pendingUnitOrder());
        assertQueuesInOrder(h, "after the uninstall");
        builds.runAll();
        assertTrue(h.handle(new ClockTick()).notes().isEmpty());
    }
}

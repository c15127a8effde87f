package granary.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;

import granary.api.spi.EngineStatus;
import granary.api.model.JobSpec;
import granary.api.model.NodeSpec;
import granary.api.event.Receipt;
import granary.api.model.Resources;
import granary.api.event.Scheduler;
import granary.api.model.UnitId;
import granary.api.model.UnitSpec;
import granary.api.event.GrantReleased;
import granary.api.event.InputEvent;
import granary.api.event.JobSubmitted;
import granary.api.event.NodeAdded;
import granary.api.event.PolicyActivated;
import granary.api.spi.EngineView;
import granary.api.spi.UnitView;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.osgi.framework.Bundle;

/**
 * Hot swapping of the unit order in a real framework (Felix or Equinox, per run), through the
 * {@link Scheduler} service and the policy bundles' life cycle, from the runtime's default order
 * (sjf) to fifo and fair and back.
 *
 * <p>The test talks to the scheduler with the typed API. For that, the test and the bundles must
 * share one copy of the {@code granary.api} classes: the framework exports the packages from the
 * class path ({@code org.osgi.framework.system.packages.extra}, with the api bundle's own
 * Export-Package header) and the granary.api bundle is not installed. Everything else is the
 * bundle set of the runnable jar, with the demo switched off through Config Admin.
 */
class PolicySwapIT {

    private static final String UNIT_ORDER = "unit-order";

    private static ApiRuntime runtime;

    /** Granted, remaining and desired slots of a unit. */
    record Slots(int granted, int remaining, int desired) {
    }

    /** What must survive a swap: every unit's slots, and the engine's totals. */
    record Snapshot(Map<String, Slots> units, long grantedSlots, long waitingSlots, long decisions, String unitOrder) {
        Snapshot {
            units.forEach((id, s) -> assertEquals(s.desired(), s.granted() + s.remaining(), id + ": granted + waiting = desired"));
            assertEquals(grantedSlots, units.values().stream().mapToLong(Slots::granted).sum(), "granted slots");
            assertEquals(waitingSlots, units.values().stream().mapToLong(Slots::remaining).sum(), "waiting slots");
        }
    }

    @BeforeAll
    static void start() throws Exception {
        runtime = ApiRuntime.start(Map.of());
    }

    @AfterAll
    static void stop() {
        if (runtime != null) {
            runtime.close();
        }
    }

    private static Receipt submit(InputEvent e) throws Exception {
        return runtime.submit(e);
    }

    private static <T> T query(Function<EngineView, T> q) {
        return runtime.query(q);
    }

    private static Snapshot snapshot() {
        return query(v -> {
            Map<String, Slots> units = new TreeMap<>();
            for (var job : v.jobs()) {
                for (UnitView u : job.units()) {
                    units.put(u.id().toString(), new Slots(u.granted(), u.remaining(), u.desired()));
                }
            }
            EngineStatus s = v.status();
            return new Snapshot(units, s.grantedSlots(), s.waitingSlots(), s.decisions(), s.policies().get(UNIT_ORDER));
        });
    }

    private static String unitOrder() {
        return query(v -> v.status().policies().get(UNIT_ORDER));
    }

    private static Bundle bundle(String bsn) {
        return runtime.bundle(bsn);
    }

    private static JobSpec job(String id, int desired) {
        return JobSpec.of(id, "root.it", UnitSpec.builder("u").slot(100, 1024).desired(desired).build());
    }

    @Test
    void swapsKeepEveryGrantAndEveryWaitingSlot() throws Exception {
        // two nodes of 4 slots; a takes 6, b gets the other 2 and waits for 4 more
        submit(new NodeAdded(new NodeSpec("n1", "r1", Resources.of(400, 4096))));
        submit(new NodeAdded(new NodeSpec("n2", "r1", Resources.of(400, 4096))));
        submit(new JobSubmitted(job("a", 6)));
        submit(new JobSubmitted(job("b", 6)));
        Snapshot start = snapshot();
        assertEquals("sjf", start.unitOrder(), "the runtime's default unit order");
        assertEquals(new Slots(6, 0, 6), start.units().get("a/u"));
        assertEquals(new Slots(2, 4, 6), start.units().get("b/u"));

        // the default's own bundle stopped: the first of the fallback order stands in, and sjf takes over again
        bundle("granary.policy.sjf").stop();
        assertSameWork(start, snapshot(), "fifo");
        bundle("granary.policy.sjf").start();
        It.await("sjf back in effect", () -> "sjf".equals(unitOrder()), PolicySwapIT::snapshot, It.TIMEOUT);
        assertSameWork(start, snapshot(), "sjf");

        // sjf -> fifo -> sjf by selection: nothing lost either way
        List<String> toFifo = submit(new PolicyActivated("fifo")).notes();
        assertTrue(toFifo.contains("unit-order: sjf -> fifo"), toFifo::toString);
        assertSameWork(start, snapshot(), "fifo");
        List<String> back = submit(new PolicyActivated("sjf")).notes();
        assertTrue(back.contains("unit-order: fifo -> sjf"), back::toString);
        assertSameWork(start, snapshot(), "sjf");

        List<String> notes = submit(new PolicyActivated("fair")).notes();
        assertTrue(notes.contains("unit-order: sjf -> fair"), notes::toString);
        assertSameWork(start, snapshot(), "fair");

        bundle("granary.policy.fair").stop();
        assertSameWork(start, snapshot(), "fifo");   // fair gone: fifo stands in

        bundle("granary.policy.fifo").stop();
        assertSameWork(start, snapshot(), "submitwindow");   // the last of the fallback order stands in

        bundle("granary.policy.submitwindow").stop();
        assertSameWork(start, snapshot(), "waiting");   // no unit order: the queues hold

        // while waiting: freed slots and new jobs get nothing
        UnitId a = new UnitId("a", "u");
        String node = query(v -> v.unit(a).allocations().keySet().iterator().next());
        submit(new GrantReleased(a, node, 2));
        Receipt c = submit(new JobSubmitted(job("c", 1)));
        assertEquals(List.of(), c.outputs(), "nothing is granted while no unit order is installed");
        Snapshot waiting = snapshot();
        assertEquals(new Slots(4, 0, 4), waiting.units().get("a/u"));
        assertEquals(new Slots(2, 4, 6), waiting.units().get("b/u"));
        assertEquals(new Slots(0, 1, 1), waiting.units().get("c/u"));
        assertEquals(start.decisions(), waiting.decisions(), "no grant, no revocation");
        assertEquals("waiting", waiting.unitOrder());

        // fair comes back: the 2 free slots go out, c (holding none) before b (holding 2)
        bundle("granary.policy.fair").start();
        It.await("fair back in effect", () -> "fair".equals(unitOrder()), PolicySwapIT::snapshot, It.TIMEOUT);
        It.await("the free slots granted", () -> snapshot().grantedSlots() == 8, PolicySwapIT::snapshot, It.TIMEOUT);
        Snapshot resumed = snapshot();
        assertEquals(new Slots(4, 0, 4), resumed.units().get("a/u"));
        assertEquals(new Slots(1, 0, 1), resumed.units().get("c/u"));
        assertEquals(new Slots(3, 3, 6), resumed.units().get("b/u"));

        bundle("granary.policy.fifo").start();
        It.await("fifo installed again", () -> query(v -> v.policies().stream().anyMatch(p -> p.name().equals("fifo"))),
                PolicySwapIT::snapshot, It.TIMEOUT);
        assertSameWork(resumed, snapshot(), "fair");   // installing a policy that is not selected changes nothing
        bundle("granary.policy.submitwindow").start();

        // back to the default order: a freed slot goes to the smaller job, d (1 slot), before b (6, submitted earlier)
        List<String> toSjf = submit(new PolicyActivated("sjf")).notes();
        assertTrue(toSjf.contains("unit-order: fair -> sjf"), toSjf::toString);
        assertSameWork(resumed, snapshot(), "sjf");
        submit(new JobSubmitted(job("d", 1)));
        String aNode = query(v -> v.unit(a).allocations().keySet().iterator().next());
        submit(new GrantReleased(a, aNode, 1));
        Snapshot small = snapshot();
        assertEquals(new Slots(1, 0, 1), small.units().get("d/u"), "sjf: the 1-slot job first");
        assertEquals(new Slots(3, 3, 6), small.units().get("b/u"));
        assertEquals(new Slots(3, 0, 3), small.units().get("a/u"));
        assertEquals(8, small.grantedSlots());
    }

    /** The same units with the same grants and waiting slots, and the expected unit order. */
    private static void assertSameWork(Snapshot before, Snapshot after, String unitOrder) {
        assertEquals(unitOrder, after.unitOrder());
        assertEquals(before.units(), after.units(), "every unit keeps its grants and its waiting slots");
        assertEquals(before.grantedSlots(), after.grantedSlots());
        assertEquals(before.waitingSlots(), after.waitingSlots());
    }
}

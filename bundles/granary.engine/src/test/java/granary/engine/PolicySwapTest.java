package granary.engine;

import static granary.engine.Harness.unit;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;

import granary.api.model.UnitSpec;
import granary.api.event.PolicyActivated;
import granary.api.event.PolicyDeactivated;
import granary.api.event.PolicyInstalled;
import granary.api.event.PolicyUninstalled;
import granary.api.spi.EngineView;
import granary.api.spi.UnitOrder;
import granary.api.spi.UnitView;

import org.junit.jupiter.api.Test;

/** Policies come, go and swap between two decisions; no grant and no waiting request is lost. */
class PolicySwapTest {

    /** Lowest priority first: the opposite of FIFO, so that a swap visibly re-orders. */
    static final class Reverse implements UnitOrder {
        final List<String> calls = new ArrayList<>();

        @Override
        public String name() {
            return "reverse";
        }

        @Override
        public int compare(UnitView a, UnitView b) {
            return Integer.compare(a.priority(), b.priority());
        }

        @Override
        public void attach(EngineView view) {
            calls.add("attach");
        }

        @Override
        public void detach() {
            calls.add("detach");
        }
    }

    private static Harness loaded() {
        Harness h = Harness.withFifo().nodes("n", "r1", 1, 400, 4096);
        h.submit("fill", unit("u", 400, 512, 1));
        h.submit("lo", UnitSpec.builder("u").slot(100, 512).desired(4).priority(1).build());
        h.submit("hi", UnitSpec.builder("u").slot(100, 512).desired(4).priority(9).build());
        return h;
    }

    @Test
    void activatingAnotherOrderReordersTheWaitingUnits() {
        Harness h = loaded();
        Reverse rev = new Reverse();
        h.install(rev);
        var r = h.handle(new PolicyActivated("reverse"));
        assertEquals(List.of("unit-order: fifo -> reverse"), r.notes());
        assertEquals(List.of("attach"), rev.calls);
        List<String> order = new ArrayList<>();
        h.engine.view().waiting("default").forEach(u -> order.add(u.id().toString()));
        assertEquals(List.of("lo/u", "hi/u"), order);
        h.release("fill/u", "n0", 1);
        assertEquals(4, h.granted("lo/u"));
        assertEquals(0, h.granted("hi/u"));
    }

    @Test
    void withoutAUnitOrderNothingIsGrantedAndNothingIsLost() {
        Harness h = new Harness(List.of("fifo"));
        Harness.ArrivalOrder first = new Harness.ArrivalOrder("fifo");
        h.install(first);
        h.nodes("n", "r1", 1, 400, 4096);
        h.submit("fill", unit("u", 400, 512, 1));
        h.submit("a", unit("u", 100, 512, 3));
        var r = h.handle(new PolicyUninstalled(first));
        assertEquals(List.of("unit-order: fifo -> (none)"), r.notes());
        assertEquals("waiting", h.engine.view().status().policies().get("unit-order"));
        h.release("fill/u", "n0", 1);
        h.submit("b", unit("u", 100, 512, 2));
        assertEquals(0, h.granted("a/u") + h.granted("b/u"));
        assertEquals(5, h.engine.view().status().waitingSlots());
        assertEquals(2, h.engine.view().status().waitingUnits());
        r = h.install(new Harness.ArrivalOrder("fifo"));
        assertEquals(List.of("unit-order: (none) -> fifo"), r.notes());
        assertEquals(3, h.granted("a/u"));
        assertEquals(1, h.granted("b/u"));
        assertEquals(java.util.Map.of("n0", 3), h.placement("a/u"));
        assertEquals(java.util.Map.of("n0", 1), h.placement("b/u"));
    }

    @Test
    void aSelectedPolicyThatGoesAwayFallsBackAndTakesOverAgainWhenBack() {
        Harness h = loaded();
        Reverse rev = new Reverse();
        h.install(rev);
        h.handle(new PolicyActivated("reverse"));
        var r = h.handle(new PolicyUninstalled(rev));
        assertEquals(List.of("unit-order: reverse -> fifo"), r.notes());
        assertEquals(List.of("attach", "detach"), rev.calls);
        assertTrue(h.engine.view().policies().stream().noneMatch(p -> p.name().equals("reverse")));
        r = h.install(new Reverse());
        assertEquals(List.of("unit-order: fifo -> reverse"), r.notes());
        r = h.handle(new PolicyDeactivated("reverse"));
        assertEquals(List.of("unit-order: reverse -> fifo"), r.notes());
        assertTrue(h.engine.view().policies().stream().anyMatch(p -> p.name().equals("reverse") && !p.active()));
    }

    @Test
    void swapsChangeNoGrantAndDropNoRequest() {
        Harness h = loaded();
        h.install(new Reverse());
        String grants = h.netFromLog().toString();
        long waiting = h.engine.view().status().waitingSlots();
        for (String next : List.of("reverse", "fifo", "reverse", "fifo")) {
            var r = h.handle(new PolicyActivated(next));
            assertTrue(r.outputs().isEmpty(), "a swap on a full cluster granted or revoked: " + r.outputs());
            assertEquals(grants, h.netFromLog().toString());
            assertEquals(waiting, h.engine.view().status().waitingSlots());
        }
    }

    /** Throws from compare once armed: a faulty policy. */
    static final class Faulty implements UnitOrder {
        boolean armed;

        @Override
        public String name() {
            return "faulty";
        }

        @Override
        public int compare(UnitView a, UnitView b) {
            if (armed) {
                throw new IllegalStateException("boom");
            }
            return Long.compare(a.sequence(), b.sequence());
        }
    }

    @Test
    void aFaultyPolicyCannotCorruptTheEngine() {
        granary.api.model.ManualClock clock = new granary.api.model.ManualClock(0);
        Engine e = new Engine(clock, new EngineOptions(List.of("faulty"), List.of(), false));
        Faulty f = new Faulty();
        e.handle(new PolicyInstalled(f, "test"));
        e.handle(new granary.api.event.NodeAdded(new granary.api.model.NodeSpec("n0", "r", granary.api.model.Resources.of(100, 100))));
        e.handle(new granary.api.event.JobSubmitted(granary.api.model.JobSpec.of("a", null, unit("u", 100, 10, 2))));
        e.handle(new granary.api.event.JobSubmitted(granary.api.model.JobSpec.of("b", null, unit("u", 100, 10, 2))));
        f.armed = true;
        var r = e.handle(new granary.api.event.GrantReleased(granary.api.model.UnitId.parse("a/u"), "n0", 1));
        assertEquals(List.of("policy faulty failed and was set aside: java.lang.IllegalStateException: boom",
                "unit-order: faulty -> (none)"), r.notes());
        e.checkInvariants();
        // a/u released its slot and wants one more; b/u wants two: nothing is granted without a unit order
        assertEquals(3, e.view().status().waitingSlots());
        assertEquals("waiting", e.view().status().policies().get("unit-order"));
    }
}

package granary.engine;

import granary.api.spi.ReasonCode;
import static granary.engine.Harness.unit;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.Set;

import granary.api.model.JobSpec;
import granary.api.model.UnitId;
import granary.api.model.UnitSpec;
import granary.api.event.JobSubmitted;
import granary.api.spi.NodeFilter;
import granary.api.spi.NodeView;
import granary.api.spi.UnitOrder;
import granary.api.spi.UnitView;
import granary.api.spi.Verdict;

import org.junit.jupiter.api.Test;

/**
 * Passive scheduling (docs/scheduling.md, "Passive scheduling"): fill freed resources from the waiting
 * queues.
 */
class PassiveSchedulingTest {
    /** A policy's own reason code, as a reservation policy declares it. */
    static final ReasonCode LOCKED = ReasonCode.of("LOCKED", "node locked", "The nodes with room are locked for another"
            + " job by a reservation; they open when that job has started or the reservation ends.");


    @Test
    void releaseFillsTheFreedNodeWithTheFirstUnitThatFits() {
        Harness h = Harness.withFifo().nodes("n", "r1", 2, 400, 4096);
        h.submit("filler", unit("u", 100, 512, 8));
        h.submit("big", UnitSpec.builder("u").slot(400, 512).desired(1).priority(9).build());
        h.submit("mid", UnitSpec.builder("u").slot(300, 512).desired(1).priority(5).build());
        h.submit("small", UnitSpec.builder("u").slot(100, 512).desired(2).priority(1).build());
        h.release("filler/u", "n0", 1);
        // 100 free on n0: the higher-priority units do not fit; the small one gets it.
        assertEquals(Map.of("n0", 1), h.placement("small/u"));
        h.release("filler/u", "n0", 3);
        // 300 free: big (400) still does not fit, mid (300) does and outranks small.
        assertEquals(Map.of("n0", 1), h.placement("mid/u"));
        assertEquals(0, h.granted("big/u"));
        h.release("filler/u", "n1", 4);
        assertEquals(Map.of("n1", 1), h.placement("big/u"));
    }

    @Test
    void aNewNodeIsFilledFromTheQueues() {
        Harness h = Harness.withFifo().nodes("n", "r1", 1, 400, 4096);
        h.submit("j", unit("u", 200, 512, 4));
        assertEquals(2, h.granted("j/u"));
        h.node("m0", "r2", 400, 4096);
        assertEquals(Map.of("n0", 2, "m0", 2), h.placement("j/u"));
    }

    @Test
    void hungriestGroupIsServedFirst() {
        Harness h = Harness.withFifo().nodes("n", "r1", 2, 400, 4096);
        h.submit("a1", "ga", unit("u", 100, 512, 6));      // ga holds 6 slots
        h.submit("b1", "gb", unit("u", 100, 512, 2));      // gb holds 2: hungrier
        h.submit("a2", "ga", unit("u", 100, 512, 1));      // both groups now wait
        h.submit("b2", "gb", unit("u", 100, 512, 1));
        assertEquals(0, h.granted("a2/u") + h.granted("b2/u"));
        h.release("a1/u", "n0", 1);
        assertEquals(1, h.granted("b2/u"));
        assertEquals(0, h.granted("a2/u"));
    }

    /** FAIR's shape: fewer slots held first; reads grants. */
    static final class FewestFirst implements UnitOrder {
        @Override
        public String name() {
            return "fair";
        }

        @Override
        public int compare(UnitView a, UnitView b) {
            return Integer.compare(a.granted(), b.granted());
        }

        @Override
        public boolean readsGrants() {
            return true;
        }
    }

    @Test
    void anOrderThatReadsGrantsIsServedOneSlotAtATime() {
        Harness h = new Harness(List.of("fair"));
        h.install(new FewestFirst());
        h.nodes("n", "r1", 1, 600, 8192);
        h.submit("fill", unit("u", 600, 512, 1));
        h.submit("a", unit("u", 100, 512, 6));
        h.submit("b", unit("u", 100, 512, 6));
        h.release("fill/u", "n0", 1);
        assertEquals(3, h.granted("a/u"));
        assertEquals(3, h.granted("b/u"));
    }

    /** Reserves node n0 for unit "target/u" only. */
    static final class LockN0 implements NodeFilter {
        @Override
        public String name() {
            return "lock";
        }

        @Override
        public Verdict filter(UnitView unit, NodeView node) {
            return !node.name().equals("n0") || unit.id().job().equals("target") ? Verdict.ALLOW
                    : Verdict.waitFor(granary.api.spi.Reason.of(LOCKED, "node n0", "locked"));
        }

        @Override
        public Set<UnitId> reservedFor(NodeView node) {
            return node.name().equals("n0") ? Set.of(UnitId.parse("target/u")) : null;
        }
    }

    @Test
    void aReservedNodeIsOnlyGivenToItsUnits() {
        Harness h = new Harness(List.of("fifo", "lock"));
        h.install(new Harness.ArrivalOrder("fifo"));
        h.install(new LockN0());
        h.nodes("n", "r1", 2, 400, 4096);
        h.submit("other", unit("u", 100, 512, 8));
        assertEquals(Map.of("n1", 4), h.placement("other/u"));
        h.submit("target", unit("u", 400, 512, 1));
        assertEquals(Map.of("n0", 1), h.placement("target/u"));
        assertTrue(h.engine.view().cluster().node("n0").allocations().keySet().stream()
                .allMatch(id -> id.job().equals("target")));
    }

    @Test
    void gangJobUnitsAreNotPlacedSlotBySlot() {
        Harness h = Harness.withFifo().nodes("n", "r1", 2, 400, 4096);
        h.handle(new JobSubmitted(new JobSpec("g", null, null, 0, true, List.of(unit("a", 100, 512, 2),
                unit("b", 100, 512, 2)))));
        assertEquals(0, h.granted("g/a") + h.granted("g/b"));   // no gang placement installed: the gang waits whole
        assertEquals("waiting", h.engine.view().status().policies().get("gang-placement"));
        assertEquals(granary.api.spi.ReasonCode.NO_POLICY,
                h.engine.view().unit(UnitId.parse("g/a")).waitReason().code());
    }

    @Test
    void aListenerThatThrowsDoesNotStopTheCycle() {
        Harness h = Harness.withFifo().nodes("n", "r1", 2, 400, 4096);
        h.engine.subscribe(e -> {
            throw new IllegalStateException("listener bug");
        });
        var r = h.submit("j", unit("u", 100, 512, 8));
        assertEquals(8, h.granted("j/u"));
        assertEquals(8, h.log.stream().mapToInt(o -> ((granary.api.event.Granted) o).slots()).sum());
        assertTrue(r.notes().get(0).contains("listener bug"), r.notes().toString());
    }
}

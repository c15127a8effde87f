package granary.policy.reservation;

import static granary.policy.reservation.Sim.gangJob;
import static granary.policy.reservation.Sim.job;
import static granary.policy.reservation.Sim.unit;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import granary.api.model.Locality;
import granary.api.model.NodeSpec;
import granary.api.event.Receipt;
import granary.api.model.Resources;
import granary.api.model.UnitId;
import granary.api.event.ClockTick;
import granary.api.event.GrantReleased;
import granary.api.event.Granted;
import granary.api.event.JobCancelled;
import granary.api.event.NodeAdded;
import granary.api.event.PolicyUninstalled;
import granary.policy.fifo.FifoPolicy;
import granary.policy.gang.GangPolicy;

import org.junit.jupiter.api.Test;

/**
 * The node group and its locks: spec first and idle first choose different nodes, one node is
 * locked per cycle, a locked node takes only the target's work, nothing is evicted, and every lock
 * goes at once on placement, cancellation, timeout and detach.
 *
 * <p>The cluster: {@code a} (800 cpu, 700 used), {@code b} and {@code c} (400 cpu, 100 used each),
 * 700 free in all. The target is a gang of four 200-cpu slots: 800 at once, so it waits.
 */
class LocksTest {

    static final long THRESHOLD = 1_000;

    private ReservationPolicy policy;

    private Sim cluster(ReservationOptions options) {
        policy = new ReservationPolicy(options.withThreshold(THRESHOLD));
        Sim s = new Sim(List.of("fifo", "gang", "reservation"), new FifoPolicy(), new GangPolicy(), policy);
        s.handle(new NodeAdded(new NodeSpec("a", "r1", Resources.of(800, 8000))));
        s.handle(new NodeAdded(new NodeSpec("b", "r1", Resources.of(400, 4000))));
        s.handle(new NodeAdded(new NodeSpec("c", "r1", Resources.of(400, 4000))));
        s.submit(job("fa", unit("u", 100, 7).prefer(Locality.machine("a", 7)).build()), Long.MAX_VALUE / 4);
        s.submit(job("fb", unit("u", 100, 1).prefer(Locality.machine("b", 1)).build()), Long.MAX_VALUE / 4);
        s.submit(job("fc", unit("u", 100, 1).prefer(Locality.machine("c", 1)).build()), Long.MAX_VALUE / 4);
        s.submit(gangJob("t", unit("w", 200, 4).build()), Long.MAX_VALUE / 4);
        assertEquals(0, s.granted("t/w"));
        return s;
    }

    /** Past the threshold: one tick elects the target and locks the first node. */
    private static ReservationReport elect(Sim s) {
        s.clock.advance(THRESHOLD);
        s.handle(new ClockTick());
        return s.report();
    }

    private static void release(Sim s, String unit, String node) {
        s.handle(new GrantReleased(UnitId.parse(unit), node, s.engine.view().unit(UnitId.parse(unit)).allocations().get(node)));
    }

    @Test
    void specFirstLocksTheLargestNodeIdleFirstTheFreestOnes() {
        Sim spec = cluster(ReservationOptions.DEFAULTS);
        ReservationReport r = elect(spec);
        assertEquals("t", r.target());
        assertEquals(List.of("a"), r.lockedNodes(), "spec first: a's 800 cpu hold all four slots");
        assertEquals(1, r.plannedNodes());
        assertEquals(Resources.of(800, 8000), r.lockedCapacity());
        assertEquals(Resources.of(800, 400), r.needed());

        Sim idle = cluster(ReservationOptions.DEFAULTS.withMode(Mode.IDLE_FIRST));
        r = elect(idle);
        assertEquals(List.of("b"), r.lockedNodes(), "idle first: b and c have the most free (300 each)");
        assertEquals(2, r.plannedNodes());
        idle.handle(new ClockTick());
        assertEquals(List.of("b", "c"), idle.report().lockedNodes(), "one more node in the next cycle");
        idle.handle(new ClockTick());
        assertEquals(List.of("b", "c"), idle.report().lockedNodes(), "covered: no more locks");
    }

    @Test
    void aLockedNodeTakesNoNewWorkButTheTargetsAndNothingIsEvicted() {
        Sim s = cluster(ReservationOptions.DEFAULTS);
        elect(s);
        assertEquals(List.of("a"), s.report().lockedNodes());
        // six one-slot jobs fill b and c; the seventh would fit on a (100 free) but a is locked
        for (int i = 0; i < 7; i++) {
            Receipt r = s.submit(job("s" + i, unit("u", 100, 1).build()), Long.MAX_VALUE / 4);
            assertTrue(r.outputs().stream().noneMatch(o -> o instanceof Granted g && g.node().equals("a")), "s" + i + " on a");
        }
        assertEquals(0, s.granted("s6/u"), "waits although a has room");
        assertEquals(7, s.granted("fa/u"), "running work on the locked node stays (non-preemptive)");

        s.handle(new JobCancelled("s6"));
        s.submit(job("on-a", unit("u", 100, 1).prefer(Locality.machine("a", 1)).build()), Long.MAX_VALUE / 4);
        assertEquals(0, s.granted("on-a/u"), "a job that may only use a waits for the lock");

        // b and c drain: the target goes there (it may be placed anywhere), a is unlocked at once
        release(s, "fb/u", "b");
        for (int i = 0; i < 5; i++) {
            String node = s.engine.view().unit(UnitId.parse("s" + i + "/u")).allocations().keySet().iterator().next();
            release(s, "s" + i + "/u", node);
        }
        assertEquals("t", s.report().target());
        String last = s.engine.view().unit(UnitId.parse("s5/u")).allocations().keySet().iterator().next();
        s.handle(new GrantReleased(UnitId.parse("fc/u"), "c", 1));
        Receipt placed = s.handle(new GrantReleased(UnitId.parse("s5/u"), last, 1));
        assertEquals(4, s.granted("t/w"));
        assertEquals(Map.of("b", 2, "c", 2), new TreeMap<>(s.engine.view().unit(UnitId.parse("t/w")).allocations()));
        assertNull(s.report().target(), "placed: the reservation ended");
        assertTrue(placed.outputs().stream().anyMatch(o -> o instanceof Granted g && g.unit().job().equals("on-a")),
                "the unlocked node took the waiting job in the same cycle: " + placed.outputs());
        assertEquals(7, s.granted("fa/u"), "nothing was evicted");
    }

    @Test
    void cancellingTheTargetReleasesEveryLockAtOnce() {
        Sim s = cluster(ReservationOptions.DEFAULTS.withMode(Mode.IDLE_FIRST));
        elect(s);
        s.handle(new ClockTick());
        assertEquals(List.of("b", "c"), s.report().lockedNodes());
        s.submit(job("s", unit("u", 300, 1).build()), Long.MAX_VALUE / 4);
        assertEquals(0, s.granted("s/u"), "only b and c have 300 free, both locked");
        Receipt r = s.handle(new JobCancelled("t"));
        assertNull(s.report().target());
        assertTrue(r.outputs().stream().anyMatch(o -> o instanceof Granted g && g.unit().job().equals("s")),
                "in the same cycle: " + r.outputs());
    }

    @Test
    void aReservationTimesOutAndItsTargetWaitsTheThresholdAgain() {
        Sim s = cluster(ReservationOptions.DEFAULTS.withTimeout(5_000));
        elect(s);
        s.submit(job("other", unit("u", 800, 1).build()), Long.MAX_VALUE / 4);   // needs all of a
        s.clock.advance(4_999);
        s.handle(new ClockTick());
        assertEquals("t", s.report().target());
        assertEquals(1, s.report().expiresInMillis());
        s.clock.advance(1);
        s.handle(new ClockTick());
        assertEquals("other", s.report().target(), "timed out: the next candidate is elected, t is held back");
        s.handle(new JobCancelled("other"));
        assertNull(s.report().target(), "t waits the threshold again before it can be re-elected");
        s.clock.advance(THRESHOLD);
        s.handle(new ClockTick());
        assertEquals("t", s.report().target());
    }

    @Test
    void detachingThePolicyReleasesEveryLockAndTheEngineLooksAtEveryNodeAgain() {
        Sim s = cluster(ReservationOptions.DEFAULTS);
        elect(s);
        s.submit(job("s", unit("u", 100, 7).build()), Long.MAX_VALUE / 4);
        assertEquals(6, s.granted("s/u"), "b and c; a is locked");
        Receipt r = s.handle(new PolicyUninstalled(policy));
        assertEquals(7, s.granted("s/u"));
        assertTrue(r.outputs().stream().anyMatch(o -> o instanceof Granted g && g.node().equals("a")), r.outputs().toString());
        assertNull(s.engine.view().policy("reservation"));
        assertEquals("none", s.engine.view().status().policies().get("node-filter"));
    }

    @Test
    void aTargetIsNeverElectedBeforeTheThreshold() {
        Sim s = cluster(ReservationOptions.DEFAULTS);
        s.clock.advance(THRESHOLD - 1);
        s.handle(new ClockTick());
        assertNull(s.report().target());
        assertEquals(List.of(), s.report().lockedNodes());
    }
}

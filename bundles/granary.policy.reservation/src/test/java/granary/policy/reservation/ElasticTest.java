package granary.policy.reservation;

import static granary.policy.reservation.Sim.job;
import static granary.policy.reservation.Sim.unit;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.List;
import java.util.Set;

import granary.api.model.Locality;
import granary.api.model.UnitId;
import granary.api.event.ClockTick;
import granary.api.event.GrantReleased;
import granary.policy.fifo.FifoPolicy;
import granary.policy.gang.GangPolicy;

import org.junit.jupiter.api.Test;

/**
 * Starving is waiting without progress: a big elastic job that keeps getting slots is served, not
 * starved, and never keeps the cluster locked; an elastic target's reservation ends once it is
 * served again.
 */
class ElasticTest {

    static final long THRESHOLD = 5_000;

    private static Sim sim() {
        return new Sim(List.of("fifo", "gang", "reservation"), new FifoPolicy(), new GangPolicy(),
                new ReservationPolicy(ReservationOptions.DEFAULTS.withThreshold(THRESHOLD)));
    }

    @Test
    void aJobThatWantsMoreThanTheClusterButKeepsGettingSlotsIsNeverElected() {
        Sim s = sim().nodes("n", "r1", 2, 400, 4000);
        Set<String> targets = new HashSet<>();
        s.afterEvent(r -> {
            if (s.report().target() != null) {
                targets.add(s.report().target());
            }
        });
        s.submit(job("elastic", unit("u", 100, 1_000).build()), 2_000);   // each slot runs 2 s, then it gets it back
        s.runUntil(40_000, List.of());
        assertTrue(s.granted("elastic/u") > 0);
        assertEquals(Set.of(), targets, "served all along, so never a target");
    }

    @Test
    void anElasticTargetIsReleasedOnceItIsServedAgain() {
        Sim s = sim().nodes("n", "r1", 2, 400, 4000);
        s.submit(job("fill0", unit("u", 100, 1).prefer(Locality.machine("n0", 1)).build()), Long.MAX_VALUE / 4);
        s.submit(job("fill1", unit("u", 100, 1).prefer(Locality.machine("n1", 1)).build()), Long.MAX_VALUE / 4);
        s.submit(job("wide", unit("u", 400, 3).build()), Long.MAX_VALUE / 4);   // three whole nodes: more than the cluster
        s.clock.advance(THRESHOLD);
        s.handle(new ClockTick());
        s.handle(new ClockTick());
        assertEquals("wide", s.report().target());
        assertEquals(List.of("n0", "n1"), s.report().lockedNodes(), "the cluster holds two of three: both locked");
        s.handle(new ClockTick());
        assertEquals(List.of("n0", "n1"), s.report().lockedNodes(), "nothing left to lock");

        s.handle(new GrantReleased(UnitId.parse("fill0/u"), "n0", 1));
        assertEquals(1, s.granted("wide/u"), "n0 drained: the target took it");
        assertNull(s.report().target(), "served again: the reservation ends and n1 is free for anyone");
        s.submit(job("small", unit("u", 100, 1).build()), Long.MAX_VALUE / 4);
        assertEquals(1, s.granted("small/u"));
    }
}

package granary.policy.reservation;

import static granary.policy.reservation.Sim.gangJob;
import static granary.policy.reservation.Sim.job;
import static granary.policy.reservation.Sim.merge;
import static granary.policy.reservation.Sim.stream;
import static granary.policy.reservation.Sim.unit;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;

import granary.api.event.PolicyInstalled;
import granary.api.spi.Policy;
import granary.policy.fifo.FifoPolicy;
import granary.policy.gang.GangPolicy;

import org.junit.jupiter.api.Test;

/**
 * The two starvation cases of docs/policies.md, "reservation" on the real engine: 4 nodes of 4 slots, a stream of one-slot
 * jobs arriving every 200 ms and running 4 s each (five a second for four a second of capacity:
 * the cluster never has a whole node free). Without reservation the big job waits the whole run;
 * with it, it is placed within a bounded number of rounds (1-second ticks).
 */
class StarvationTest {

    static final long THRESHOLD = 10_000;
    static final long RUNS = 4_000;
    static final long SUBMIT = 2_000;
    static final long HORIZON = 60_000;

    private static Sim sim(boolean reservation) {
        List<Policy> ps = new ArrayList<>(List.of(new FifoPolicy(), new GangPolicy()));
        if (reservation) {
            ps.add(new ReservationPolicy(ReservationOptions.DEFAULTS.withThreshold(THRESHOLD)));
        }
        return new Sim(List.of("fifo", "gang", "reservation"), ps.toArray(new Policy[0])).nodes("n", "r1", 4, 400, 4000);
    }

    /**
     * The bound: the job crosses the threshold at SUBMIT + THRESHOLD and is elected in that cycle;
     * a node is locked per cycle (several cycles per round here); the locked nodes drain within
     * RUNS. So it is placed by round (SUBMIT + THRESHOLD + RUNS) / TICK, plus one round per node
     * locked, plus one.
     */
    private static int bound(int nodes) {
        return (int) ((SUBMIT + THRESHOLD + RUNS) / Sim.TICK) + nodes + 1;
    }

    /** Case 1: a big job (a gang of 8 slots, two whole nodes) behind a stream of small ones. */
    @Test
    void aBigGangBehindAStreamOfSmallJobsIsPlacedWithinBoundedRounds() {
        List<Sim.Arrival> arrivals = merge(stream("s", 0, HORIZON, 200, 100, 0, RUNS),
                List.of(new Sim.Arrival(SUBMIT, gangJob("big", unit("w", 100, 8).build()), 30_000)));

        Sim without = sim(false);
        assertEquals(-1, without.runUntil(HORIZON, arrivals, () -> without.granted("big/w") == 8),
                "without reservation the big job starves for the whole run");
        assertEquals(0, without.granted("big/w"));

        Sim with = sim(true);
        int[] placedRound = {-1};
        String[] targetWhenPlaced = {"?"};
        long placedAt = with.runUntil(HORIZON, arrivals, () -> {
            if (placedRound[0] < 0 && with.granted("big/w") == 8) {
                placedRound[0] = with.rounds();
                targetWhenPlaced[0] = with.report().target();
            }
            return with.granted("big/w") == 8;
        });
        assertTrue(placedAt > SUBMIT + THRESHOLD, "placed after it was elected: " + placedAt);
        assertTrue(placedRound[0] > 0 && placedRound[0] <= bound(2),
                "placed in round " + placedRound[0] + ", bound " + bound(2));
        assertNull(targetWhenPlaced[0], "its reservation ended in the event that placed it");
    }

    /** Case 2: a high-priority big job (one slot of a whole node) behind lower-priority small ones. */
    @Test
    void aHighPriorityBigJobBehindLowerPrioritySmallOnesIsPlacedWithinBoundedRounds() {
        List<Sim.Arrival> arrivals = merge(stream("s", 0, HORIZON, 200, 100, 0, RUNS),
                List.of(new Sim.Arrival(SUBMIT, job("high", unit("u", 400, 1).priority(5).build()), 30_000)));

        Sim without = sim(false);
        assertEquals(-1, without.runUntil(HORIZON, arrivals, () -> without.granted("high/u") == 1),
                "without reservation the high-priority job starves for the whole run");

        Sim with = sim(true);
        int[] placedRound = {-1};
        with.runUntil(HORIZON, arrivals, () -> {
            if (placedRound[0] < 0 && with.granted("high/u") == 1) {
                placedRound[0] = with.rounds();
            }
            return with.granted("high/u") == 1;
        });
        assertTrue(placedRound[0] > 0 && placedRound[0] <= bound(1), "placed in round " + placedRound[0] + ", bound " + bound(1));
    }

    /**
     * Election: highest priority first, then the longest waiting. Two jobs have waited past the
     * threshold when the policy arrives; the high-priority one is elected although the other has
     * waited longer, and the other right after it is placed.
     */
    @Test
    void electsTheHighestPriorityThenTheLongestWaiting() {
        Sim s = new Sim(List.of("fifo", "gang", "reservation"), new FifoPolicy(), new GangPolicy())
                .nodes("n", "r1", 2, 400, 4000);
        s.submit(job("fill", unit("u", 100, 8).build()), 1_000_000);
        s.submit(job("old-low", unit("u", 400, 1).build()), 1_000_000);
        s.clock.advance(5_000);
        s.submit(job("young-high", unit("u", 400, 1).priority(3).build()), 1_000_000);
        s.submit(job("younger-low", unit("u", 400, 1).build()), 1_000_000);
        s.clock.advance(THRESHOLD);
        s.handle(new PolicyInstalled(new ReservationPolicy(ReservationOptions.DEFAULTS.withThreshold(THRESHOLD)), "test"));
        s.handle(new granary.api.event.ClockTick());
        assertEquals("young-high", s.report().target());

        s.handle(new granary.api.event.JobCancelled("young-high"));
        assertEquals("old-low", s.report().target(), "then the longest waiting of equal priority");
    }
}

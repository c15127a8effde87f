package granary.policy.gang;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;

import granary.api.model.InvalidRequestException;
import granary.api.model.JobSpec;
import granary.api.model.Locality;
import granary.api.model.UnitSpec;
import granary.api.event.ClockTick;
import granary.api.event.GrantReleased;
import granary.api.event.InputEvent;
import granary.api.event.JobCancelled;
import granary.api.event.NodeBlacklisted;
import granary.api.spi.JobView;
import granary.api.spi.UnitView;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Random arrivals and departures (seeded) of gangs, gang jobs and plain jobs of mixed shapes and
 * localities; after every event: no gang holds part of what it wants (strict mode checks the
 * engine's own invariants besides).
 */
class GangPropertyTest {

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {11, 12, 13, 14, 15})
    void noGangIsEverPartiallyGranted(long seed) {
        Random rnd = new Random(seed);
        Bench b = new Bench();
        for (int i = 0; i < 8; i++) {
            b.node("n" + i, "r" + (i % 2), 400 + 400L * rnd.nextInt(2), 4000);
        }
        int jobs = 0;
        int refused = 0;
        int gangsPlaced = 0;
        for (int step = 0; step < 600; step++) {
            b.clock.advance(100);
            int what = rnd.nextInt(10);
            try {
                if (what < 4) {
                    b.submit(randomJob("j" + jobs++, rnd));
                } else if (what < 8) {
                    releaseSome(b, rnd);
                } else if (what == 8) {
                    cancelOne(b, rnd);
                } else {
                    String node = "n" + rnd.nextInt(8);
                    b.handle(new NodeBlacklisted(node, !b.engine.view().cluster().node(node).blacklisted()));
                }
            } catch (InvalidRequestException e) {
                refused++;
                assertTrue(e.getMessage().contains("policy gang") || e.getMessage().contains("larger than every node"),
                        e.getMessage());
            }
            b.handle(new ClockTick());
            gangsPlaced += checkWholeOrNothing(b);
        }
        assertTrue(gangsPlaced > 50, "the run placed gangs: " + gangsPlaced);
        assertTrue(refused > 0, "some gangs were too large and refused");
    }

    private static JobSpec randomJob(String id, Random rnd) {
        boolean gangJob = rnd.nextInt(3) == 0;
        List<UnitSpec> units = new ArrayList<>();
        int n = gangJob ? 1 + rnd.nextInt(3) : 1;
        for (int i = 0; i < n; i++) {
            UnitSpec.Builder u = UnitSpec.builder("u" + i).slot(50L * (1 + rnd.nextInt(8)), 100L * (1 + rnd.nextInt(10)))
                    .desired(1 + rnd.nextInt(rnd.nextInt(5) == 0 ? 40 : 8)).priority(rnd.nextInt(3))
                    .allOrNothing(!gangJob && rnd.nextBoolean());
            if (rnd.nextInt(4) == 0) {
                u.prefer(Locality.room("r" + rnd.nextInt(2), 1 + rnd.nextInt(4)));
            }
            if (rnd.nextInt(4) == 0) {
                u.prefer(Locality.machine("n" + rnd.nextInt(8), 1 + rnd.nextInt(2)));
            }
            if (rnd.nextInt(3) == 0) {
                u.prefer(Locality.cluster(1 + rnd.nextInt(40)));
            }
            if (rnd.nextInt(5) == 0) {
                u.maxPerNode(1 + rnd.nextInt(3));
            }
            units.add(u.build());
        }
        return new JobSpec(id, null, null, 0, gangJob, units);
    }

    private static void releaseSome(Bench b, Random rnd) {
        List<InputEvent> releases = new ArrayList<>();
        for (JobView j : b.engine.view().jobs()) {
            for (UnitView u : j.units()) {
                for (Map.Entry<String, Integer> a : u.allocations().entrySet()) {
                    if (rnd.nextInt(6) == 0) {
                        releases.add(new GrantReleased(u.id(), a.getKey(), 1 + rnd.nextInt(a.getValue())));
                    }
                }
            }
        }
        releases.forEach(b::handle);
    }

    private static void cancelOne(Bench b, Random rnd) {
        List<? extends JobView> jobs = new ArrayList<>(b.engine.view().jobs());
        if (!jobs.isEmpty()) {
            b.handle(new JobCancelled(jobs.get(rnd.nextInt(jobs.size())).id()));
        }
    }

    /**
     * Every gang either holds all it wants or nothing: an all-or-nothing unit has granted 0 or
     * desired; a gang job's units all have or all lack their remaining slots. Returns the gangs
     * that hold their slots.
     */
    private static int checkWholeOrNothing(Bench b) {
        int whole = 0;
        for (JobView j : b.engine.view().jobs()) {
            if (j.gang()) {
                boolean anyWaiting = false;
                boolean anyPlacedSinceWaiting = false;
                for (UnitView u : j.units()) {
                    if (u.live() && u.remaining() > 0) {
                        anyWaiting = true;
                        anyPlacedSinceWaiting |= u.granted() > 0;
                    }
                }
                if (anyWaiting && anyPlacedSinceWaiting) {
                    fail("gang job " + j.id() + " holds part of its slots: " + describe(j));
                }
                if (anyWaiting && j.units().stream().anyMatch(u -> u.granted() > 0)) {
                    fail("gang job " + j.id() + " has units placed while others wait: " + describe(j));
                }
                whole += anyWaiting ? 0 : 1;
            } else {
                for (UnitView u : j.units()) {
                    if (u.allOrNothing() && u.live()) {
                        if (u.granted() > 0 && u.remaining() > 0) {
                            fail("gang " + u.id() + " holds " + u.granted() + " of " + u.desired());
                        }
                        whole += u.granted() > 0 ? 1 : 0;
                    }
                }
            }
        }
        assertEquals(b.engine.view().status().grantedSlots(), b.engine.view().jobs().stream()
                .flatMap(j -> j.units().stream()).mapToLong(UnitView::granted).sum());
        return whole;
    }

    private static String describe(JobView j) {
        StringBuilder sb = new StringBuilder();
        j.units().forEach(u -> sb.append(u.id()).append(' ').append(u.granted()).append('/').append(u.desired()).append(' '));
        return sb.toString();
    }
}

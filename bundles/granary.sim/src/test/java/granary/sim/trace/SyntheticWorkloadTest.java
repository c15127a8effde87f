package granary.sim.trace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import granary.api.model.InvalidRequestException;
import granary.sim.workload.SimJob;
import granary.sim.workload.Workload;

import org.junit.jupiter.api.Test;

/** The seeded synthetic workload: the same seed gives the same jobs; options shape them. */
class SyntheticWorkloadTest {

    private static Workload make(long seed, String... options) {
        return TraceFormat.SYNTHETIC.read(null, Files.options(options), new TraceContext(0, false, seed));
    }

    private static String fingerprint(Workload w) {
        return w.jobs().stream().map(j -> j.id() + j.group() + j.user() + j.gang() + j.units()).collect(Collectors.joining("\n"));
    }

    @Test
    void theSameSeedGivesTheSameWorkload() {
        assertEquals(fingerprint(make(7, "jobs=200")), fingerprint(make(7, "jobs=200")));
        assertNotEquals(fingerprint(make(7, "jobs=200")), fingerprint(make(8, "jobs=200")));
    }

    @Test
    void optionsShapeArrivalsSizesGroupsAndGangs() {
        Workload w = make(3, "jobs=2000", "rate=4", "slots=uniform:2:5", "duration=const:30", "cpu=const:100",
                "mem=choice:1024*3,4096", "groups=a,b", "gang=0.5", "units=uniform:1:2", "priority=uniform:0:2");
        assertEquals(2000, w.jobs().size());
        double span = w.jobs().get(w.jobs().size() - 1).arrivalMs() / 1000.0;
        assertTrue(span > 400 && span < 600, "2000 jobs at 4 per second arrive over about 500 s, got " + span);
        assertEquals(Set.of("a", "b"), w.jobs().stream().map(SimJob::group).collect(Collectors.toSet()));
        long gangs = w.jobs().stream().filter(SimJob::gang).count();
        assertTrue(gangs > 900 && gangs < 1100, "about half are gangs: " + gangs);
        w.jobs().forEach(j -> j.units().forEach(u -> {
            assertTrue(u.spec().desired() >= 2 && u.spec().desired() <= 5, u.toString());
            assertEquals(30_000, u.durationMs());
            assertEquals(100, u.spec().slot().cpu());
            assertTrue(Set.of(1024L, 4096L).contains(u.spec().slot().memMb()));
            assertTrue(u.spec().priority() >= 0 && u.spec().priority() <= 2);
        }));
        assertTrue(w.jobs().stream().anyMatch(j -> j.units().size() == 2));
    }

    @Test
    void badDistributionsAreRefusedByName() {
        String e = assertThrows(InvalidRequestException.class, () -> make(1, "slots=normal:3")).getMessage();
        assertEquals("trace synthetic: slots: 'normal:3' is not a distribution: use const:V, uniform:A:B (A <= B), exp:MEAN, "
                + "lognormal:MEDIAN:SIGMA or choice:a,b,c with numbers not below 0", e);
        assertThrows(InvalidRequestException.class, () -> make(1, "duration=uniform:5:1"));
        assertThrows(InvalidRequestException.class, () -> make(1, "rate=0"));
        assertThrows(InvalidRequestException.class, () -> make(1, "groups=a b"));
        assertEquals("synthetic(seed=1): no jobs to replay (0 rows read, 0 skipped)",
                assertThrows(TraceException.class, () -> make(1, "jobs=0")).getMessage());
    }
}

package granary.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

/**
 * A fixed-seed slice of the random schedules (the kit runs any number: docs/recovery.md). The
 * number of schedules comes from {@code -Dgranary.schedules} (default 500).
 */
class SchedulesTest {

    @Test
    void fixedSeedsFindNoViolation() {
        int n = Integer.getInteger("granary.schedules", 500);
        List<String> failed = new ArrayList<>();
        long launches = 0;
        long fenced = 0;
        // each schedule is its own world (no state shared between runs): on as many cores as there are
        List<Cases.Outcome> outcomes = LongStream.rangeClosed(1, n).parallel().mapToObj(Schedules::run).toList();
        for (long seed = 1; seed <= n; seed++) {
            Cases.Outcome o = outcomes.get((int) seed - 1);
            launches += o.counters().get("jobMasterLaunches");
            fenced += o.counters().get("fencedJobMasters");
            if (!o.passed()) {
                List<Schedules.Fault> minimal = Schedules.shrink(seed, Schedules.generate(seed));
                failed.add("seed " + seed + ", minimal faults " + minimal + ":\n    "
                        + String.join("\n    ", Schedules.run(seed, minimal).violations()));
            }
        }
        assertTrue(failed.isEmpty(), () -> failed.size() + " of " + n + " schedules failed:\n  " + String.join("\n  ", failed));
        System.out.println(n + " schedules: " + launches + " job master restarts by the master, " + fenced + " fenced incarnations refused");
        if (n >= 100) {
            // job master timeouts past 8 s are drawn often enough: the restart (case 3) is exercised at random too
            assertTrue(launches > 0 && fenced > 0, "no schedule made the master restart a job master");
        }
    }

    /**
     * Seeds beyond the suite's slice that once failed, found by the kit's 5,000-schedule runs:
     * 4736, a mock job's placeholder job master dropped when its returning job master's first
     * message was refused (its full request then hit "already running" for good, and the master
     * withdrew the online cap the agent re-registered with); 2571 and 4916, a lost job master fenced
     * at once and a master failover before its restart launched (nobody ran its jobs after).
     */
    @Test
    void seedsThatOnceFailedStayFixed() {
        // each found a fault once (docs/recovery.md, "The conformance kit"), beyond the suite's first 500
        for (long seed : new long[] {766, 869, 1017, 1642, 1694, 1853, 1876, 1995, 2374, 2545, 2571, 2624, 3191, 3207, 4411, 4643, 4736, 4916, 5048, 5191, 5254, 5603, 6978, 7537, 7578, 7831, 8097, 8254, 9040, 9847, 9916}) {
            Cases.Outcome o = Schedules.run(seed);
            assertTrue(o.passed(), () -> "seed " + seed + ":\n    " + String.join("\n    ", o.violations()));
        }
    }

    @Test
    void aScheduleIsItsSeed() {
        assertEquals(Schedules.generate(77), Schedules.generate(77));
        Cases.Outcome a = Schedules.run(77);
        Cases.Outcome b = Schedules.run(77);
        assertEquals(a.counters(), b.counters(), "the same seed must give the same run");
        assertEquals(a.violations(), b.violations());
    }
}

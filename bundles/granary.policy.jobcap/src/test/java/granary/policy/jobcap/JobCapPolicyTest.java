package granary.policy.jobcap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;

import granary.api.model.InvalidRequestException;
import granary.api.report.Report;
import granary.api.spi.JobWhy;
import granary.api.spi.ReasonTally;
import granary.testkit.ArrivalOrder;
import granary.testkit.Clocks;
import granary.testkit.Jobs;
import granary.testkit.TestEngine;

import org.junit.jupiter.api.Test;

/** A job holds at most its cap, over all its units; at the cap its units wait with JOB_CAP, which says cap and held. */
class JobCapPolicyTest {

    private static TestEngine engine(long cap) {
        TestEngine e = new TestEngine(Clocks.midnight(), List.of(ArrivalOrder.NAME, "jobcap"), List.of(ArrivalOrder.NAME), new ArrivalOrder(),
                JobCapProvider.DECLARATION.create(Map.of("maxSlots", Long.toString(cap))));
        e.nodes("n", "r1", 2, 800, 800);   // 16 one-core slots
        return e;
    }

    @Test
    void aJobGetsItsCapOverAllItsUnitsAndWaitsWithTheCapAndWhatItHolds() {
        TestEngine e = engine(5);
        e.submit(Jobs.job("wide").unit(Jobs.unit("a", 100, 100, 5).build()).unit(Jobs.unit("b", 100, 100, 4).build()).build());
        e.submit("small", Jobs.slots(3));
        e.tick();
        assertEquals(5, e.grantedToJob("wide"), "the cap, though 16 slots are there");
        assertEquals(3, e.grantedToJob("small"), "another job is not held back by it");

        JobWhy why = JobWhy.of(e.view().job("wide"), e.view().now());
        ReasonTally t = why.units().stream().filter(u -> u.remaining() > 0).findFirst().orElseThrow().reasons().get(0);
        assertEquals("JOB_CAP", t.code().name());
        assertEquals(5, t.last().limit());
        assertEquals(5, t.last().value());
        assertTrue(why.sentences().stream().anyMatch(s -> s.contains("job at its slot cap (job wide)")), why.sentences().toString());
        assertTrue(why.sentences().stream().anyMatch(s -> s.startsWith("Job wide holds its cap of slots")), why.sentences().toString());
    }

    @Test
    void releasedSlotsLetItGrowAgainUpToTheCap() {
        TestEngine e = engine(4);
        e.submit("j", Jobs.slots(10));
        e.tick();
        assertEquals(4, e.granted("j/u"));
        e.releaseSlots("j/u", 3);
        e.tick();
        assertEquals(4, e.granted("j/u"), "back to the cap, never above it");
    }

    @Test
    void theReportNamesTheCapAndEveryJobAtIt() {
        TestEngine e = engine(2);
        e.submit("a", Jobs.slots(3));
        e.submit("b", Jobs.slots(1));
        e.tick();
        Report r = JobCapProvider.capped((JobCapPolicy) e.view().policy("jobcap"), e.view());
        assertEquals(1L, ((Number) r.section("summary").rows().get(0).cell("jobs_at_cap").value()).longValue());
        assertEquals(1, r.section("jobs").rows().size());
        assertEquals("a", r.section("jobs").rows().get(0).cell("job").value());
    }

    @Test
    void aCapBelowOneIsRefusedWithItsLimitAndValue() {
        InvalidRequestException x = assertThrows(InvalidRequestException.class,
                () -> JobCapProvider.DECLARATION.settings(Map.of("maxSlots", "0")));
        assertTrue(x.getMessage().contains("maxSlots") && x.getMessage().contains("0"), x.getMessage());
    }
}

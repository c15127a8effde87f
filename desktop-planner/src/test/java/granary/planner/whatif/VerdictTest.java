package granary.planner.whatif;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Instant;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import granary.policy.quota.api.QuotaTable;
import granary.sim.run.ClassPathPolicies;
import granary.sim.trace.TraceFormat;

/** The what-if's verdict, its start time and its curves over real time (issue 26, part 2). */
class VerdictTest {

    @TempDir
    Path temp;

    @Test
    void aMeasureSaysWhichSideIsBetterAndByHowMuch() {
        Verdict.Measure timeouts = new Verdict.Measure("timeouts", "jobs", 12, 40, true);
        assertEquals(Verdict.Better.DRAFT, timeouts.better());
        assertEquals("-28 jobs (-70 %)", timeouts.differenceText());
        Verdict.Measure util = new Verdict.Measure("cpu granted while work waited", "%", 71.2, 80.5, false);
        assertEquals(Verdict.Better.IN_FORCE, util.better());
        assertEquals("-9.3 %", util.differenceText());
        Verdict.Measure same = new Verdict.Measure("slots preempted", "slots", 0, 0, true);
        assertEquals(Verdict.Better.SAME, same.better());
        assertEquals("no difference", same.differenceText());

        Verdict v = new Verdict(List.of(timeouts, util, same));
        assertEquals("Neither table is better: the draft wins 1 of 3 measures, the table in force 1, 1 is a tie. "
                + "Timeouts: 12 jobs with the draft against 40 jobs in force: -28 jobs (-70 %).", v.sentence());
    }

    /**
     * two-groups.json: a1, a2 (group a, 100 s each) and b1 at trace time 0. The table in force holds
     * a to one slot from 14:00 to 15:00 only. Replayed from midnight the two tables do the same; from
     * 14:00 the table in force makes a2 wait 100 s, and the verdict says the draft is better.
     */
    @Test
    void theStartTimeOfDayDecidesWhichSliceTheReplayMeetsAndTheVerdictSaysSo() {
        QuotaTable draft = Tables.maxima("a", 4, "b", 4);
        QuotaTable inForce = Tables.read("{\"default\": {\"a\": {\"GroupId\": 1, \"MaxQuota\": 4, \"MinQuota\": 0},"
                + " \"b\": {\"GroupId\": 2, \"MaxQuota\": 4, \"MinQuota\": 0}},"
                + " \"14-15\": {\"a\": {\"GroupId\": 1, \"MaxQuota\": 1, \"MinQuota\": 0},"
                + " \"b\": {\"GroupId\": 2, \"MaxQuota\": 4, \"MinQuota\": 0}}}");
        WhatIfService service = new WhatIfService(new ClassPathPolicies(), temp);
        WhatIfRequest base = WhatIfRequest.of(Tables.TWO_GROUPS, TraceFormat.JSON, draft, inForce).withGroups(GroupAssignment.asInTrace());

        WhatIfResult midnight = service.run(base, WhatIfProgress.NONE);
        assertEquals(0, midnight.inForce().timeouts(), "at midnight the default slice is in force");
        Verdict tie = Verdict.of(midnight);
        assertEquals(0, tie.count(Verdict.Better.DRAFT), tie.measures().toString());
        assertEquals(0, tie.count(Verdict.Better.IN_FORCE), tie.measures().toString());

        long afternoon = Instant.parse("2026-11-27T14:00:00Z").toEpochMilli();
        WhatIfResult r = service.run(base.withStart(afternoon), WhatIfProgress.NONE);
        assertEquals(1, r.inForce().timeouts(), "from 14:00 the 14-15 slice holds a to one slot: a2 waits");
        assertEquals(0, r.draft().timeouts());
        Verdict v = Verdict.of(r);
        Verdict.Measure t = v.measures().get(0);
        assertEquals("timeouts: jobs that waited more than 10 s for resources", t.name());
        assertEquals(Verdict.Better.DRAFT, t.better());
        assertEquals("-1 jobs (-100 %)", t.differenceText());
        Verdict.Measure p99 = v.measures().get(3);
        assertEquals("job wait p99", p99.name());
        assertEquals(0, p99.draft());
        assertEquals(100, p99.inForce());
        assertTrue(v.measures().stream().anyMatch(m -> m.name().equals("a: time below its MinQuota with work waiting")));
        assertEquals("slots preempted (taken back from running work)", v.measures().get(v.measures().size() - 1).name());
        assertTrue(v.sentence().startsWith("The draft is better: the draft wins "), v.sentence());
        // the by-hour means are placed at 14:00, not at midnight
        assertEquals(0.3125, r.inForce().cpuByHour().get(14), 1e-9);
        assertTrue(r.inForce().cpuByHour().get(0).isNaN());
    }

    @Test
    void minAndMaxOverRealTimeComeFromTheSliceInForceAtEachMomentAcrossDays() {
        QuotaTable t = Tables.read("{\"default\": {\"a\": {\"GroupId\": 1, \"MaxQuota\": 4, \"MinQuota\": 1}},"
                + " \"22-2\": {\"a\": {\"GroupId\": 1, \"MaxQuota\": 9, \"MinQuota\": 3}}}");
        // from 21:30, 26.8 hours: default until 22:00 (0.5 h), 22-2 until 02:00 (4.5 h), default until 22:00
        // the next day (24.5 h), then 22-2 to the end
        Curve max = Summaries.quotaCurve(t, "a", 21 * 3600 + 1800, 26.8, false);
        assertEquals(4, max.at(0.2));
        assertEquals(9, max.at(0.6));
        assertEquals(9, max.at(4.4));
        assertEquals(4, max.at(4.6));
        assertEquals(4, max.at(24.4));
        assertEquals(9, max.at(24.6));
        assertEquals(26.8, max.hours().get(max.size() - 1), 1e-9, "drawn to the replay's end, not folded onto a day");
        Curve min = Summaries.quotaCurve(t, "a", 21 * 3600 + 1800, 26.8, true);
        assertEquals(3, min.at(1));
        assertEquals(0, Summaries.quotaCurve(t, "nobody", 0, 5, false).at(1), "a group the slice does not name has nothing");
    }
}

package granary.sim.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import granary.sim.metrics.SizeClasses;
import granary.sim.metrics.Stats;
import granary.sim.report.SummaryText;
import granary.sim.trace.TraceFormat;
import granary.testkit.TestFiles;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The metrics on small scenarios computed by hand. One node of 4 cores / 4 GiB:
 * <pre>
 *  a (g1) t=0   2 slots of 1 core / 1 GiB for 10 s   runs 0-10
 *  b (g1) t=0   1 slot  of 3 cores / 2 GiB for 20 s  does not fit until a and c end: waits 10 s, runs 10-30
 *  c (g2) t=5   1 slot  of 1 core / 1 GiB for 5 s    fits at once, runs 5-10
 *  d (g2) t=12  1 slot  of 2 cores / 1 GiB for 5 s   waits for b: 18 s, runs 30-35
 * </pre>
 * cpu used: 2 cores for 5 s, 3 for 5 s, 3 for 20 s, 2 for 5 s = 95 core-seconds of 4 × 35 = 140;
 * memory: 2 GiB · 5 + 3 · 5 + 2 · 20 + 1 · 5 = 70 GiB-seconds of 4 × 35 = 140.
 */
class MetricsTest {

    static final String WORKLOAD = """
            {"nodes": [{"name": "n1", "capacity": {"cpu": 400, "mem": 4096}}],
             "jobs": [
              {"id": "a", "group": "g1", "submit": 0, "units": [{"name": "u", "slot": {"cpu": 100, "mem": 1024}, "desired": 2, "duration": 10}]},
              {"id": "b", "group": "g1", "submit": 0, "units": [{"name": "u", "slot": {"cpu": 300, "mem": 2048}, "desired": 1, "duration": 20}]},
              {"id": "c", "group": "g2", "submit": 5, "units": [{"name": "u", "slot": {"cpu": 100, "mem": 1024}, "desired": 1, "duration": 5}]},
              {"id": "d", "group": "g2", "submit": 12, "units": [{"name": "u", "slot": {"cpu": 200, "mem": 1024}, "desired": 1, "duration": 5}]}
             ]}
            """;

    @TempDir
    Path dir;

    private RunResult run(String sets, SimSettings settings) throws IOException {
        Path w = TestFiles.write(dir, "w.json", WORKLOAD);
        return Sims.run(Sims.request(TraceFormat.JSON, w, Map.of(), List.of(), sets, settings.withSampleMs(10_000), 1)).runs().get(0);
    }

    @Test
    void utilisationWaitsAndTimeouts() throws IOException {
        RunResult r = run("fifo", Sims.strict());
        assertEquals(35_000, r.simulatedMs());
        assertEquals(95.0 / 140, r.utilisation().get("cpu"), 1e-12);
        assertEquals(0.5, r.utilisation().get("mem"), 1e-12);
        assertEquals(new Stats(4, 7_000, 0, 18_000, 18_000, 18_000), r.waits().units());
        assertEquals(new Stats(4, 7_000, 0, 18_000, 18_000, 18_000), r.waits().jobs());
        assertEquals(new Stats(5, 5_600, 0, 18_000, 18_000, 18_000), r.waits().slots(), "a's two slots wait 0");
        assertEquals(List.of(new SizeClasses.SizeClass(1, 1, new Stats(3, 28_000 / 3.0, 10_000, 18_000, 18_000, 18_000)),
                new SizeClasses.SizeClass(2, 10, new Stats(1, 0, 0, 0, 0, 0))), r.waits().jobsBySize(),
                "one-slot jobs b, c, d wait 10, 0 and 18 s; a, of two slots, 0");
        assertEquals(List.of("1", "2-10"), r.waits().jobsBySize().stream().map(SizeClasses.SizeClass::label).toList());
        assertEquals(new RunResult.Timeouts(10_000, 1, 0.25, 1), r.timeouts(), "b waits exactly 10 s: not over; d waits 18 s");
        assertEquals(new RunResult.Jobs(4, 0, 4, 0, 4, 0, 0, Map.of(), List.of()), r.jobs());
        assertEquals(1L, r.groups().get("g2").timeouts());
        assertEquals(0L, r.groups().get("g1").timeouts());
        // while something waits (b 0-10 s, d 12-30 s: 28 s): cpu 2·5 + 3·5 + 3·18 = 79 core-s of 4 × 28,
        // memory 2·5 + 3·5 + 2·18 = 61 GiB-s of 4 × 28
        assertEquals(28.0, r.backlog().seconds(), 1e-9);
        assertEquals(79.0 / 112, r.backlog().utilisation().get("cpu"), 1e-12);
        assertEquals(61.0 / 112, r.backlog().utilisation().get("mem"), 1e-12);
        RunResult strict = run("fifo", Sims.strict().withTimeoutMs(5_000));
        assertEquals(2, strict.timeouts().jobs(), "with a 5 s threshold b times out too");
    }

    @Test
    void fragmentationAndTheTimeSeries() throws IOException {
        RunResult r = run("fifo", Sims.strict());
        // samples at 10, 20, 30 s, each before that instant's events: at 10 b waits (3 cores) and a, c leave
        // 1 core and 1 GiB free: stranded; at 20 and 30 d waits (2 cores) and b leaves 1 core, 2 GiB: stranded
        assertEquals(0.25, r.strandedShare().get("cpu"), 1e-12);
        assertEquals((0.25 + 0.5 + 0.5) / 3, r.strandedShare().get("mem"), 1e-12);
        assertEquals(List.of("time_s", "cpu_util", "mem_util", "running_slots", "waiting_units", "waiting_slots",
                "stranded_cpu_share", "stranded_mem_share", "jobs_submitted", "unit_timeouts_so_far"), r.series().header());
        assertEquals(List.of("10,0.625,0.625,3,1,1,0.25,0.25,3,0", "20,0.75,0.5,1,1,1,0.25,0.5,4,0", "30,0.75,0.5,1,1,1,0.25,0.5,4,0"),
                r.series().rows());
    }

    @Test
    void perGroupUsageMatchesTheQuotaPolicysBilling() throws IOException {
        String table = "{\"default\": {\"g1\": {\"GroupId\": 1, \"MaxQuota\": 100, \"MinQuota\": 0},"
                + " \"g2\": {\"GroupId\": 2, \"MaxQuota\": 100, \"MinQuota\": 0}}}";
        SimSettings s = Sims.strict().withPolicyOption("quota", "tableFile", granary.testkit.TestFiles.write(dir, "q.json", table).toString(), "--quota");
        RunResult r = run("quota", s);
        assertEquals(new RunResult.GroupRow(2, 0, 40, 80, 60, 2), r.groups().get("g1"));
        assertEquals(new RunResult.GroupRow(2, 1, 10, 15, 10, 1), r.groups().get("g2"));
        assertEquals(List.of("day", "slice", "group", "slot_seconds", "cpu_core_seconds", "mem_gib_seconds"),
                r.reportTables().get("billing").header());
        assertEquals(List.of("2024-01-01,default,g1,40,80,60", "2024-01-01,default,g2,10,15,10"), r.reportTables().get("billing").rows());
        assertEquals(1, r.timeouts().jobs(), "same schedule as FIFO: nothing competes for the node");
    }

    /**
     * Preemption by the quota policy: x (g1, min 0) holds all 4 slots for 100 s; y (g2, below its
     * min 2) arrives at 10 s and takes 2 of them back. The 2 killed tasks lose 10 s each and run again
     * from 20 s, when y is done: revocations 2 slots, 20 slot-seconds lost, the end at 120 s.
     */
    @Test
    void revocationsAndLostWork() throws IOException {
        RunResult r = preemption("5");
        assertEquals(new RunResult.Revocations(2, 20.0), r.revocations());
        assertEquals(120_000, r.simulatedMs());
        assertEquals(0, r.timeouts().jobs(), "y is placed at once by preemption");
        assertEquals(new Stats(8, 2_500, 0, 10_000, 10_000, 10_000), r.waits().slots(),
                "8 slot grants: x 4 and y 2 at once, the two killed slots again after 10 s");
        assertEquals(2, r.jobs().finished());
        assertEquals(2, r.groups().get("g1").revokedSlots());
        assertEquals(0.0, r.groups().get("g2").belowMinSeconds(), "placed the moment it asked");
        RunResult.GroupRow g1 = r.groups().get("g1");
        assertEquals(20.0, g1.lostSlotSeconds(), 1e-9, "the work lost is x's, the group preempted");
        assertEquals(40 + 2 * 90 + 2 * 100, g1.slotSeconds(), 1e-9, "4 slots to 10 s, 2 to 100 s, the 2 killed again 20-120 s");
        assertEquals(20.0 / 420, g1.lostShare(), 1e-12);
        assertEquals(0.0, r.groups().get("g2").lostSlotSeconds());
        String summary = SummaryText.of(Sims.run(Sims.request(TraceFormat.JSON, dir.resolve("p.json"), Map.of(),
                List.of(), "quota", settings("5"), 1)));
        assertTrue(summary.lines().anyMatch(l -> l.startsWith("  g1: work lost (slot-s, of its slot-s)") && l.endsWith(" 20 (4.762%)")),
                summary);
        assertTrue(summary.lines().anyMatch(l -> l.startsWith("work lost to revocations") && l.endsWith(" 20 (4.545%)")),
                "of the 440 slot-seconds held by both groups: " + summary);
    }

    /**
     * The same with the default minimum run time of 60 s: x's grants may be taken only at 60 s, so y
     * (g2) waits below its min with demand from 10 to 60 s: 50 s, in one stretch.
     */
    @Test
    void timeBelowMinWithDemandCountsTheMinimumRunTime() throws IOException {
        RunResult r = preemption("60");
        assertEquals(2, r.revocations().slots());
        assertEquals(50.0, r.groups().get("g2").belowMinSeconds(), 1e-9);
        assertEquals(50.0, r.groups().get("g2").longestBelowMinSeconds(), 1e-9);
        assertEquals(0.0, r.groups().get("g1").belowMinSeconds(), "g1's min is 0");
        assertEquals(0.0, r.groups().get("g1").overMaxSeconds());
        assertEquals(1, r.groups().get("g2").stretchesOverBound(), "50 s is over the 20 s the guarantee allows");
        RunResult.Stretch st = r.groups().get("g2").stretches().get(0);
        assertEquals(List.of(10.0, 50.0), List.of(st.startSeconds(), st.seconds()));
        assertEquals("quota: victims younger than minRunSeconds", st.cause(), "x's grants are younger than 60 s until 60 s");
        assertEquals(0, preemption("5").groups().get("g2").stretchesOverBound(), "placed the moment it asked");
    }

    private RunResult preemption(String minRunSeconds) throws IOException {
        Path w = TestFiles.write(dir, "p.json", """
                {"nodes": [{"name": "n1", "capacity": {"cpu": 400, "mem": 4096}}],
                 "jobs": [
                  {"id": "x", "group": "g1", "units": [{"name": "u", "slot": {"cpu": 100, "mem": 1}, "desired": 4, "duration": 100}]},
                  {"id": "y", "group": "g2", "submit": 10, "units": [{"name": "u", "slot": {"cpu": 100, "mem": 1}, "desired": 2, "duration": 10}]}
                 ]}
                """);
        return Sims.run(Sims.request(TraceFormat.JSON, w, Map.of(), List.of(), "quota", settings(minRunSeconds), 1)).runs().get(0);
    }

    private SimSettings settings(String minRunSeconds) throws IOException {
        String table = "{\"default\": {\"g1\": {\"GroupId\": 1, \"MaxQuota\": 4, \"MinQuota\": 0},"
                + " \"g2\": {\"GroupId\": 2, \"MaxQuota\": 4, \"MinQuota\": 2}}}";
        return Sims.strict().withPolicyOption("quota", "tableFile", granary.testkit.TestFiles.write(dir, "q.json", table).toString(), "--quota")
                .withPolicyOption("quota", "minRunSeconds", minRunSeconds, "--option quota.minRunSeconds");
    }
}

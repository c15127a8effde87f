package granary.sim.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import granary.sim.trace.TraceFormat;
import granary.sim.trace.TraceLimits;
import granary.testkit.TestFiles;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A replay cannot sample for ever, and stops when its thread is interrupted. */
class RunawayReplayTest {

    /** One node of 1 core and 100 jobs of 1 core for 100 s, all at 0: the trace spans 100 s, the replay 10,000 s. */
    private static String backlog() {
        StringBuilder sb = new StringBuilder("{\"nodes\": [{\"name\": \"n1\", \"capacity\": {\"cpu\": 100, \"mem\": 1024}}], \"jobs\": [");
        for (int i = 0; i < 100; i++) {
            sb.append(i == 0 ? "" : ",").append("{\"id\": \"j").append(i).append("\", \"units\": [{\"name\": \"u\", "
                    + "\"slot\": {\"cpu\": 100, \"mem\": 1}, \"desired\": 1, \"duration\": 100}]}");
        }
        return sb.append("]}").toString();
    }

    @TempDir
    Path dir;

    @Test
    void aUnitWaitingAcrossAYearLongGapStopsTheClockTicksAfterTheIdleLimit() {
        // "hog" holds the one node for 347 days and "wait" (arriving at 1 s) waits behind it; nothing else happens until
        // then: at one tick a second that would be 30 million ticks, all alike
        Path w = TestFiles.write(dir, "gap.json", "{\"nodes\": [{\"name\": \"n1\", \"capacity\": {\"cpu\": 100, \"mem\": 1024}}],"
                + " \"jobs\": [{\"id\": \"hog\", \"submit\": 0, \"units\": [{\"name\": \"u\", \"slot\": \"cpu=100\","
                + " \"desired\": 1, \"duration\": 30000000}]},"
                + " {\"id\": \"wait\", \"submit\": 1, \"units\": [{\"name\": \"u\", \"slot\": \"cpu=100\","
                + " \"desired\": 1, \"duration\": 60}]}]}");
        RunResult r = Sims.run(Sims.request(TraceFormat.JSON, w, Map.of(), List.of(), "fifo",
                SimSettings.DEFAULTS.withTickMs(1_000).withIdleLimitMs(3_600_000), 1)).runs().get(0);
        assertTrue(r.notes().stream().anyMatch(n -> n.startsWith("t=3602s: clock ticks paused until the next arrival or end")),
                r.notes().toString());
        assertEquals(2, r.jobs().submitted());
    }

    @Test
    void aCutThatLeavesNoJobIsAnError() {
        Path w = TestFiles.write(dir, "late.json", "{\"nodes\": [{\"name\": \"n1\", \"capacity\": {\"cpu\": 100, \"mem\": 1024}}],"
                + " \"jobs\": [{\"id\": \"late\", \"submit\": 7200, \"units\": [{\"name\": \"u\", \"slot\": \"cpu=100\","
                + " \"desired\": 1, \"duration\": 60}]}]}");
        Replay.Request until = new Replay.Request(TraceFormat.JSON, w, Map.of(), List.of(), Sims.request(TraceFormat.JSON, w,
                Map.of(), List.of(), "fifo", SimSettings.DEFAULTS, 1).sets(), SimSettings.DEFAULTS, 1, Long.MAX_VALUE, 3_600_000);
        granary.api.model.InvalidRequestException e = org.junit.jupiter.api.Assertions.assertThrows(
                granary.api.model.InvalidRequestException.class, () -> Replay.load(until, Sims.POLICIES));
        assertTrue(e.getMessage().contains("leave no job of the 1 in late.json to replay (the first arrives at 7200 s)"),
                e.getMessage());
    }

    @Test
    void aTooFineSampleIntervalIsWidenedToTheCap() {
        Path w = TestFiles.write(dir, "w.json", "{\"nodes\": [{\"name\": \"n1\", \"capacity\": {\"cpu\": 100, \"mem\": 1024}}],"
                + " \"jobs\": [{\"id\": \"late\", \"submit\": 283824000, \"units\": [{\"name\": \"u\", \"slot\": \"cpu=100\","
                + " \"desired\": 1, \"duration\": 60}]}]}");   // arrives after 9 years
        RunResult r = Sims.run(Sims.request(TraceFormat.JSON, w, Map.of(), List.of(), "fifo",
                SimSettings.DEFAULTS.withSampleMs(1_000), 1)).runs().get(0);
        assertTrue(r.series().rows().size() <= TraceLimits.MAX_SAMPLES / 2 + 1, "rows: " + r.series().rows().size());
        assertTrue(r.notes().contains("--sample-seconds 1.0: 283824060 samples over the trace's span of 283824060 s, more than "
                + "50000 (half the cap of 100000): sampled every 5677 s"), r.notes().toString());
    }

    @Test
    void aRunOutlastingItsPlanSamplesLessOftenAndStaysUnderTheCap() {
        Replay.Report loaded = load(SimSettings.DEFAULTS.withSampleMs(1_000));
        RunResult r = simulate(loaded, 100);
        assertEquals(10_000_000, r.simulatedMs(), "the backlog drains one job at a time");
        assertTrue(r.series().rows().size() <= 100, "rows: " + r.series().rows().size());
        assertTrue(r.notes().stream().anyMatch(n -> n.startsWith("time series: the run outlasted its planned samples at t=102s")),
                r.notes().toString());
    }

    @Test
    void anInterruptStopsTheReplayBetweenEvents() {
        Replay.Report loaded = load(SimSettings.DEFAULTS);
        Thread.currentThread().interrupt();
        try {
            ReplayCancelledException e = assertThrows(ReplayCancelledException.class, () -> simulate(loaded, TraceLimits.MAX_SAMPLES));
            assertEquals("replay cancelled at t=0s of set fifo (0 of 100 jobs arrived)", e.getMessage());
            assertTrue(Thread.currentThread().isInterrupted(), "the interrupt is kept for the caller");
        } finally {
            Thread.interrupted();
        }
        assertFalse(Thread.currentThread().isInterrupted());
    }

    private Replay.Report load(SimSettings settings) {
        Path w = TestFiles.write(dir, "w.json", backlog());
        return Replay.load(Sims.request(TraceFormat.JSON, w, Map.of(), List.of(), "fifo", settings, 1), Sims.POLICIES);
    }

    private static RunResult simulate(Replay.Report loaded, long maxSamples) {
        PolicySetup.Prepared p = PolicySetup.prepare(loaded.request().sets().get(0), Sims.POLICIES, false, List.of());
        try {
            return new Simulation(loaded.workload(), loaded.nodes(), p, loaded.request().settings(), Progress.NONE, 0, 1)
                    .maxSamples(maxSamples).run();
        } finally {
            p.release();
        }
    }
}

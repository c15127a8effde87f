package granary.planner.whatif;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import granary.policy.quota.api.QuotaTable;
import granary.sim.run.ClassPathPolicies;
import granary.sim.run.ReplayCancelledException;
import granary.sim.trace.TraceFormat;

/** The what-if on the real simulator and policies, without a screen. */
class WhatIfServiceTest {

    @TempDir
    Path temp;

    private WhatIfService service() {
        return new WhatIfService(new ClassPathPolicies(), temp);
    }

    /**
     * The real Alibaba 2017 trace, its first 100 jobs hashed into four groups on 400 nodes: the draft lets
     * every group hold 100,000 slots, the table in force lets {@code ads} hold 100. Under the table in
     * force {@code ads} never holds more than 100 slots and its jobs time out more; the others lose
     * nothing to it. Both sides replay every job to its end, and ads is billed the same work on both.
     */
    @Test
    void aLowerMaxForOneGroupMakesItsJobsWaitLongerOnTheRealAlibabaTrace() throws IOException {
        QuotaTable draft = Tables.maxima("ads", 100_000, "batch", 100_000, "etl", 100_000, "search", 100_000);
        QuotaTable inForce = Tables.maxima("ads", 100, "batch", 100_000, "etl", 100_000, "search", 100_000);
        List<Double> fractions = new ArrayList<>();
        WhatIfResult r = service().run(WhatIfRequest.of(Tables.ALIBABA_2017, TraceFormat.ALIBABA_2017, draft, inForce)
                .withCluster("nodes=400,cpu=6400,mem=262144").withMaxJobs(100), (f, m) -> fractions.add(f));

        assertEquals(100, r.jobs());
        for (RunSummary s : List.of(r.draft(), r.inForce())) {
            assertEquals(100, s.jobs(), s.label());
            assertEquals(0, s.refused(), s.label() + ": " + r.notes());
            assertEquals(100, s.finished(), s.label() + ": every job ran to its end");
            assertEquals(List.of("ads", "batch", "etl", "search"), List.copyOf(s.groups().keySet()),
                    "jobs hashed into the tables' groups, named as the tables name them");
            assertEquals(24, s.cpuByHour().size());
        }
        GroupSummary adsDraft = r.draft().groups().get("ads");
        GroupSummary adsInForce = r.inForce().groups().get("ads");
        assertTrue(adsDraft.jobs() > 0 && adsDraft.jobs() == adsInForce.jobs(), "the same ads jobs on both sides");
        assertTrue(adsInForce.peakSlots() <= 100, "the table in force holds ads to 100 slots: " + adsInForce.peakSlots());
        assertTrue(adsDraft.peakSlots() > 100, "the draft lets ads take more: " + adsDraft.peakSlots());
        assertTrue(adsInForce.timeouts() > adsDraft.timeouts(),
                "ads times out more under the table in force: " + adsInForce.timeouts() + " vs " + adsDraft.timeouts());
        assertTrue(r.inForce().timeouts() > r.draft().timeouts());
        assertTrue(r.inForce().jobWaits().p90() > r.draft().jobWaits().p90());
        assertEquals(100.0, adsInForce.maxByHour().get(0), 1e-9, "MaxQuota in force, by hour");
        assertEquals(100_000.0, adsDraft.maxByHour().get(0), 1e-9);
        assertTrue(adsInForce.usedByHour().stream().filter(v -> !v.isNaN()).allMatch(v -> v <= 100));
        assertTrue(adsDraft.usedByHour().stream().filter(v -> !v.isNaN()).anyMatch(v -> v > 100));
        assertTrue(adsDraft.billedSlotSeconds() > 0);
        assertEquals(adsDraft.billedSlotSeconds(), adsInForce.billedSlotSeconds(), adsDraft.billedSlotSeconds() * 1e-9,
                "no preemption (every min is 0): the same work is billed, only later");
        assertEquals(r.draft().run().groups().get("g0").slotSeconds(), adsDraft.billedSlotSeconds(), 1e-6,
                "the quota policy's billing matches the simulator's own integral");

        assertFalse(fractions.isEmpty());
        assertEquals(1.0, fractions.get(fractions.size() - 1));
        for (int i = 1; i < fractions.size(); i++) {
            assertTrue(fractions.get(i) >= fractions.get(i - 1), "progress never goes back: " + fractions);
        }
        assertTrue(noFilesIn(temp), "the tables' temporary files are deleted");
    }

    /**
     * A trace small enough to know every number: a1, a2 (group a) and b1 (group b) on one 4-core node.
     * The draft lets a hold 4 slots, the table in force 1: a2 waits 100 s for a1's slot.
     */
    @Test
    void everyNumberOfATinyTrace() {
        WhatIfResult r = service().run(WhatIfRequest.of(Tables.TWO_GROUPS, TraceFormat.JSON, Tables.maxima("a", 4, "b", 4),
                Tables.maxima("a", 1, "b", 4)).withGroups(GroupAssignment.asInTrace()), WhatIfProgress.NONE);
        RunSummary d = r.draft();
        RunSummary f = r.inForce();
        assertEquals(3, r.jobs());
        assertTrue(r.workerForm());
        assertEquals(0, d.timeouts());
        assertEquals(1, f.timeouts());
        assertEquals(1, f.groups().get("a").timeouts());
        assertEquals(0, f.groups().get("b").timeouts());
        assertEquals(100_000, f.jobWaits().p99());
        assertEquals(0, d.jobWaits().p99());
        // draft: 3 slots of 4 for 50 s, then 2 for 50 s; in force: 2, then 1 for 150 s — all in hour 0
        assertEquals(0.625, d.cpuByHour().get(0), 1e-9);
        assertEquals(0.3125, f.cpuByHour().get(0), 1e-9);
        assertTrue(d.cpuByHour().subList(1, 24).stream().allMatch(v -> v.isNaN()), "no time after hour 0");
        assertEquals(2.0, d.groups().get("a").usedByHour().get(0), 1e-9);
        assertEquals(1.0, f.groups().get("a").usedByHour().get(0), 1e-9);
        assertEquals(0.5, d.groups().get("b").usedByHour().get(0), 1e-9);
        assertEquals(0.25, f.groups().get("b").usedByHour().get(0), 1e-9);
        assertEquals(4.0, d.groups().get("a").maxByHour().get(0), 1e-9);
        assertEquals(1.0, f.groups().get("a").maxByHour().get(0), 1e-9);
        assertEquals(0.0, f.groups().get("a").minByHour().get(0), 1e-9);
        for (RunSummary s : List.of(d, f)) {
            assertEquals(200.0, s.groups().get("a").billedSlotSeconds(), 1e-9, s.label());
            assertEquals(200.0, s.groups().get("a").billedCoreSeconds(), 1e-9, s.label());
            assertEquals(50.0, s.groups().get("b").billedSlotSeconds(), 1e-9, s.label());
            assertEquals(3, s.finished());
        }
    }

    /** Cancelling is interrupting the thread: the replay stops at once, nothing is returned, nothing left behind. */
    @Test
    void anInterruptedWhatIfStopsPromptlyAndCleansUp() throws InterruptedException, IOException {
        // the whole Alibaba trace on 20 nodes: minutes of replay if it were not cancelled
        WhatIfRequest long_ = WhatIfRequest.of(Tables.ALIBABA_2017, TraceFormat.ALIBABA_2017,
                Tables.maxima("ads", 100_000, "batch", 100_000), Tables.maxima("ads", 100, "batch", 100_000))
                .withCluster("nodes=20,cpu=6400,mem=262144").withMaxJobs(3000);
        CountDownLatch replaying = new CountDownLatch(1);
        AtomicReference<Throwable> outcome = new AtomicReference<>();
        WhatIfService service = service();
        Thread t = new Thread(() -> {
            try {
                service.run(long_, (f, m) -> {
                    if (m.startsWith("replaying through")) {
                        replaying.countDown();
                    }
                });
                outcome.set(new AssertionError("the replay ended without being cancelled"));
            } catch (Throwable e) {
                outcome.set(e);
            }
        }, "whatif-cancel-test");
        t.start();
        assertTrue(replaying.await(60, TimeUnit.SECONDS), "the replay reports progress");
        long interrupted = System.nanoTime();
        t.interrupt();
        t.join(10_000);
        assertFalse(t.isAlive(), "the replay stopped within 10 s of the interrupt");
        assertTrue(System.nanoTime() - interrupted < TimeUnit.SECONDS.toNanos(10));
        assertInstanceOf(ReplayCancelledException.class, outcome.get());
        assertTrue(noFilesIn(temp), "the tables' temporary files are deleted");
    }

    @Test
    void aMalformedTraceIsRefusedNamingTheFileLineAndColumn() throws IOException {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> service().run(
                WhatIfRequest.of(Tables.MALFORMED, TraceFormat.ALIBABA_2017, Tables.maxima("a", 1), Tables.maxima("a", 1))
                        .withCluster("nodes=2,cpu=6400,mem=262144"), WhatIfProgress.NONE));
        assertTrue(e.getMessage().contains("malformed-batch_task.csv:2:"), e.getMessage());
        assertTrue(noFilesIn(temp));
    }

    @Test
    void theUnitOrdersAreThePoliciesOfTheClassPathThatOrderUnits() {
        List<String> orders = service().unitOrders();
        assertTrue(orders.containsAll(List.of("fifo", "fair", "submitwindow", "sjf")), orders.toString());
        assertFalse(orders.contains("quota"), orders.toString());
    }

    @Test
    void hashingKeepsTablesNamedAsTheSimulatorHashesAndNumbersOthersInOrder() {
        TableGroups hashNames = TableGroups.of(Tables.maxima("g1", 1, "g0", 1, "g10", 1, "g2", 1, "g3", 1, "g4", 1, "g5", 1,
                "g6", 1, "g7", 1, "g8", 1, "g9", 1), Tables.maxima("g0", 1), GroupAssignment.hashIntoTableGroups());
        assertEquals("g10", hashNames.tableName("g10"));
        assertEquals("g2", hashNames.tableName("g2"));
        TableGroups named = TableGroups.of(Tables.maxima("search", 1, "ads", 1), Tables.maxima("etl", 1),
                GroupAssignment.hashIntoTableGroups());
        assertEquals(List.of("ads", "etl", "search"), named.names());
        assertEquals("etl", named.tableName("g1"));
        assertNotNull(named.forReplay(Tables.maxima("etl", 1)).groups(granary.policy.quota.api.TimeSlice.DEFAULT).get("g1"));
        assertEquals("hash:3", TableGroups.traceOption(GroupAssignment.hashIntoTableGroups(), named.size()));
        assertEquals("user", TableGroups.traceOption(GroupAssignment.rule(" user "), 3));
        assertEquals(null, TableGroups.traceOption(GroupAssignment.asInTrace(), 3));
    }

    private static boolean noFilesIn(Path dir) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.findAny().isEmpty();
        }
    }
}

package granary.planner.whatif;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import granary.sim.run.ClassPathPolicies;
import granary.sim.trace.TraceFormat;

/**
 * The view model without a screen: its UI executor runs the worker's news at once ({@code Runnable::run}),
 * and each test waits, bounded, for the run to end.
 */
class WhatIfViewModelTest {

    @TempDir
    Path temp;

    private WhatIfViewModel vm;

    @BeforeEach
    void tinyWhatIf() {
        vm = new WhatIfViewModel(Runnable::run, new WhatIfService(new ClassPathPolicies(), temp));
        vm.draftProperty().set(Tables.maxima("a", 4, "b", 4));
        vm.inForceProperty().set(Tables.maxima("a", 1, "b", 4));
        vm.groupsProperty().set(GroupAssignment.asInTrace());
        vm.traceProperty().set(Tables.TWO_GROUPS);
    }

    /** Runs and waits for the end (at most 60 s). */
    private void runToTheEnd() throws InterruptedException {
        CountDownLatch ended = new CountDownLatch(1);
        vm.runningProperty().addListener((o, was, is) -> {
            if (!is) {
                ended.countDown();
            }
        });
        vm.run();
        assertTrue(ended.await(60, TimeUnit.SECONDS), "the what-if ended; status: " + vm.statusProperty().get());
    }

    @Test
    void aRunReportsProgressToOneThenSetsTheResult() throws InterruptedException {
        List<Double> progress = new CopyOnWriteArrayList<>();
        vm.progressProperty().addListener((o, was, is) -> progress.add(is.doubleValue()));
        assertEquals(TraceFormat.JSON, vm.formatProperty().get(), "the format the file's name tells");
        runToTheEnd();
        assertFalse(vm.runningProperty().get());
        assertEquals(1.0, vm.progressProperty().get());
        WhatIfResult r = vm.resultProperty().get();
        assertNotNull(r);
        assertEquals(3, r.jobs());
        assertEquals(1, r.inForce().timeouts(), "a2 waits for a's one slot under the table in force");
        assertTrue(vm.statusProperty().get().startsWith("done in "), vm.statusProperty().get());
        assertTrue(vm.statusProperty().get().contains("3 jobs of two-groups.json"), vm.statusProperty().get());
        for (int i = 1; i < progress.size(); i++) {
            assertTrue(progress.get(i) >= progress.get(i - 1), "progress never goes back: " + progress);
        }
    }

    @Test
    void runRefusesWhatIsMissingAndSaysWhat() {
        vm.draftProperty().set(null);
        vm.run();
        assertEquals("cannot run: no draft table: draw a valid table in the editor", vm.statusProperty().get());
        vm.draftProperty().set(Tables.maxima("a", 4));
        vm.inForceProperty().set(null);
        vm.run();
        assertEquals("cannot run: no table in force: import one from a master", vm.statusProperty().get());
        vm.inForceProperty().set(Tables.maxima("a", 4));
        vm.traceProperty().set(null);
        vm.run();
        assertTrue(vm.statusProperty().get().startsWith("cannot run: no trace file"), vm.statusProperty().get());
        Path nowhere = temp.resolve("no-such-batch_task.csv");
        vm.traceProperty().set(nowhere);
        vm.run();
        assertEquals("cannot run: trace file " + nowhere.toAbsolutePath() + " does not exist", vm.statusProperty().get());
        assertFalse(vm.runningProperty().get(), "nothing was started");
        assertNull(vm.resultProperty().get());
    }

    @Test
    void aMalformedTraceEndsInAnErrorNamingTheFileAndLeavesNoResult() throws InterruptedException {
        runToTheEnd();
        assertNotNull(vm.resultProperty().get());
        vm.traceProperty().set(Tables.MALFORMED);
        assertEquals(TraceFormat.ALIBABA_2017, vm.formatProperty().get(), "batch_task in the name: Alibaba 2017");
        vm.clusterProperty().set("nodes=2,cpu=6400,mem=262144");
        runToTheEnd();
        String status = vm.statusProperty().get();
        assertTrue(status.startsWith("error: ") && status.contains("malformed-batch_task.csv:2:28: field 7 "), status);
        assertFalse(status.contains("\n"), "one line: " + status);
        assertNull(vm.resultProperty().get(), "the last run's result is not shown as this one's");
    }

    @Test
    void aBadClusterEndsInAnErrorNamingIt() throws InterruptedException {
        vm.clusterProperty().set("nodes=many,cpu=6400,mem=262144");
        runToTheEnd();
        String status = vm.statusProperty().get();
        assertTrue(status.startsWith("error: ") && status.contains("nodes=many"), status);
    }

    @Test
    void cancelStopsTheRunAndShowsNothingOfIt() throws InterruptedException {
        vm.traceProperty().set(Tables.ALIBABA_2017);
        vm.clusterProperty().set("nodes=20,cpu=6400,mem=262144");
        vm.maxJobsProperty().set(3000);
        vm.groupsProperty().set(GroupAssignment.hashIntoTableGroups());
        CountDownLatch replaying = new CountDownLatch(1);
        CountDownLatch ended = new CountDownLatch(1);
        vm.statusProperty().addListener((o, was, is) -> {
            if (is.startsWith("replaying through")) {
                replaying.countDown();
            }
        });
        vm.runningProperty().addListener((o, was, is) -> {
            if (!is) {
                ended.countDown();
            }
        });
        vm.run();
        assertTrue(vm.runningProperty().get());
        assertTrue(replaying.await(60, TimeUnit.SECONDS), "the replay started; status: " + vm.statusProperty().get());
        vm.cancel();
        assertTrue(ended.await(10, TimeUnit.SECONDS), "stopped within 10 s of cancel");
        assertEquals("cancelled", vm.statusProperty().get());
        assertNull(vm.resultProperty().get());
    }

    @Test
    void theTraceFilesNameChoosesItsFormat() {
        vm.traceProperty().set(Path.of("NASA-iPSC-1993-3.1-cln.swf.gz"));
        assertEquals(TraceFormat.SWF, vm.formatProperty().get());
        vm.traceProperty().set(Path.of("openb_pod_list_default.csv"));
        assertEquals(TraceFormat.GPU_2023, vm.formatProperty().get());
        vm.formatProperty().set(TraceFormat.ALIBABA_2018);
        vm.traceProperty().set(Path.of("v2018/batch_task.csv"));
        assertEquals(TraceFormat.ALIBABA_2018, vm.formatProperty().get(), "a batch_task of v2018 stays v2018");
        vm.traceProperty().set(Path.of("trace.txt"));
        assertEquals(TraceFormat.ALIBABA_2018, vm.formatProperty().get(), "a name that tells nothing changes nothing");
        assertFalse(vm.formats().contains(TraceFormat.SYNTHETIC), "a what-if replays a file");
        assertTrue(vm.unitOrders().contains("submitwindow"));
    }

    @Test
    void aResultAgainstAnOlderRevisionSaysItIsOutOfDate() throws InterruptedException {
        vm.inForceRevisionProperty().set("rev-a");
        assertEquals("compares the draft with the table in force, revision rev-a", vm.baselineProperty().get());
        runToTheEnd();
        assertNotNull(vm.resultProperty().get(), vm.statusProperty().get());
        assertNotNull(vm.verdictProperty().get());
        assertEquals("compares the draft with the table in force, revision rev-a", vm.baselineProperty().get());

        // a push applied: the shell sets the new table in force and its revision
        vm.inForceProperty().set(Tables.maxima("a", 2, "b", 4));
        vm.inForceRevisionProperty().set("rev-b");
        assertEquals("out of date: this result compared with revision rev-a, but the table in force is now revision rev-b: run again",
                vm.baselineProperty().get());
        runToTheEnd();
        assertEquals("compares the draft with the table in force, revision rev-b", vm.baselineProperty().get());
    }
}

package granary.conformance.kit.processes;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The real-process kit's task ledger: runs as the tasks wrote them, and what counts as a task run twice. */
class TaskRunsTest {

    @TempDir
    Path dir;

    /** One task's file: {@code start NODE WRAPPER PID MILLIS} lines, and {@code end PID MILLIS} for runs that finished. */
    private static TaskRuns runs(String... files) {
        Map<Integer, List<TaskRuns.Run>> m = new java.util.TreeMap<>();
        for (int t = 0; t < files.length; t++) {
            m.put(t, TaskRuns.parse(t, files[t]));
        }
        return new TaskRuns(m);
    }

    @Test
    void oneFinishedRunPerTaskIsClean() {
        TaskRuns r = runs("start n1 10 11 1000\nend 11 3000\n", "start n2 20 21 1000\nend 21 3000\n");
        assertEquals(List.of(), r.violations(2, Set.of(), Map.of()));
        assertEquals(2, r.started());
    }

    @Test
    void aTaskStartedAgainAfterItFinishedRanTwice() {
        TaskRuns r = runs("start n1 10 11 1000\nend 11 3000\nstart n2 20 21 4000\nend 21 6000\n");
        List<String> v = r.violations(1, Set.of(), Map.of());
        assertEquals(1, v.size(), v.toString());
        assertTrue(v.get(0).startsWith("task 0 ran twice: again on n2 (pid 21) after an earlier run had finished"), v.get(0));
    }

    @Test
    void twoRunsAtOnceRanTwice() {
        TaskRuns r = runs("start n1 10 11 1000\nstart n2 20 21 1500\nend 11 3000\nend 21 3500\n");
        List<String> v = r.violations(1, Set.of(), Map.of());
        assertTrue(v.size() == 1 && v.get(0).contains("while an earlier run still ran"), v.toString());
    }

    @Test
    void aRunItsAgentStoppedMayRunAgain() {
        TaskRuns r = runs("start n1 10 11 1000\nstart n2 20 21 4000\nend 21 6000\n");
        assertEquals(List.of(), r.violations(1, Set.of(10L), Map.of()));
    }

    @Test
    void aRunThatEndedUnfinishedWithoutAStopIsReported() {
        TaskRuns r = runs("start n1 10 11 1000\nstart n2 20 21 4000\nend 21 6000\n");
        List<String> v = r.violations(1, Set.of(), Map.of());
        assertTrue(v.size() == 1 && v.get(0).contains("ended without finishing, and no agent stopped it"), v.toString());
    }

    @Test
    void runsOnANodeDeclaredLostMayRunAgainElsewhereButOnlyThoseThatBeganBeforeItCameBack() {
        String file = "start n1 10 11 1000\nend 11 3000\nstart n2 20 21 2000\nend 21 4000\n";
        assertEquals(List.of(), runs(file).violations(1, Set.of(), Map.of("n1", 1500L)));
        assertEquals(1, runs(file).violations(1, Set.of(), Map.of("n1", 900L)).size());
    }

    @Test
    void aTaskWithoutAFinishedRunIsReported() {
        List<String> v = runs("").violations(1, Set.of(), Map.of());
        assertTrue(v.size() == 1 && v.get(0).startsWith("task 0 never finished a run"), v.toString());
    }

    @Test
    void stopLinesAreReadFromAgentLogs() {
        assertEquals(Set.of(4711L, 4712L), TaskRuns.stoppedByAgents(List.of("launched unit=fo/tasks slot=1 pid=4711\n"
                + "stopping unit=fo/tasks slot=1 pid=4711\n", "stopping unit=fo/service slot=0 pid=4712 reason=job ended\n")));
    }

    /** The command as the sample job master runs it (/bin/sh -c), under a wrapper like the agent's. */
    @Test
    void theTaskCommandWritesItsStartAndEnd() throws Exception {
        Files.createDirectories(dir.resolve("runs"));
        ProcessBuilder pb = new ProcessBuilder("/bin/sh", "-c", "/bin/sh -c \"$0\" & wait", TaskRuns.command(dir, 0));
        pb.environment().put("GRANARY_TASK", "3");
        pb.environment().put("GRANARY_NODE", "n7");
        Process q = pb.start();
        try {
            assertTrue(q.waitFor(10, TimeUnit.SECONDS), "the task did not end");
            List<TaskRuns.Run> r = TaskRuns.read(dir).runs().get(3);
            assertEquals(1, r.size(), String.valueOf(r));
            assertEquals("n7", r.get(0).node());
            assertEquals(q.pid(), r.get(0).wrapperPid(), "its parent is the wrapper");
            assertTrue(r.get(0).succeeded());
        } finally {
            q.destroyForcibly();
        }
    }
}

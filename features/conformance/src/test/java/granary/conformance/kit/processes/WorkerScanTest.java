package granary.conformance.kit.processes;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Workers are found in /proc by the exit file their agent named, under the cluster's directory only. */
class WorkerScanTest {

    @TempDir
    Path dir;

    @Test
    void aProcessWhoseExitFileLiesUnderTheClusterIsOneOfItsWorkers() throws Exception {
        Assumptions.assumeTrue(java.nio.file.Files.isDirectory(Path.of("/proc")), "Linux only");
        ProcessBuilder pb = new ProcessBuilder("sleep", "30");
        pb.environment().put("GRANARY_EXIT_FILE", dir.resolve("n1/run/fo.tasks.3.exit").toString());
        pb.environment().put("GRANARY_NODE", "n1");
        pb.environment().put("GRANARY_UNIT", "fo/tasks");
        pb.environment().put("GRANARY_SLOT", "3");
        ProcessBuilder other = new ProcessBuilder("sleep", "30");
        other.environment().put("GRANARY_EXIT_FILE", dir.resolveSibling(dir.getFileName() + "-other").resolve("x.exit").toString());
        Process p = pb.start();
        Process q = other.start();
        try {
            List<WorkerScan.Worker> found = WorkerScan.scan(dir);
            assertEquals(List.of(new WorkerScan.Worker(p.pid(), "n1", "fo/tasks", 3)), found);
            assertEquals("fo", found.get(0).job());
        } finally {
            p.destroyForcibly();
            q.destroyForcibly();
            assertTrue(p.waitFor(10, TimeUnit.SECONDS) && q.waitFor(10, TimeUnit.SECONDS));
        }
    }
}

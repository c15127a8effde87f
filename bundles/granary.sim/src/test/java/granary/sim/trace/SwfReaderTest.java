package granary.sim.trace;

import static granary.sim.trace.Files.error;
import static granary.sim.trace.Files.read;
import static granary.testkit.TestFiles.write;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import granary.api.model.NodeSpec;
import granary.api.model.Resources;
import granary.sim.workload.SimJob;
import granary.sim.workload.Workload;
import granary.testkit.TestFiles;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The Standard Workload Format: header comments, 18 fields, each job a gang of its processors. */
class SwfReaderTest {

    private static final TraceFormat F = TraceFormat.SWF;
    static final String LOG = String.join("\n",
            "; Version: 2.2",
            "; Computer: Test machine",
            "; MaxNodes: 4",
            "; MaxProcs: 16",
            ";",
            "    1        0     -1   100    8     -1    -1   8     -1    -1 1   3   1  2 0 -1 -1 -1",
            "    2       10      5    50    4     -1  2048   4     -1    -1 1   4   2  1 1 -1 -1 -1",
            "    3       20     -1    -1    4     -1    -1   4     -1    -1 0   3   1  1 0 -1 -1 -1",
            "    4       30     -1     0   -1     -1    -1   2     -1    -1 1   3   1  1 0 -1 -1 -1",
            "");

    @TempDir
    Path dir;

    @Test
    void eachJobIsOneUnitOfItsProcessors() throws IOException {
        Workload w = read(F, write(dir, "log.swf", LOG));
        assertEquals(4, w.report().rows());
        assertEquals(Map.of("unknown run time (-1)", 1L), w.report().skipped());
        assertEquals(List.of("swf-1", "swf-2", "swf-4"), w.jobs().stream().map(SimJob::id).toList());
        SimJob j1 = w.jobs().get(0);
        assertEquals(8, j1.units().get(0).spec().desired());
        assertEquals(Resources.of(100, 0), j1.units().get(0).spec().slot());
        assertEquals(100_000, j1.units().get(0).durationMs());
        assertEquals("user-3", j1.user());
        assertEquals(Resources.of(100, 2), w.jobs().get(1).units().get(0).spec().slot(), "2048 KB per processor");
        assertEquals(2, w.jobs().get(2).units().get(0).spec().desired(), "no allocated count: the requested one");
        assertEquals("16", w.report().facts().get("MaxProcs"));
    }

    @Test
    void gangsWhenAGangPlacementPolicyIsInstalledOrAskedFor() throws IOException {
        Path f = write(dir, "log.swf", LOG);
        assertFalse(read(F, f).hasAllOrNothing(), "gang=auto without a gang-placement policy");
        assertTrue(read(F, f, new TraceContext(0, true, 1)).hasAllOrNothing(), "gang=auto with one");
        assertTrue(read(F, f, "gang=true").jobs().get(0).units().get(0).spec().allOrNothing());
        assertFalse(read(F, f, new TraceContext(0, true, 1), "gang=false").hasAllOrNothing());
    }

    @Test
    void optionsMapGroupsArrivalAndProcessors() throws IOException {
        Path f = write(dir, "log.swf", LOG);
        Workload w = read(F, f, "group=user", "arrival=start", "procs=req", "cpuPerProc=50");
        assertEquals("user-4", w.jobs().get(1).group());
        assertEquals(15_000, w.jobs().get(1).arrivalMs(), "submit 10 + wait 5");
        assertEquals(Resources.of(50, 0), w.jobs().get(0).units().get(0).spec().slot());
        assertEquals("queue-1", read(F, f, "group=queue").jobs().get(1).group());
    }

    @Test
    void theHeaderGivesTheDefaultClusterAndGzipIsRead() throws IOException {
        Path gz = TestFiles.gzip(dir, "log.swf.gz", LOG);
        List<NodeSpec> nodes = F.defaultCluster(gz, Map.of());
        assertEquals(4, nodes.size());
        assertEquals(Resources.of(400, 0), nodes.get(0).capacity());
        assertEquals(3, read(F, gz).jobs().size());
    }

    @Test
    void badRowsNameFileLineAndColumn() throws IOException {
        assertEquals("bad.swf:2:43: expected 18 fields (job, submit, wait, run, procs_alloc, avg_cpu, used_mem, procs_req, "
                        + "time_req, mem_req, status, user, group, app, queue, partition, preceding_job, think_time), got 17",
                error(F, write(dir, "bad.swf", "; c\n1 0 -1 100 8 -1 -1 8 -1 -1 1 3 1 2 0 -1 -1\n")));
        assertEquals("bad.swf:1:8: field 2 (submit): expected a whole number, got 'x'",
                error(F, write(dir, "bad.swf", "    1  x -1 100 8 -1 -1 8 -1 -1 1 3 1 2 0 -1 -1 -1\n")));
        assertEquals("bad.swf:1:3: field 2 (submit): must not be negative, got -5",
                error(F, write(dir, "bad.swf", "1 -5 -1 100 8 -1 -1 8 -1 -1 1 3 1 2 0 -1 -1 -1\n")));
        assertEquals("bad.swf:2:1: field 1 (job): job 1 appears twice (first at bad.swf:1)",
                error(F, write(dir, "bad.swf", "1 0 -1 100 8 -1 -1 8 -1 -1 1 3 1 2 0 -1 -1 -1\n1 0 -1 100 8 -1 -1 8 -1 -1 1 3 1 2 0 -1 -1 -1\n")));
    }
}

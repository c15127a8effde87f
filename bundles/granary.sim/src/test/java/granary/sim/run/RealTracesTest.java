package granary.sim.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.Writer;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;

import granary.api.model.NodeSpec;
import granary.api.model.Resources;
import granary.sim.trace.Gpu2023Reader;
import granary.sim.trace.TraceContext;
import granary.sim.trace.TraceFormat;
import granary.sim.workload.ReadReport;
import granary.sim.workload.Workload;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The real traces of src/test/resources/traces (copies of the shared traces with their READMEs;
 * the big csv files gzipped): each is parsed in full and its counts are those its README states,
 * and a part of each is replayed.
 */
class RealTracesTest {

    private static final TraceContext CTX = new TraceContext(262_144, false, 1);

    @TempDir
    Path dir;

    static Path trace(String path) throws URISyntaxException {
        return Path.of(RealTracesTest.class.getResource("/traces/" + path).toURI());
    }

    /**
     * alibaba-v2017-batch-task/README.md: 80,553 rows after a header line; 9,017 with an empty request
     * (skipped by default); 167 created at or before 0; 209 ending before they were created (82 of
     * them have a request); 12,951 jobs (12,014 keep a task with a request); 11,909,321 instances
     * (11,059,704 in the rows with a request).
     */
    @Test
    void alibaba2017ParsesWithTheCountsOfItsReadme() throws Exception {
        Path csv = trace("alibaba-v2017-batch-task/batch_task.csv.gz");
        Workload w = TraceFormat.ALIBABA_2017.read(csv, Map.of(), CTX);
        ReadReport r = w.report();
        assertEquals(80_553, r.rows());
        assertEquals("line 1", r.facts().get("header"), "this copy has the English header line");
        assertEquals(Map.of("empty request (empty=skip)", 9_017L), r.skipped());
        assertEquals(Map.of("create time <= 0 (before the trace): requested at 0", 167L,
                "end before create (not ended in the trace): runs until the trace's last time", 82L), r.adjusted());
        assertEquals(12_014, w.jobs().size());
        assertEquals(71_536, w.units());
        assertEquals(11_059_704, w.slots());

        Workload all = TraceFormat.ALIBABA_2017.read(csv, Map.of("empty", "default"), CTX);
        assertEquals(12_951, all.jobs().size());
        assertEquals(80_553, all.units());
        assertEquals(11_909_321, all.slots());
        assertEquals(9_017L, all.report().defaulted().values().iterator().next());
        assertEquals(209L, all.report().adjusted().get("end before create (not ended in the trace): runs until the trace's last time"));

        Path headerless = withoutFirstLine(csv, dir.resolve("batch_task.csv.gz"));
        Workload official = TraceFormat.ALIBABA_2017.read(headerless, Map.of(), CTX);
        assertEquals("none", official.report().facts().get("header"), "the official file has no header");
        assertEquals(w.slots(), official.slots());
        assertEquals(w.jobs().size(), official.jobs().size());
    }

    private static Path withoutFirstLine(Path gz, Path out) throws IOException {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(new GZIPInputStream(Files.newInputStream(gz)), StandardCharsets.UTF_8));
             OutputStream os = new GZIPOutputStream(Files.newOutputStream(out));
             Writer w = new java.io.OutputStreamWriter(os, StandardCharsets.UTF_8)) {
            in.readLine();
            for (String line = in.readLine(); line != null; line = in.readLine()) {
                w.write(line);
                w.write('\n');
            }
        }
        return out;
    }

    /** alibaba-gpu-v2023-openb/README.md: 8,152 pods (897 never scheduled), 1,523 nodes, 1,213 GPU nodes. */
    @Test
    void gpu2023ParsesWithTheCountsOfItsReadme() throws Exception {
        Path pods = trace("alibaba-gpu-v2023-openb/openb_pod_list_default.csv.gz");
        Workload w = TraceFormat.GPU_2023.read(pods, Map.of(), CTX);
        assertEquals(8_152, w.jobs().size());
        assertEquals(Map.of("never scheduled: runs deletion - creation", 897L), w.report().adjusted());
        assertEquals(Map.of(), w.report().skipped());
        assertEquals(1_088, w.jobs().stream().filter(j -> j.units().get(0).spec().slot().get("gpu") == 0).count(), "num_gpu 0");
        List<NodeSpec> nodes = TraceFormat.GPU_2023.defaultCluster(pods, Map.of());
        assertEquals(1_523, nodes.size(), "the node list beside the pod list");
        assertEquals(549, nodes.stream().filter(n -> n.capacity().equals(Resources.of(9600, 393_216, Map.of("gpu", 8000L)))
                && "G2".equals(n.labels().get("model"))).count(), "549 x 96 cores / 384 GiB / 8 x G2");
        assertEquals(1_213, Gpu2023Reader.nodes(trace("alibaba-gpu-v2023-openb/openb_node_list_gpu_node.csv"), false).size());
    }

    /** pwa-nasa-ipsc-1993/README.md: 18,239 jobs on 128 nodes; processor counts 1 .. 128. */
    @Test
    void swfParsesWithTheCountsOfItsReadme() throws Exception {
        Path log = trace("pwa-nasa-ipsc-1993/NASA-iPSC-1993-3.1-cln.swf.gz");
        Workload w = TraceFormat.SWF.read(log, Map.of(), CTX);
        assertEquals(18_239, w.jobs().size());
        assertEquals(Map.of(), w.report().skipped());
        assertEquals("128", w.report().facts().get("MaxNodes"));
        assertEquals(4_935, w.jobs().stream().filter(j -> j.units().get(0).spec().desired() == 1).count());
        assertEquals(3_662, w.jobs().stream().filter(j -> j.units().get(0).spec().desired() == 32).count());
        assertEquals(309_953, w.slots());
        assertEquals(7_948_936_000L, w.jobs().get(w.jobs().size() - 1).arrivalMs());
        assertEquals(69, w.jobs().stream().map(j -> j.user()).distinct().count(), "69 users");
        assertEquals(128, TraceFormat.SWF.defaultCluster(log, Map.of()).size());
    }

    @Test
    void partsOfTheRealTracesReplay() throws Exception {
        Replay.Report v2017 = Sims.run(Sims.request(TraceFormat.ALIBABA_2017, trace("alibaba-v2017-batch-task/batch_task.csv.gz"),
                Map.of("limit", "200"), List.of("nodes=40,cpu=6400,mem=262144"), "fifo|fair", SimSettings.DEFAULTS, 1));
        for (RunResult r : v2017.runs()) {
            assertEquals(r.jobs().submitted(), r.jobs().finished(), r.label());
            assertTrue(r.timeouts().jobs() > 0, "40 nodes are too few for these tasks: some wait " + r.label());
        }
        Replay.Report gpu = Sims.run(new Replay.Request(TraceFormat.GPU_2023, trace("alibaba-gpu-v2023-openb/openb_pod_list_default.csv.gz"),
                Map.of(), List.of(), PolicySetSpec.parseAll("fifo|fair"), SimSettings.DEFAULTS, 1, 2_000, Long.MAX_VALUE));
        assertEquals(2_000, gpu.runs().get(0).jobs().submitted());
        assertEquals(List.of("cpu", "mem", "gpu"), List.copyOf(gpu.runs().get(0).utilisation().keySet()));
        assertTrue(gpu.runs().get(0).utilisation().get("gpu") > 0);
        Replay.Report swf = Sims.run(new Replay.Request(TraceFormat.SWF, trace("pwa-nasa-ipsc-1993/NASA-iPSC-1993-3.1-cln.swf.gz"),
                Map.of("group", "user"), List.of(), PolicySetSpec.parseAll("fifo|submitwindow"), SimSettings.DEFAULTS, 1, 3_000, Long.MAX_VALUE));
        for (RunResult r : swf.runs()) {
            assertEquals(3_000, r.jobs().finished(), r.label());
            assertTrue(r.groups().size() > 10, "jobs are grouped by user");
        }
    }
}

package granary.sim.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import granary.api.spi.ExtensionPoint;
import granary.sim.trace.TraceFormat;

import org.junit.jupiter.api.Test;

/** The files of bundles/granary.sim/examples (the README's commands use them) stay valid and replay as described. */
class ExamplesTest {

    private static final Path EXAMPLES = Path.of("examples");

    /**
     * examples/fragmentation.json is the case of docs/policies.md, "submitwindow" (and of SubmitWindowPolicyTest): eight slots
     * busy until 10 s, then a gang of eight and three gangs of two in one submit window. FIFO lets the
     * small ones wait behind the big one (3 wait-for-resource timeouts), SubmitWindow runs them first (1).
     */
    @Test
    void theFragmentationCaseFavoursSubmitWindow() {
        assumeTrue(PolicySetup.available(Sims.POLICIES, ExtensionPoint.GANG_PLACEMENT), "needs a gang-placement policy");
        Replay.Report r = Sims.run(Sims.request(TraceFormat.JSON, EXAMPLES.resolve("fragmentation.json"), Map.of(), List.of(),
                "fifo|submitwindow", Sims.strict(), 1));
        assertEquals(3, r.runs().get(0).timeouts().jobs());
        assertEquals(1, r.runs().get(1).timeouts().jobs());
    }

    @Test
    void theWorkloadQuotaTableAndQueueTreeReplayTogether() throws IOException {
        SimSettings s = Sims.strict().withPolicyOption("quota", "tableFile", EXAMPLES.resolve("quota.json").toString(), "--quota")
                .withPolicyOption("queues", "file", EXAMPLES.resolve("queues.json").toString(), "--queues");
        Replay.Report r = Sims.run(Sims.request(TraceFormat.JSON, EXAMPLES.resolve("workload.json"), Map.of("group", "hash:3"),
                List.of(), "fifo|queues,quota,fifo", s, 1));
        for (RunResult run : r.runs()) {
            assertEquals(4, run.jobs().finished(), run.label());
        }
        RunResult multi = r.runs().get(1);
        assertEquals(List.of("root.g0", "root.g2"), List.copyOf(multi.groups().keySet().stream().filter(g -> multi.groups().get(g).jobs() > 0).toList()));
        assertEquals(2, multi.reportTables().get("billing").rows().size());
        assertTrue(multi.reportSeries().containsKey("groups") && multi.reportSeries().containsKey("queues"), multi.reportSeries().keySet()::toString);
    }
}

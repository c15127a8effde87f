package granary.sim.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import granary.sim.trace.TraceFormat;

import org.junit.jupiter.api.Test;

/** The same seed, trace and policies give the same results, to the last digit of results.json. */
class DeterminismTest {

    private static String run(TraceFormat f, Path trace, Map<String, String> options, List<String> cluster, String sets, long seed) {
        return Sims.deterministicJson(Sims.run(Sims.request(f, trace, options, cluster, sets, SimSettings.DEFAULTS, seed)));
    }

    @Test
    void aSyntheticWorkloadReplaysTheSameUnderTheSameSeed() {
        Map<String, String> o = Map.of("jobs", "400", "rate", "3", "gang", "0", "groups", "3");
        List<String> cluster = List.of("nodes=8,cpu=800,mem=32768");
        String a = run(TraceFormat.SYNTHETIC, null, o, cluster, "fifo|fair|submitwindow|quota", 11);
        assertEquals(a, run(TraceFormat.SYNTHETIC, null, o, cluster, "fifo|fair|submitwindow|quota", 11));
        assertNotEquals(a, run(TraceFormat.SYNTHETIC, null, o, cluster, "fifo|fair|submitwindow|quota", 12));
    }

    @Test
    void aRealTraceReplaysTheSame() throws URISyntaxException {
        Path trace = Path.of(DeterminismTest.class.getResource("/traces/alibaba-v2017-batch-task/batch_task.csv.gz").toURI());
        Map<String, String> o = Map.of("limit", "250", "group", "hash:3");
        List<String> cluster = List.of("nodes=40,cpu=6400,mem=262144");
        assertEquals(run(TraceFormat.ALIBABA_2017, trace, o, cluster, "fifo|fair", 1),
                run(TraceFormat.ALIBABA_2017, trace, o, cluster, "fifo|fair", 1));
    }
}

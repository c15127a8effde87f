package granary.bench.wire;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** Each kind of edge answers: a second of load against a server of its own, no timing judged. */
class EdgeBenchSmokeTest {

    @Test
    void everyVariantAnswersWithoutErrors() throws Exception {
        for (String handler : new String[] {"servlet", "core", "stream", "servlet-stream"}) {
            String line = EdgeBench.drive(Map.of("--handler", handler, "--seconds", "1", "--warmup", "1", "--peers", "20",
                    "--connections", "4"));
            Matcher posts = Pattern.compile("\"posts_per_s\":(\\d+)").matcher(line);
            assertTrue(posts.find() && Long.parseLong(posts.group(1)) > 0, handler + ": " + line);
            assertTrue(line.contains("\"errors\":0"), handler + ": " + line);
        }
    }
}

package granary.planner.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The planner's command line: what it reads, and the errors it gives before a window opens. */
class PlannerOptionsTest {

    @TempDir
    Path tmp;

    @Test
    void readsEveryOption() throws Exception {
        Path table = Files.writeString(tmp.resolve("t.json"), "{}");
        Path token = Files.writeString(tmp.resolve("admin.token"), "  tok.en\n");
        PlannerOptions o = PlannerOptions.parse(List.of("--master=http://127.0.0.1:7070", "--token-file=" + token, "--table=" + table,
                "--worker-spans=default:5000", "--trace=" + table, "--max-jobs=400", "--tab=live", "--act=import,preview"));
        assertEquals(new PlannerOptions("http://127.0.0.1:7070", "tok.en", table, "default:5000", table, 400, "live",
                List.of("import", "preview")), o);
        assertEquals(new PlannerOptions(null, null, null, null, null, 0, "table", List.of()), PlannerOptions.parse(List.of()));
    }

    @Test
    void aWrongArgumentSaysWhatIsWrong() {
        assertTrue(message("--tab=charts").startsWith("--tab: 'charts' is none of [table, whatif, push, live]"));
        assertTrue(message("--act=import,deploy").startsWith("--act: 'deploy' is none of [import, whatif, acknowledge, preview]"));
        assertTrue(message("--max-jobs=-3").startsWith("--max-jobs: '-3' is not a whole number of jobs"));
        assertTrue(message("--max-jobs=lots").startsWith("--max-jobs: 'lots' is not a whole number of jobs"));
        assertTrue(message("--table=" + tmp.resolve("nope.json")).startsWith("--table: no file at "));
        assertTrue(message("--master").startsWith("'--master' needs a value: --master=..."));
        String unknown = message("--colour=blue");
        assertTrue(unknown.startsWith("unknown argument '--colour=blue'") && unknown.contains("usage: java -jar granary-planner.jar"), unknown);
    }

    /** The README's planner command parses, its files found from the repository's root. */
    @Test
    void theReadmesCommandReads() throws Exception {
        String readme = Files.readString(Path.of("../README.md")).replace("\\\n", " ");
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("(?m)^java -jar desktop-planner/target/granary-planner\\.jar (.*)$").matcher(readme);
        assertTrue(m.find(), "the README shows how to run the planner");
        List<String> args = java.util.Arrays.stream(m.group(1).trim().split(" +"))
                .map(a -> a.startsWith("--table=") || a.startsWith("--trace=") ? a.replaceFirst("=", "=../") : a).toList();
        PlannerOptions o = PlannerOptions.parse(args);
        assertTrue(o.trace().toString().endsWith("batch_task.csv.gz"), o::toString);
        assertEquals(400, o.maxJobs());
    }

    private static String message(String arg) {
        return assertThrows(IllegalArgumentException.class, () -> PlannerOptions.parse(List.of(arg))).getMessage();
    }
}

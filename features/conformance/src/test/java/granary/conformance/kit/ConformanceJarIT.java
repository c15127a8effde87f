package granary.conformance.kit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The kit as an operator runs it: java -jar target/granary-conformance.jar, a process with a bounded wait. */
class ConformanceJarIT {

    @TempDir
    Path dir;

    @Test
    void theJarRunsTheKitAndExitsZero() throws Exception {
        String jar = System.getProperty("granary.conformance.jar");
        Path report = dir.resolve("r.json");
        Path log = dir.resolve("out.txt");
        Process p = new ProcessBuilder(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-jar", jar,
                "--schedules", "20", "--report", report.toString())).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        try {
            assertTrue(p.waitFor(5, TimeUnit.MINUTES), "the kit did not end within 5 minutes");
            String out = Files.readString(log, StandardCharsets.UTF_8);
            assertEquals(0, p.exitValue(), out);
            // every named case passed (their number grows with the kit), and every schedule
            assertTrue(java.util.regex.Pattern.compile("(\\d+) of \\1 cases passed; 20 of 20 random schedules passed").matcher(out).find(), out);
            assertTrue(Files.readString(report).matches("(?s).*\"violations\": ?0\\s*,.*"), "the report counts no violation");
        } finally {
            p.destroyForcibly();
        }
    }
}

package granary.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code granary:sim} through the runnable jar of this run's framework, with piped input: a small
 * workload replayed inside the runtime under two policy sets of its installed policy bundles (fresh
 * instances; the live engine is not touched), printed side by side, results written.
 */
class SimConsoleIT {

    private static final String WORKLOAD = """
            {"nodes": [{"count": 2, "room": "r1", "capacity": {"cpu": 400, "mem": 4096}}],
             "jobs": [
              {"id": "big", "group": "g1", "submit": 0, "units": [{"name": "u", "slot": {"cpu": 100, "mem": 512}, "desired": 8, "duration": 30}]},
              {"id": "s1", "group": "g2", "submit": 1, "units": [{"name": "u", "slot": {"cpu": 100, "mem": 512}, "desired": 2, "duration": 5}]},
              {"id": "s2", "group": "g2", "submit": 2, "units": [{"name": "u", "slot": {"cpu": 100, "mem": 512}, "desired": 2, "duration": 5}]}
             ]}
            """;

    @TempDir
    Path tmp;

    @Test
    void aTraceIsReplayedOnTheInstalledPoliciesUnderTwoSets() throws Exception {
        Files.writeString(tmp.resolve("w.json"), WORKLOAD);
        ChildProcess.Result r = ChildProcess.run(It.runnableJar(), tmp, String.join("\n",
                "granary:sim --trace json:w.json --policies 'fifo|fair' --out out --tick-seconds 1",
                "granary:sim --trace json:w.json --policies fifo --policies submitwindow --out out2",
                "granary:status",
                ""), "--demo=false", "--strict");

        assertEquals(0, r.exit(), r::toString);
        assertTrue(matches(r.out(), "policies\\s+fifo\\s+fair"), r::toString);
        assertTrue(matches(r.out(), "jobs submitted / refused\\s+3 / 0\\s+3 / 0"), r::toString);
        assertTrue(matches(r.out(), "wait-for-resource timeouts \\(> 10 s\\)\\s+\\d+ \\(.*%\\)\\s+\\d+ \\(.*%\\)"), r::toString);
        assertTrue(matches(r.out(), "fewest wait-for-resource timeouts: "), r::toString);
        assertTrue(matches(r.out(), "policies\\s+fifo\\s+submitwindow"), r::toString);
        assertTrue(Files.isRegularFile(tmp.resolve("out/results.json")), r::toString);
        assertTrue(Files.isRegularFile(tmp.resolve("out/2-fair/timeseries.csv")), r::toString);
        assertTrue(Files.readString(tmp.resolve("out/results.json")).contains(" (class path)") == false,
                "policies came from the runtime's bundles");
        assertTrue(Files.readString(tmp.resolve("out/results.json")).contains("\"unit-order\": \"fair\""), r::toString);
        assertEquals("0", It.keyValues(r.out()).get("nodes"), "the live engine was not touched\n" + r);
        assertEquals("", r.err(), r::toString);
    }

    @Test
    void badArgumentsAreAnErrorNamingThem() throws Exception {
        ChildProcess.Result r = ChildProcess.run(It.runnableJar(), tmp, String.join("\n",
                "granary:sim --trace synthetic --policies nope",
                "granary:sim --trace synthetic --policies fifo:priorityFirst=false",
                "granary:sim --help",
                ""), "--demo=false");
        assertEquals(0, r.exit(), r::toString);
        assertTrue(r.err().contains("Error: --policies nope: nope: 'nope' is not installed; policies: "), r::toString);
        assertTrue(r.err().contains("options are not given on the command inside the runtime: configure the policy "
                + "(Config Admin PID granary.policy.fifo)"), r::toString);
        assertTrue(r.out().contains("Usage: granary:sim --trace FORMAT:PATH [options]"), r::toString);
    }

    private static boolean matches(String text, String lineRegex) {
        Pattern p = Pattern.compile(lineRegex);
        return text.lines().anyMatch(l -> p.matcher(l).find());
    }
}

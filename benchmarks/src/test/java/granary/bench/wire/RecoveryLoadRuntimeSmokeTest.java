package granary.bench.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The recovery benchmark against the runtime jar, small: the runtime (built by the reactor before
 * this module) killed with 200 grants and started again on the same port with a 10 s window (it closes once every peer is back: the peers
 * retry as the real agent does, with pauses of seconds) from its
 * Config Admin; the peers over HTTP/2; the window's times read from the console's
 * {@code granary:recovery}. Every grant must come back and every agent get its caps again. No timing
 * is checked beyond the bounds of the run. Skipped only where the runtime jar was not built (a build
 * of this module alone).
 */
class RecoveryLoadRuntimeSmokeTest {

    private static final Path RUNTIME = Path.of("..", "features", "standalone", "target", "granary-standalone.jar");

    @Test
    void theRestartedRuntimeRebuildsEveryGrantAndSaysWhenItsWindowClosed() throws Exception {
        assumeTrue(Files.isRegularFile(RUNTIME), "the runtime jar is built by the reactor: " + RUNTIME.toAbsolutePath());
        Map<String, Object> r = RecoveryLoad.run(RecoveryLoad.Options.parse("--runtime=" + RUNTIME, "--agents=20",
                "--jobmasters=4", "--window=10", "--settle=0.5", "--heartbeat-ms=1000", "--setup-timeout=120",
                "--recovery-timeout=120", "--master-jvm=-Xmx256m -XX:+UseSerialGC -XX:TieredStopAtLevel=1"));
        assertFalse(r.containsKey("failed"), "the run completed: " + r);
        assertTrue(String.valueOf(r.get("master")).startsWith("runtime "), "the runtime was the master: " + r);
        assertEquals(200L, ((Number) r.get("grants")).longValue(), "the cluster was full before the kill: " + r);
        assertEquals(200L, ((Number) r.get("grants_after")).longValue(), "every grant rebuilt: " + r);
        assertEquals(0, ((Number) r.get("online_slots_lost_at_agents")).intValue(), "no online slot lost: " + r);
        assertEquals(20L, ((Number) r.get("agents_whole")).longValue(), "every agent got its caps back: " + r);
        double window = ((Number) r.get("window_length_s")).doubleValue();
        assertTrue(window > 0 && window <= 10.5, "the window's opening and closing came from granary:recovery: " + r);
        assertTrue(((Number) r.get("full_service_s")).doubleValue() > 0, "full service reached: " + r);
    }
}

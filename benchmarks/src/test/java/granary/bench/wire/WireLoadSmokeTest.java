package granary.bench.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Runs the wire load for ~3 s with 20 agents and 2 job masters against a ProtocolMaster on
 * JdkHttpServer in this JVM (no child JVM): slots must be delivered and exits turned over. No
 * timing is checked.
 */
class WireLoadSmokeTest {

    @Test
    void agentsGetSlotsAndTurnThemOver() throws Exception {
        Map<String, Object> r = WireLoad.run(WireLoad.Options.parse("--same-jvm", "--agents=20", "--jobmasters=2",
                "--seconds=3", "--warmup=1", "--work-ms=100"));
        assertEquals(20, r.get("agents"));
        assertTrue(((Number) r.get("heartbeats")).longValue() > 0, "heartbeats were answered: " + r);
        assertTrue(((Number) r.get("slots_started_per_s")).doubleValue() > 0, "slots were delivered: " + r);
        assertTrue(((Number) r.get("exits_per_s")).doubleValue() > 0, "exits were reported: " + r);
        assertTrue(((Number) r.get("turnarounds")).longValue() > 0, "freed slots were handed out again: " + r);
        assertTrue(((Number) r.get("hint_placements_per_s")).doubleValue() >= 0, "job masters polled: " + r);
        assertTrue(((Number) r.get("master_deliveries")).longValue() > 0, "the master delivered caps and hints: " + r);
        assertEquals(0L, ((Number) r.get("refusals")).longValue(), "nothing refused: " + r);
    }
}

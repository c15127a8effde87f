package granary.bench.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The recovery benchmark, small: 50 agents × 10 slots, 5 job masters (500 grants, 300 online), a
 * master in this JVM closed and started again on the same port with a 2 s window. Every agent must
 * register again and get its caps back, the engine must hold as many grants as before, and no
 * online slot may be lost. No timing is checked beyond the bounds of the run.
 */
class RecoveryLoadSmokeTest {

    @Test
    void aRestartedMasterRebuildsEveryGrant() throws Exception {
        Map<String, Object> r = RecoveryLoad.run(RecoveryLoad.Options.parse("--same-jvm", "--agents=50", "--jobmasters=5",
                "--window=2", "--settle=0.5", "--heartbeat-ms=1000", "--setup-timeout=60", "--recovery-timeout=60"));
        assertFalse(r.containsKey("failed"), "the run completed: " + r);
        assertEquals(500L, ((Number) r.get("grants")).longValue(), "the cluster was full before the kill: " + r);
        assertEquals(500L, ((Number) r.get("grants_after")).longValue(), "every grant rebuilt: " + r);
        assertEquals(((Number) r.get("online_grants")).longValue(), ((Number) r.get("online_grants_after")).longValue(), "online grants kept: " + r);
        assertEquals(0, ((Number) r.get("online_slots_lost_at_agents")).intValue(), "no online slot lost: " + r);
        assertEquals(50L, ((Number) r.get("agents_whole")).longValue(), "every agent got its caps back: " + r);
        assertTrue(((Number) r.get("full_service_s")).doubleValue() > 0, "full service reached: " + r);
    }
}

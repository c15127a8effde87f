package granary.bench.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** The master-load benchmark on a small cluster: every step runs and counts what it should. */
class MasterLoadSmokeTest {

    @Test
    void fillsHeartbeatsReleasesAndRecoversASmallCluster() throws Exception {
        Map<String, Object> r = new MasterLoad(40, 3, 4, 2).run();

        assertEquals(120L, ((Number) r.get("granted")).longValue(), r::toString);
        // two rounds of one finished worker per agent, each of a slot still held: 80 slots released for good
        assertEquals(40L, ((Number) r.get("granted_after_exits")).longValue(), r::toString);
        assertEquals(120L, ((Number) r.get("recovery_granted")).longValue(), "every grant back after the restart: " + r);
        assertTrue(((Number) r.get("recovery_rebuild_s")).doubleValue() > 0, "the master measured its rebuild: " + r);
        assertTrue(((Number) r.get("heartbeat_wall_us")).doubleValue() > 0, "the heartbeats were timed (CPU time ticks too coarsely for 40): " + r);
    }
}

package granary.bench.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** The master-load benchmark on a small cluster: every step runs and counts what it should. */
class MasterLoadSmokeTest {

    @Test
    void fillsHeartbeatsReleasesAndRecoversASmallCluster() throws Exception {
        Map<String, Object> r = new MasterLoad(40, 3, 4, 1).run();

        assertEquals(120L, ((Number) r.get("granted")).longValue(), r::toString);
        assertEquals(120L, ((Number) r.get("recovery_granted")).longValue(), "every grant back after the restart: " + r);
        assertTrue(((Number) r.get("recovery_rebuild_s")).doubleValue() > 0, "the master measured its rebuild: " + r);
        assertTrue(((Number) r.get("heartbeat_wall_us")).doubleValue() > 0, "the heartbeats were timed (CPU time ticks too coarsely for 40): " + r);
    }
}

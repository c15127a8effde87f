package granary.bench.stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * The stream benchmark runs end to end on its smallest size (a child JVM of two subscribers, one
 * second of load): every subscriber reads events and the engine grants. It asserts no timing.
 */
class StreamLoadSmokeTest {

    @Test
    void runsWithSubscribersInAChildJvm() throws Exception {
        StreamLoad.Run r = StreamLoad.run(2, 1, 20);
        assertEquals(2, r.subscribers());
        assertTrue(r.slotsPerSecond() > 0, r.toString());
        assertTrue(r.eventsPerSubscriberMin() > 0, "every subscriber read events: " + r);
    }
}

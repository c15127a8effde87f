package granary.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Map;

import org.junit.jupiter.api.Test;

class SmokeTest {

    @Test
    void grantsAndReleases() {
        Harness h = Harness.withFifo().nodes("n", "r1", 3, 400, 4096);
        h.submit("j1", Harness.unit("u", 100, 1024, 6));
        assertEquals(Map.of("n0", 2, "n1", 2, "n2", 2), h.placement("j1/u"));
        h.submit("j2", Harness.unit("u", 400, 1024, 1));
        assertEquals(0, h.granted("j2/u"));
        h.release("j1/u", "n0", 2);
        assertEquals(Map.of("n0", 1), h.placement("j2/u"));
    }
}

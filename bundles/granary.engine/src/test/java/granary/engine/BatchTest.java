package granary.engine;

import static granary.engine.Harness.unit;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import granary.api.event.Granted;
import granary.api.event.Receipt;
import granary.api.event.UnitDesireChanged;
import granary.api.model.InvalidRequestException;
import granary.api.model.UnitId;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Events applied in a batch (docs/architecture.md, "The master's loop"): each takes effect at once,
 * a refused one changes nothing and the rest go on, and one scheduling cycle decides for all of
 * them at the end, its grants in the batch's receipt.
 */
class BatchTest {

    @Test
    void releasesInABatchAreFilledByOneCycleAtItsEnd() {
        Harness h = Harness.withFifo().nodes("n", "r1", 2, 400, 4096);
        h.submit("a", unit("u", 100, 512, 8));
        h.submit("b", unit("u", 100, 512, 3));
        assertEquals(0, h.granted("b/u"), "the cluster is full");
        int[] seenInside = new int[1];
        Receipt r = h.engine.batch(() -> {
            Receipt first = h.release("a/u", "n0", 1);
            assertTrue(first.outputs().stream().noneMatch(o -> o instanceof Granted), "no cycle inside the batch: " + first.outputs());
            h.release("a/u", "n1", 2);
            assertThrows(InvalidRequestException.class, () -> h.handle(new UnitDesireChanged(new UnitId("a", "u"), 0)),
                    "a refused event throws as ever");
            seenInside[0] = h.granted("b/u");
        });
        assertEquals(0, seenInside[0], "inside the batch the released slots are free, not granted yet");
        assertEquals(3, h.granted("b/u"), "one cycle at the end fills both freed nodes");
        assertEquals(Map.of("n0", 1, "n1", 2), h.placement("b/u"));
        assertEquals(3, r.outputs().stream().filter(o -> o instanceof Granted).mapToInt(o -> ((Granted) o).slots()).sum(),
                "the batch's receipt has the cycle's grants: " + r.outputs());
        h.engine.checkInvariants();
    }

    @Test
    void aBatchWithoutAnAcceptedEventRunsNoCycleAndANestedOneEndsWithTheOuter() {
        Harness h = Harness.withFifo().nodes("n", "r1", 1, 400, 4096);
        h.submit("a", unit("u", 100, 512, 4));
        h.submit("b", unit("u", 100, 512, 1));
        assertTrue(h.engine.batch(() -> { }).outputs().isEmpty());
        Receipt outer = h.engine.batch(() -> {
            Receipt inner = h.engine.batch(() -> h.release("a/u", "n0", 1));
            assertTrue(inner.outputs().stream().noneMatch(o -> o instanceof Granted), "the inner batch's end is not the cycle's");
            assertEquals(0, h.granted("b/u"));
        });
        assertEquals(1, h.granted("b/u"));
        assertEquals(1, outer.outputs().stream().filter(o -> o instanceof Granted).count(), outer.outputs().toString());
    }
}

package granary.engine;

import static granary.engine.Harness.unit;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import granary.api.event.UnitBlacklistChanged;
import granary.api.event.UnitDesireChanged;
import granary.api.model.InvalidRequestException;
import granary.api.model.UnitId;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * A job master keeps one unit off nodes after it was submitted (docs/agent.md, "Blacklisting a node
 * for one job"): no new grant there, what it holds stays, and lifting it lets the unit back.
 */
class UnitBlacklistTest {

    private static final UnitId U = new UnitId("j", "u");

    @Test
    void aUnitKeptOffANodeGetsItsNewSlotsElsewhereAndKeepsWhatItHolds() {
        Harness h = Harness.withFifo().nodes("n", "r1", 2, 400, 4096);
        h.submit("j", unit("u", 100, 512, 4));
        h.submit("filler", unit("u", 100, 512, 4));
        assertEquals(8, h.granted("j/u") + h.granted("filler/u"), "the cluster is full");
        String held = h.placement("j/u").keySet().iterator().next();
        int before = h.placement("j/u").get(held);
        h.handle(new UnitBlacklistChanged(U, Set.of(held)));
        assertEquals(before, h.placement("j/u").get(held), "what it holds there stays");
        String other = held.equals("n0") ? "n1" : "n0";
        // it wants more; room opens on both nodes: only the other one serves it
        h.handle(new UnitDesireChanged(U, h.granted("j/u") + 2));
        h.release("filler/u", other, 1);
        h.release("j/u", held, 1);
        assertEquals(before - 1, h.placement("j/u").getOrDefault(held, 0), "nothing new where it is kept off");
        assertTrue(h.placement("j/u").getOrDefault(other, 0) >= 1, "its new slot is on " + other + ": " + h.placement("j/u"));
        h.handle(new UnitBlacklistChanged(U, Set.of()));
        assertEquals(before, h.placement("j/u").getOrDefault(held, 0), "lifted, the free slot there is its again: " + h.placement("j/u"));
    }

    @Test
    void aNameThatIsNoNodeNameIsRefusedAndChangesNothing() {
        Harness h = Harness.withFifo().nodes("n", "r1", 1, 400, 4096);
        h.submit("j", unit("u", 100, 512, 2));
        InvalidRequestException ex = assertThrows(InvalidRequestException.class,
                () -> h.handle(new UnitBlacklistChanged(U, Set.of("n0", "bad name"))));
        assertTrue(ex.getMessage().contains("bad name"), ex.getMessage());
        assertEquals(Set.of(), h.engine.view().unit(U).spec().blacklist());
        assertEquals(Map.of("n0", 2), h.placement("j/u"));
    }

    @Test
    void anUnknownUnitIsRefused() {
        Harness h = Harness.withFifo().nodes("n", "r1", 1, 400, 4096);
        assertThrows(InvalidRequestException.class, () -> h.handle(new UnitBlacklistChanged(U, Set.of("n0"))));
    }
}

package granary.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import granary.api.model.UnitId;
import org.junit.jupiter.api.Test;

/** The client's view of where its units hold slots, and which hint changes a listener hears of. */
class HoldingsTest {

    private static final UnitId U = new UnitId("j", "tasks");

    @Test
    void aChangeIsACountOrAnAgentThatMoved() {
        Holdings h = new Holdings();
        assertEquals(new Holdings.Change(U, "n1", "http://a:1", 0, 3), h.set(U, "n1", 3, "http://a:1"));
        assertNull(h.set(U, "n1", 3, "http://a:1"), "the same count at the same address: nothing to hear");
        assertEquals(new Holdings.Change(U, "n1", "http://a:2", 3, 3), h.set(U, "n1", 3, "http://a:2"),
                "the agent restarted elsewhere: plans must follow it");
        assertEquals(new Holdings.Change(U, "n1", "http://a:2", 3, 2), h.release(U, "n1"));
        assertEquals(new Holdings.Change(U, "n1", "http://a:3", 2, 0), h.set(U, "n1", 0, "http://a:3"));
        assertNull(h.set(U, "n1", 0, "http://a:4"), "none held before or after");
    }
}

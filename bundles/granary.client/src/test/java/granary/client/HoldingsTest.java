package granary.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import granary.api.model.UnitId;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The client's view of where its units hold slots, which hint changes a listener hears of, and its
 * holdings against hints that cross its releases (docs/protocol.md, "Marks"): a hint
 * written before the master applied a release must not give the released slots back — the job
 * master would give them back a second time, and the master would take running workers' slots.
 */
class HoldingsTest {

    private static final UnitId U = UnitId.parse("j/u");
    private final Holdings h = new Holdings();

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

    @Test
    void aHintWrittenBeforeTheReleaseDoesNotGiveTheSlotsBack() {
        h.set(U, "n1", 10, "http://a", 1, 4);
        assertEquals(10, h.slots(U, "n1"));
        Holdings.Change c = h.releasing(5, U, "n1", 3);
        assertEquals(new Holdings.Change(U, "n1", "http://a", 10, 7), c, "taken off at once");

        // the master re-granted one slot before it read the release: a hint through mark 4
        h.set(U, "n1", 11, "http://a", 1, 4);
        assertEquals(8, h.slots(U, "n1"), "11 held, 3 on their way back");

        // the hint written after it applied the release counts it
        h.set(U, "n1", 8, "http://a", 1, 5);
        assertEquals(8, h.slots(U, "n1"));
        assertEquals(0, h.releasing());
    }

    @Test
    void aRefusedReleaseTookNothing() {
        h.set(U, "n1", 4, "http://a", 1, 1);
        h.releasing(2, U, "n1", 4);
        assertEquals(0, h.slots(U, "n1"));
        assertEquals(List.of(), h.all(), "a full request does not report slots on their way back");
        assertEquals(List.of(new Holdings.Change(U, "n1", "http://a", 0, 4)), h.refused(2));
        assertEquals(4, h.slots(U, "n1"));
    }

    @Test
    void anExitTakesOneSlotWhateverIsOnItsWay() {
        h.set(U, "n1", 5, "http://a", 1, 1);
        h.releasing(2, U, "n1", 2);
        h.release(U, "n1");
        assertEquals(2, h.slots(U, "n1"), "5 - 1 ended - 2 given back");
        h.set(U, "n1", 2, "http://a", 1, 2);
        assertEquals(2, h.slots(U, "n1"));
    }

    @Test
    void aHintOfAnotherPairLeavesAReleaseOnItsWay() {
        h.set(U, "n1", 5, "http://a", 1, 1);
        h.set(U, "n2", 5, "http://b", 1, 1);
        h.releasing(2, U, "n1", 2);
        h.set(U, "n2", 6, "http://b", 1, 2);
        assertEquals(3, h.slots(U, "n1"), "the hint through mark 2 did not name n1: its count there is the old one");
        assertEquals(1, h.releasing());
    }
}

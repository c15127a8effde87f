package granary.master;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import granary.api.model.UnitId;
import granary.protocol.Hint;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * A job master's hints stay within their budget of items — placements, exits and plan passes
 * together — however many nodes it holds slots on; what does not fit follows in the next hints
 * (a job master on 5,000 nodes got one full hint of 1.5 MB, over the wire's limit, and never heard
 * from the master again).
 */
class JobMasterPeerTest {

    private static final long PASS_MILLIS = 600_000;

    @Test
    void aHintCarriesAtMostItsBudgetAndThePassesOfEveryNodeFollow() {
        JobMasterPeer j = new JobMasterPeer("jm1");
        UnitId u = UnitId.parse("j/u");
        for (int n = 0; n < 25; n++) {
            j.set(u, "n" + n, 1, 0);
        }
        j.sendFull(0);
        Set<String> placed = new HashSet<>();
        Set<String> passed = new HashSet<>();
        int hints = 0;
        while (j.hasNews()) {
            Hint h = j.nextHint(node -> "http://" + node, node -> 1, 10, node -> "pass-" + node, 0, PASS_MILLIS);
            hints++;
            assertTrue(h.placements().size() + h.exits().size() + h.passes().size() <= 10, h.toString());
            h.placements().forEach(p -> placed.add(p.node()));
            h.passes().forEach(p -> passed.add(p.node()));
            assertTrue(hints < 20, "the hints end");
        }
        assertEquals(25, placed.size());
        assertEquals(placed, passed, "every node with slots gets its pass");
        assertFalse(j.hasNews());
    }
}

package granary.master;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import granary.api.model.UnitId;
import granary.protocol.Cap;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * An agent's caps: after a registration the next cap is the whole table, each unit in it once,
 * whatever changed between the registration and the cap (a full cap after a grant listed the
 * granted unit twice, from the table and again as a change).
 */
class AgentPeerTest {

    private static final UnitId A = UnitId.parse("a/u");
    private static final UnitId B = UnitId.parse("b/u");

    private static Cap next(AgentPeer p) {
        return p.nextCap(job -> "jm-" + job, jm -> "key-" + jm, unit -> null, unit -> null, 100);
    }

    @Test
    void theFullCapAfterARegistrationListsEachUnitOnceWithItsCount() {
        AgentPeer p = new AgentPeer("n1");
        p.set(A, 1, false, 0);
        p.sendFull(0);
        p.set(B, 2, false, 1); // granted after the registration, before the cap left
        p.set(A, 3, false, 1);

        Cap full = next(p);

        assertTrue(full.full());
        List<String> listed = full.grants().stream().map(g -> g.unit() + "=" + g.slots()).sorted().toList();
        assertEquals(List.of("a/u=3", "b/u=2"), listed);
        assertFalse(p.hasNews(), "nothing is left for a next cap");
    }

    @Test
    void aChangeAfterTheFullCapLeftGoesInTheNextCap() {
        AgentPeer p = new AgentPeer("n1");
        p.sendFull(0);
        p.set(A, 1, false, 0);
        next(p);
        p.set(A, 2, false, 1);

        Cap change = next(p);

        assertFalse(change.full());
        assertEquals(List.of("a/u=2"), change.grants().stream().map(g -> g.unit() + "=" + g.slots()).toList());
    }
}

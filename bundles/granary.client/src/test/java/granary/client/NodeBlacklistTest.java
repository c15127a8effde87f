package granary.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** A job's own blacklist (docs/agent.md, "Blacklisting a node for one job"). */
class NodeBlacklistTest {

    @Test
    void failuresInARowBlacklistANodeUntilItExpires() {
        NodeBlacklist b = new NodeBlacklist(3, Duration.ofMinutes(10));
        assertFalse(b.ended("n1", true, 0));
        assertFalse(b.ended("n1", true, 1));
        assertFalse(b.ended("n2", true, 1), "another node's failures are its own");
        assertTrue(b.ended("n1", true, 2), "the third in a row");
        assertTrue(b.blacklisted("n1", 3));
        assertFalse(b.blacklisted("n2", 3));
        assertEquals(Set.of("n1"), b.nodes(3));
        assertFalse(b.ended("n1", true, 4), "already blacklisted: nothing new");
        assertFalse(b.blacklisted("n1", 2 + 600_000), "expired: tried again");
        assertFalse(b.ended("n1", true, 600_003), "from zero");
        assertEquals(Set.of(), b.nodes(600_003));
    }

    @Test
    void aSuccessEndsTheRun() {
        NodeBlacklist b = new NodeBlacklist(2, Duration.ofMinutes(1));
        assertFalse(b.ended("n1", true, 0));
        assertFalse(b.ended("n1", false, 1));
        assertFalse(b.ended("n1", true, 2), "one in a row again");
        assertTrue(b.ended("n1", true, 3));
    }

    @Test
    void zeroFailuresNeverBlacklistsAndBadSettingsAreRefused() {
        NodeBlacklist never = new NodeBlacklist(0, Duration.ofMinutes(1));
        for (int i = 0; i < 10; i++) {
            assertFalse(never.ended("n1", true, i));
        }
        assertFalse(never.blacklisted("n1", 10));
        assertThrows(IllegalArgumentException.class, () -> new NodeBlacklist(-1, Duration.ofMinutes(1)));
        assertThrows(IllegalArgumentException.class, () -> new NodeBlacklist(3, Duration.ZERO));
    }
}

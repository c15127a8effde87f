package granary.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.List;
import java.util.Set;
import java.util.TreeSet;

import org.junit.jupiter.api.Test;

/** The warning for a configuration PID no running part reads: the PID, the closest known one, all of them. */
class ConfigurationPidsTest {

    private static final Set<String> KNOWN = new TreeSet<>(Set.of("granary.engine", "granary.master", "granary.policy.quota",
            "granary.policy.queues", "granary.demo"));

    @Test
    void aMisspeltPidIsNamedWithItsClosestMatchAndTheKnownOnes() {
        assertEquals(List.of("--config: no part of the runtime reads configuration PID 'granary.polcy.quota'; did you mean "
                        + "'granary.policy.quota'? (known PIDs: granary.demo, granary.engine, granary.master, granary.policy.queues, "
                        + "granary.policy.quota)"),
                ConfigurationPids.warnings(List.of("granary.engine", "granary.polcy.quota"), KNOWN));
    }

    @Test
    void aPidFarFromEveryKnownOneGetsNoGuess() {
        assertNull(ConfigurationPids.closest("com.example.other", KNOWN));
        assertEquals(List.of("--config: no part of the runtime reads configuration PID 'x' (known PIDs: granary.demo, "
                + "granary.engine, granary.master, granary.policy.queues, granary.policy.quota)"),
                ConfigurationPids.warnings(List.of("x"), KNOWN));
    }

    @Test
    void knownPidsWarnNothing() {
        assertEquals(List.of(), ConfigurationPids.warnings(KNOWN, KNOWN));
        assertEquals(1, ConfigurationPids.distance("granary.polcy.quota", "granary.policy.quota"));
        assertEquals(3, ConfigurationPids.distance("kitten", "sitting"));
    }
}

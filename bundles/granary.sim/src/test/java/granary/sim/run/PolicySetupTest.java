package granary.sim.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import granary.api.spi.ExtensionPoint;

import org.junit.jupiter.api.Test;

/**
 * The stand-ins a replay adds where its set leaves a needed point empty come from the simulator's
 * configuration (defaults.properties) and the installed policies' own extension points: the code
 * names no policy. Real policies from the class path.
 */
class PolicySetupTest {

    private static List<String> selection(String set, boolean allOrNothing, SimDefaults defaults) {
        PolicySetup.Prepared p = PolicySetup.prepare(PolicySetSpec.parse(set), Sims.POLICIES, allOrNothing, List.of(), defaults);
        try {
            return p.selection();
        } finally {
            p.release();
        }
    }

    @Test
    void theShippedDefaultsRunFifoAndFallBackToFifoThenGang() {
        SimDefaults shipped = SimDefaults.shipped();
        assertEquals(List.of("fifo"), shipped.policies());
        assertEquals(List.of("fifo", "gang"), shipped.fallback());
        assertEquals(List.of("fifo", "gang", "queues"), selection("queues", true, shipped), "added first: the set's own choices win");
    }

    @Test
    void theConfiguredFallbackDecidesWhoStandsIn() {
        assertEquals(List.of("sjf", "quota"), selection("quota", false, new SimDefaults(List.of(), List.of("sjf"))));
        PolicySetup.Prepared p = PolicySetup.prepare(PolicySetSpec.parse("quota"), Sims.POLICIES, false, List.of(),
                new SimDefaults(List.of(), List.of("sjf")));
        try {
            assertTrue(p.notes().contains("unit-order: sjf added (the set names no unit order)"), p.notes()::toString);
        } finally {
            p.release();
        }
    }

    @Test
    void withoutAFallbackTheFirstInstalledPolicyThatImplementsThePointByName() {
        List<String> orders = new SimDefaults(List.of(), List.of()).implementing(Sims.POLICIES, ExtensionPoint.UNIT_ORDER);
        assertEquals(orders.stream().sorted().toList(), orders, "by name");
        assertEquals(List.of(orders.get(0), "quota"), selection("quota", false, new SimDefaults(List.of(), List.of())));
        // a fallback name that is not installed, or does not implement the point, is passed over
        assertEquals(List.of(orders.get(0), "quota"), selection("quota", false, new SimDefaults(List.of(), List.of("nosuch", "gang"))));
    }
}

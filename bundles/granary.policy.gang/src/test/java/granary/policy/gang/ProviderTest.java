package granary.policy.gang;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import java.util.ServiceLoader;

import granary.api.model.InvalidRequestException;
import granary.api.spi.PolicyProvider;

import org.junit.jupiter.api.Test;

/** The class-path provider is found by ServiceLoader and checks its options by name. */
class ProviderTest {

    private static PolicyProvider provider() {
        return ServiceLoader.load(PolicyProvider.class).stream().map(ServiceLoader.Provider::get)
                .filter(p -> p.declaration().name().equals("gang")).findFirst().orElseThrow();
    }

    @Test
    void makesNewInstancesAndRefusesBadOptions() {
        PolicyProvider p = provider();
        assertInstanceOf(GangPolicy.class, p.declaration().create(Map.of()));
        assertTrue(p.declaration().create(Map.of()) != p.declaration().create(Map.of()), "each call makes a new instance");
        assertEquals(Packing.FIRST_FIT, ((GangPolicy) p.declaration().create(Map.of("packing", "first_fit"))).packing());
        InvalidRequestException bad = assertThrows(InvalidRequestException.class, () -> p.declaration().create(Map.of("packing", "worst")));
        assertTrue(bad.getMessage().contains("'worst' is not one of BEST_FIT, FIRST_FIT"), bad.getMessage());
        InvalidRequestException unknown = assertThrows(InvalidRequestException.class, () -> p.declaration().create(Map.of("nosuch", "1")));
        assertTrue(unknown.getMessage().contains("nosuch: unknown option; known: packing, refuseNeverFitting"),
                unknown.getMessage());
    }
}

package granary.policy.reservation;

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
                .filter(p -> p.declaration().name().equals("reservation")).findFirst().orElseThrow();
    }

    @Test
    void makesNewInstancesWithTheirOptionsAndRefusesBadOnes() {
        PolicyProvider p = provider();
        ReservationPolicy d = assertInstanceOf(ReservationPolicy.class, p.declaration().create(Map.of()));
        assertEquals(ReservationOptions.DEFAULTS, d.options());
        assertTrue(p.declaration().create(Map.of()) != p.declaration().create(Map.of()), "each call makes a new instance");
        ReservationPolicy r = (ReservationPolicy) p.declaration().create(Map.of("thresholdMillis", "5000", "mode", "idle_first",
                "timeoutMillis", "0"));
        assertEquals(new ReservationOptions(5_000, Mode.IDLE_FIRST, 0), r.options());
        assertTrue(assertThrows(InvalidRequestException.class, () -> p.declaration().create(Map.of("mode", "random")))
                .getMessage().contains("'random' is not one of IDLE_FIRST, SPEC_FIRST"));
        assertTrue(assertThrows(InvalidRequestException.class, () -> p.declaration().create(Map.of("thresholdMillis", "-1")))
                .getMessage().contains("thresholdMillis: must be 0 or more, got -1"));
        assertTrue(assertThrows(InvalidRequestException.class, () -> p.declaration().create(Map.of("threshold", "1")))
                .getMessage().contains("threshold: unknown option; known: mode, thresholdMillis, timeoutMillis"));
        assertEquals(Map.of("mode", "IDLE_FIRST", "thresholdMillis", "5000", "timeoutMillis", "0", "target", "-",
                "locked", "0"), r.status());
    }
}

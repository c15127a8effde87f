package granary.policy.fifo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import java.util.ServiceLoader;

import granary.api.InvalidRequestException;
import granary.api.spi.PolicyProvider;

import org.junit.jupiter.api.Test;

/** The class-path provider is found by ServiceLoader and checks its options by name. */
class ProviderTest {

    private static PolicyProvider provider() {
        return ServiceLoader.load(PolicyProvider.class).stream().map(ServiceLoader.Provider::get)
                .filter(p -> p.name().equals("fifo")).findFirst().orElseThrow();
    }

    private static Map<String, String> option(String text) {
        int eq = text.indexOf('=');
        return Map.of(text.substring(0, eq), text.substring(eq + 1));
    }

    @Test
    void makesNewInstancesAndRefusesBadOptions() {
        PolicyProvider p = provider();
        assertInstanceOf(FifoPolicy.class, p.create(Map.of()));
        assertTrue(p.create(Map.of()) != p.create(Map.of()), "each call makes a new instance");
        assertEquals("fifo", p.create(option("priorityFirst=false")).name());
        InvalidRequestException unknown = assertThrows(InvalidRequestException.class, () -> p.create(Map.of("nosuch", "1")));
        assertTrue(unknown.getMessage().contains("nosuch: unknown option; known: "), unknown.getMessage());
        InvalidRequestException bad = assertThrows(InvalidRequestException.class, () -> p.create(option("priorityFirst=maybe")));
        assertTrue(bad.getMessage().contains("neither true nor false"), bad.getMessage());
        assertTrue(p.options().keySet().containsAll(java.util.Set.of("priorityFirst=false".split("=")[0])));
    }
}

package granary.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

import granary.api.model.InvalidRequestException;
import granary.api.spi.ExtensionPoint;
import granary.api.spi.Policy;
import granary.api.spi.PolicyProvider;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Every policy of the runtime's bundle set (target/policy-bundles) has a
 * class-path provider found by ServiceLoader, which makes new, independent instances and checks
 * its options by name.
 */
class PolicyProvidersIT {

    /** The runtime's policy jars (target/policy-bundles, assembled from every policy module of the build). */
    private static final ClassLoader POLICIES = policyJars();

    private static ClassLoader policyJars() {
        Path dir = It.target().resolve("policy-bundles");
        try (var s = Files.list(dir)) {
            URL[] jars = s.filter(p -> p.toString().endsWith(".jar")).sorted().map(p -> {
                try {
                    return p.toUri().toURL();
                } catch (MalformedURLException e) {
                    throw new IllegalStateException(e);
                }
            }).toArray(URL[]::new);
            return new URLClassLoader(jars, PolicyProvidersIT.class.getClassLoader());
        } catch (IOException e) {
            throw new IllegalStateException("no policy jars in " + dir.toAbsolutePath() + " (run the build from the root)", e);
        }
    }

    private static List<PolicyProvider> providers() {
        return ServiceLoader.load(PolicyProvider.class, POLICIES).stream().map(ServiceLoader.Provider::get).toList();
    }

    private static PolicyProvider provider(String name) {
        return providers().stream().filter(p -> p.declaration().name().equals(name)).findFirst()
                .orElseThrow(() -> new AssertionError("no provider for " + name));
    }

    @Test
    void everyPolicyBundleHasAProvider() {
        Set<String> names = providers().stream().map(p -> p.declaration().name()).collect(Collectors.toCollection(TreeSet::new));
        assertTrue(names.containsAll(Set.of("fifo", "fair", "submitwindow", "quota", "queues", "gang", "reservation")),
                names::toString);
        for (PolicyProvider p : providers()) {
            Policy a = p.declaration().create(Map.of());
            assertEquals(p.declaration().name(), a.name());
            assertNotSame(a, p.declaration().create(Map.of()), p.declaration().name() + ": each call makes a new instance");
            assertFalse(ExtensionPoint.of(a).isEmpty(), p.declaration().name() + " implements no extension point");
            InvalidRequestException unknown = assertThrows(InvalidRequestException.class,
                    () -> p.declaration().create(Map.of("nosuch", "1")), p.declaration().name());
            assertTrue(unknown.getMessage().contains("nosuch: unknown option; known: "), unknown.getMessage());
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource(delimiter = '|', textBlock = """
            fifo         | priorityFirst=false     | priorityFirst=maybe          | 'maybe' is neither true nor false
            fair         | measure=fraction        | measure=count                | 'count' is not one of FRACTION, SLOTS
            submitwindow | windowMillis=1000       | windowMillis=soon            | 'soon' is not a whole number
            quota        | preemption=false        | zone=Mars/Olympus            | 'Mars/Olympus' is not a time zone
            queues       | file=                   | file=/nope/queues.json       | cannot be read
            gang         | packing=first_fit       | packing=worst                | 'worst' is not one of BEST_FIT, FIRST_FIT
            reservation  | mode=idle_first         | mode=random                  | 'random' is not one of IDLE_FIRST, SPEC_FIRST
            """)
    void optionsAreReadAndBadOnesNamed(String name, String good, String bad, String message) {
        PolicyProvider p = provider(name);
        assertEquals(name, p.declaration().create(option(good)).name());
        assertNotNull(p.declaration().option(good.substring(0, good.indexOf('='))), name);
        InvalidRequestException e = assertThrows(InvalidRequestException.class, () -> p.declaration().create(option(bad)));
        assertTrue(e.getMessage().contains(message), e.getMessage());
    }

    private static Map<String, String> option(String text) {
        int eq = text.indexOf('=');
        return Map.of(text.substring(0, eq), text.substring(eq + 1));
    }
}

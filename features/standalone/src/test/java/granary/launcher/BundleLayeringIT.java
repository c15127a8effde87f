package granary.launcher;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.jar.JarFile;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

/**
 * The dependency rules between Granary's bundles, read from the manifests bnd generated (what the
 * framework enforces at run time): the API depends on nothing of ours; a policy depends on the API
 * only (and on the codec, to read its own configuration files); the engine never on a policy;
 * besides the engine bundle only the simulator, which drives an engine of its own, and the tools beside the live
 * engine (the canary; the metrics, which time its events through EngineHost) see the engine; no bundle reaches into
 * the engine's internals; only the edges (console, launcher-facing bundles) use OSGi service APIs; the
 * edges (console, simulator, metrics, HTTP API) serve every policy from its declaration and import no policy package.
 */
class BundleLayeringIT {

    private static List<String> imports(String bundle) throws IOException {
        Path jar = It.target().resolve("bundles").resolve(bundle + ".jar");
        try (JarFile j = new JarFile(jar.toFile())) {
            String header = j.getManifest().getMainAttributes().getValue("Import-Package");
            List<String> packages = new ArrayList<>();
            if (header != null) {
                // package names are the entries' first segments; attributes never contain ',' outside quotes
                for (String clause : header.split(",(?=(?:[^\"]*\"[^\"]*\")*[^\"]*$)")) {
                    packages.add(clause.split(";")[0].trim());
                }
            }
            return packages;
        }
    }

    private static List<String> granaryBundles() throws IOException {
        try (Stream<Path> s = Files.list(It.target().resolve("bundles"))) {
            return s.map(p -> p.getFileName().toString().replace(".jar", ""))
                    .filter(n -> n.startsWith("granary.")).sorted().toList();
        }
    }

    @Test
    void theApiDependsOnNothingOfOurs() throws IOException {
        for (String p : imports("granary.api")) {
            assertTrue(p.startsWith("java.") || p.startsWith("granary.api"), "granary.api imports " + p);
        }
    }

    @Test
    void policiesDependOnTheApiAndCodecOnly() throws IOException {
        List<String> policies = granaryBundles().stream().filter(b -> b.startsWith("granary.policy.")).toList();
        assertFalse(policies.isEmpty());
        for (String b : policies) {
            for (String p : imports(b)) {
                // a policy's own api package counts too: bnd imports what a bundle exports (substitutable)
                assertTrue(p.startsWith("java.") || p.startsWith("granary.api") || p.equals("granary.codec")
                        || p.equals("granary.codec.json") || p.startsWith(b + "."),
                        b + " imports " + p);
            }
        }
    }

    @Test
    void theEngineNeverDependsOnAPolicy() throws IOException {
        for (String p : imports("granary.engine")) {
            assertFalse(p.startsWith("granary.policy"), "granary.engine imports " + p);
            // OSGi only at the edge, in granary.engine.osgi: the DS component and the policy extender
            // (bundle tracking, Config Admin PIDs and metatype of hosted policies)
            assertTrue(p.startsWith("java.") || p.startsWith("granary.") || p.startsWith("org.osgi.framework")
                    || p.startsWith("org.osgi.util.tracker") || p.equals("org.osgi.service.cm")
                    || p.equals("org.osgi.service.metatype"), "granary.engine imports " + p);
        }
    }

    /**
     * The bundles that may import the engine's package: itself, the simulator, and the tools beside the
     * live engine — the console among them, for the one thing Scheduler does not tell: the submissions
     * the live loop refused (its HandlingListener, counted in granary:status).
     */
    private static final List<String> SEE_THE_ENGINE = List.of("granary.engine", "granary.sim", "granary.canary", "granary.metrics",
            "granary.console");

    @Test
    void onlyTheEngineBundleTheSimulatorTheToolsAndTheConsoleSeeTheEngine() throws IOException {
        for (String b : granaryBundles()) {
            if (!SEE_THE_ENGINE.contains(b)) {
                for (String p : imports(b)) {
                    assertFalse(p.startsWith("granary.engine"), b + " imports " + p + ": use granary.api's Scheduler");
                }
            }
        }
    }

    @Test
    void noBundleSeesTheEnginesPrivatePackages() throws IOException {
        for (String b : granaryBundles()) {
            for (String p : imports(b)) {
                assertFalse(p.startsWith("granary.engine."), b + " imports " + p + ": the engine exports granary.engine only");
            }
        }
    }

    @Test
    void theEdgesImportNoPolicyPackage() throws IOException {
        for (String b : List.of("granary.console", "granary.sim", "granary.metrics", "granary.http")) {
            for (String p : imports(b)) {
                assertFalse(p.startsWith("granary.policy"), b + " imports " + p
                        + ": read the policy's reports, commands, resources and metrics from its PolicyDeclaration");
            }
        }
    }
}

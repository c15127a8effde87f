package granary.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.lang.reflect.Array;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.stream.Collectors;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.osgi.framework.Bundle;
import org.osgi.framework.ServiceReference;

/**
 * The whole bundle set of the runnable jar in a real framework (Felix or Equinox, per run), started
 * the way the launcher starts it, with the demo at its defaults. Talks to the runtime through the
 * framework API, Gogo and Config Admin, as an operator would.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RuntimeIT {

    private static Path work;
    private static Container container;
    private static GogoSession gogo;
    private static final ByteArrayOutputStream printed = new ByteArrayOutputStream();

    @BeforeAll
    static void start() throws Exception {
        work = Files.createTempDirectory("granary-it-");
        container = Container.start(It.factory(), It.frameworkProperties(work),
                EmbeddedBundle.listIn(It.runnableJar()), Map.of());
        container.awaitCommands("granary", It.TIMEOUT);
        PrintStream out = new PrintStream(printed, true, StandardCharsets.UTF_8);
        gogo = GogoSession.open(container.context(), new ByteArrayInputStream(new byte[0]), out, out);
    }

    @AfterAll
    static void stop() {
        if (gogo != null) {
            gogo.close();
        }
        if (container != null) {
            container.stop(It.TIMEOUT);
        }
        Main.deleteTree(work);
    }

    private static Map<String, String> status() {
        try {
            return It.keyValues(gogo.run("granary:status"));
        } catch (Exception e) {
            throw new AssertionError("granary:status failed", e);
        }
    }

    @Test
    @Order(1)
    void everyBundleIsActive() throws Exception {
        assertEquals(List.of(), container.problems());
        assertEquals(List.of(), container.notActive());
        List<String> expected = EmbeddedBundle.listIn(It.runnableJar()).stream().map(EmbeddedBundle::symbolicName)
                .sorted().toList();
        List<String> installed = container.bundles().stream().map(Bundle::getSymbolicName).sorted().toList();
        assertEquals(expected, installed);
        for (String bsn : List.of("granary.api", "granary.engine", "granary.policy.fifo", "granary.policy.fair",
                "granary.codec", "granary.console", "granary.demo", "org.apache.felix.scr",
                "org.apache.felix.configadmin", "org.apache.felix.metatype", "org.apache.felix.gogo.runtime",
                "org.apache.felix.gogo.jline", "org.jline", "org.apache.felix.gogo.command", "com.google.gson")) {
            assertTrue(installed.contains(bsn), bsn + " is part of the bundle set: " + installed);
        }
    }

    @Test
    @Order(1)
    void everyPolicyFolderOfTheRepositoryIsInTheRuntime() throws Exception {
        // a new policy is its own bundles/granary.policy.<name> folder plus its module line: the
        // runtime picks it up without naming it (docs/policies.md, "Writing a policy")
        Path bundles = It.target().toAbsolutePath().getParent().getParent().getParent().resolve("bundles");
        List<String> folders;
        try (var s = Files.list(bundles)) {
            folders = s.map(p -> p.getFileName().toString()).filter(n -> n.startsWith("granary.policy."))
                    .filter(n -> Files.isRegularFile(bundles.resolve(n).resolve("pom.xml"))).sorted().toList();
        }
        assertTrue(folders.size() >= 8, "policy folders under " + bundles + ": " + folders);
        List<String> installed = container.bundles().stream().map(Bundle::getSymbolicName).toList();
        assertEquals(List.of(), folders.stream().filter(f -> !installed.contains(f)).toList(),
                "policy folders whose bundle is not in the runtime");
    }

    @Test
    @Order(2)
    void theSchedulerServiceComesFromTheEngine() {
        ServiceReference<?> ref = Container.service(container.context(), "granary.api.event.Scheduler");
        assertNotNull(ref, "granary.api.event.Scheduler service");
        assertEquals("granary.engine", ref.getBundle().getSymbolicName());
    }

    @Test
    @Order(3)
    void theDemoClusterRunsByDefault() {
        It.await("200 demo nodes and grants", () -> {
            Map<String, String> s = status();
            return "200".equals(s.get("nodes")) && Long.parseLong(s.get("decisions")) > 0;
        }, RuntimeIT::status, It.TIMEOUT);
        assertEquals("sjf", status().get("policy.unit-order"));
        assertEquals("ok", status().get("health"), "every selected policy is configured: nothing holds the engine");
    }

    /**
     * Every policy the runtime selects at start (granary-runtime.properties) is a bundle of this jar and
     * in effect, and every one of its fallback order is installed: a default that names a policy the
     * runtime does not carry would quietly run on the fallback.
     */
    @Test
    @Order(3)
    void everyPolicyOfTheDefaultSelectionIsInEffect() throws Exception {
        Properties defaults = new Properties();
        try (var in = Launcher.class.getResourceAsStream(Launcher.RUNTIME_DEFAULTS)) {
            assertNotNull(in, Launcher.RUNTIME_DEFAULTS);
            defaults.load(in);
        }
        List<String> selected = List.of(defaults.getProperty("granary.engine.policies").split(","));
        List<String> fallback = List.of(defaults.getProperty("granary.engine.fallback").split(","));
        assertEquals("sjf", selected.get(0), "the unit order of the default selection: " + selected);
        List<String> installed = container.bundles().stream().map(Bundle::getSymbolicName).toList();
        for (String name : concat(selected, fallback)) {
            assertTrue(installed.contains("granary.policy." + name), name + " is not in the runtime: " + installed);
        }
        String policies = gogo.run("granary:policies");
        for (String name : selected) {
            assertTrue(policies.lines().anyMatch(l -> l.matches(name + "\\s+.*\\sactive")), name + " not active:\n" + policies);
        }
    }

    private static List<String> concat(List<String> a, List<String> b) {
        List<String> all = new ArrayList<>(a);
        all.addAll(b);
        return all;
    }

    @Test
    @Order(4)
    void theDemoFollowsItsConfiguration() {
        Configurations.update(container.context(), Map.of(Launcher.DEMO_PID,
                Map.of("rooms", 1, "nodesPerRoom", 3, "jobsPerSecond", 0.0)));
        It.await("a demo of 3 nodes and no jobs", () -> {
            Map<String, String> s = status();
            return "3".equals(s.get("nodes")) && "0".equals(s.get("jobs"));
        }, RuntimeIT::status, It.TIMEOUT);

        Configurations.update(container.context(), Map.of(Launcher.DEMO_PID, Map.of("enabled", false)));
        It.await("no demo", () -> "0".equals(status().get("nodes")), RuntimeIT::status, It.TIMEOUT);
    }

    @Test
    @Order(5)
    void theDemoConfigurationIsDescribedByMetatype() throws Exception {
        Map<String, String> descriptions = Metatype.attributeDescriptions(container.context(), "granary.demo", "granary.demo");
        assertTrue(descriptions.keySet().containsAll(List.of("enabled", "rooms", "nodesPerRoom", "nodeCpu", "nodeMemMb",
                "jobsPerSecond", "maxRunningJobs", "minTaskMillis", "maxTaskMillis")), descriptions::toString);
        List<String> undescribed = descriptions.entrySet().stream().filter(e -> e.getValue() == null || e.getValue().isBlank())
                .map(Map.Entry::getKey).collect(Collectors.toList());
        assertEquals(List.of(), undescribed, "attributes without a description");
    }

    @Test
    @Order(6)
    void consoleCommandsAnswer() throws Exception {
        String policies = gogo.run("granary:policies");
        assertTrue(policies.lines().anyMatch(l -> l.matches("sjf\\s+unit-order\\s+granary\\.policy\\.sjf\\s+\\S+\\s+active")),
                policies);
        assertTrue(gogo.run("granary:policy fair").contains("unit-order: sjf -> fair"));
        assertEquals("fair", status().get("policy.unit-order"));
    }

    /** Reads the Metatype service by reflection: its API is inside the framework, not on the test class path. */
    static final class Metatype {
        static Map<String, String> attributeDescriptions(org.osgi.framework.BundleContext ctx, String bsn, String pid)
                throws Exception {
            ServiceReference<?> ref = Container.service(ctx, "org.osgi.service.metatype.MetaTypeService");
            assertNotNull(ref, "MetaTypeService");
            Bundle api = ref.getBundle();
            Object service = ctx.getService(ref);
            Bundle target = List.of(ctx.getBundles()).stream().filter(b -> bsn.equals(b.getSymbolicName())).findFirst()
                    .orElseThrow();
            Object info = api.loadClass("org.osgi.service.metatype.MetaTypeService")
                    .getMethod("getMetaTypeInformation", Bundle.class).invoke(service, target);
            Class<?> infoType = api.loadClass("org.osgi.service.metatype.MetaTypeInformation");
            List<String> pids = List.of((String[]) infoType.getMethod("getPids").invoke(info));
            assertTrue(pids.contains(pid), pid + " in " + pids);
            Object ocd = api.loadClass("org.osgi.service.metatype.MetaTypeProvider")
                    .getMethod("getObjectClassDefinition", String.class, String.class).invoke(info, pid, null);
            Class<?> ocdType = api.loadClass("org.osgi.service.metatype.ObjectClassDefinition");
            Object ads = ocdType.getMethod("getAttributeDefinitions", int.class).invoke(ocd, -1);   // ALL
            Class<?> adType = api.loadClass("org.osgi.service.metatype.AttributeDefinition");
            Map<String, String> out = new java.util.TreeMap<>();
            List<Object> list = new ArrayList<>();
            for (int i = 0; i < Array.getLength(ads); i++) {
                list.add(Array.get(ads, i));
            }
            for (Object ad : list) {
                out.put((String) adType.getMethod("getID").invoke(ad), (String) adType.getMethod("getDescription").invoke(ad));
            }
            ctx.ungetService(ref);
            return out;
        }
    }
}

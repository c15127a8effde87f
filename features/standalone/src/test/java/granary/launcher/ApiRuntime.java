package granary.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.jar.JarInputStream;

import granary.api.event.PolicyReconfigured;
import granary.api.event.Receipt;
import granary.api.event.Scheduler;
import granary.api.event.InputEvent;
import granary.api.report.Report;
import granary.api.spi.EngineView;
import granary.api.spi.PolicyProvider;
import granary.api.spi.ReportSpec;

import org.osgi.framework.Bundle;

/**
 * A real framework (Felix or Equinox, per failsafe run) with the runnable jar's bundle set, in which
 * the test talks to the scheduler with the typed API. For that the test and the bundles share one
 * copy of the {@code granary.api} classes: the framework exports the packages from the class path
 * ({@code org.osgi.framework.system.packages.extra}, with the api bundle's own Export-Package
 * header) and the granary.api bundle is not installed. A policy's own api package is not shared: the
 * test reads a policy's state through the api (its status, its reports). The demo is off.
 */
final class ApiRuntime implements AutoCloseable {

    private final Path work;
    private final Container container;
    private final Scheduler scheduler;

    private ApiRuntime(Path work, Container container, Scheduler scheduler) {
        this.work = work;
        this.container = container;
        this.scheduler = scheduler;
    }

    /** Starts the runtime; {@code config} adds Config Admin settings (PID → properties). */
    static ApiRuntime start(Map<String, Map<String, Object>> config) throws Exception {
        Path work = Files.createTempDirectory("granary-it-");
        List<EmbeddedBundle> all = EmbeddedBundle.listIn(It.runnableJar());
        EmbeddedBundle api = all.stream().filter(b -> b.symbolicName().equals("granary.api")).findFirst().orElseThrow();
        Map<String, String> props = new HashMap<>(It.frameworkProperties(work));
        props.put("org.osgi.framework.system.packages.extra", exports(api));
        Map<String, Map<String, Object>> configs = new LinkedHashMap<>(config);
        configs.put(Launcher.DEMO_PID, Map.of("enabled", false));
        Container container = Container.start(It.factory(), props, all.stream().filter(b -> b != api).toList(), configs);
        assertEquals(List.of(), container.notActive());
        var ref = container.context().getServiceReference(Scheduler.class);
        assertNotNull(ref, "Scheduler service");
        ApiRuntime runtime = new ApiRuntime(work, container, container.context().getService(ref));
        runtime.awaitPoliciesInstalled();
        return runtime;
    }

    /**
     * Waits until the engine has installed every policy whose bundle declared one: the extender
     * registers them while the framework starts, so the engine may not have them all yet when the
     * bundles are active.
     */
    private void awaitPoliciesInstalled() throws Exception {
        java.util.Set<String> declared = new java.util.TreeSet<>();
        for (var r : container.context().getServiceReferences(PolicyProvider.class, null)) {
            declared.add(String.valueOf(r.getProperty("granary.policy.name")));
        }
        It.await("the engine installed " + declared, () -> query(v -> v.policies().stream().map(p -> p.name()).toList())
                .containsAll(declared), () -> query(v -> v.policies().stream().map(p -> p.name()).toList()), It.TIMEOUT);
    }

    private static String exports(EmbeddedBundle b) throws java.io.IOException {
        try (JarInputStream in = new JarInputStream(b.open())) {
            return in.getManifest().getMainAttributes().getValue("Export-Package");
        }
    }

    Receipt submit(InputEvent e) throws Exception {
        return scheduler.submit(e).get(It.TIMEOUT.toSeconds(), TimeUnit.SECONDS);
    }

    <T> T query(Function<EngineView, T> q) {
        try {
            return scheduler.query(q).get(It.TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    /** Every bundle the runtime installed. */
    List<Bundle> bundles() {
        return container.bundles();
    }

    /**
     * The report {@code report} of the installed policy {@code policy}, read through the declaration
     * its bundle registered (service property {@code granary.policy.name}); null while it is not there.
     */
    Report report(String policy, String report) {
        try {
            var refs = container.context().getServiceReferences(PolicyProvider.class, "(granary.policy.name=" + policy + ")");
            if (refs.isEmpty()) {
                return null;
            }
            var ref = refs.iterator().next();
            ReportSpec spec = container.context().getService(ref).declaration().reports().stream()
                    .filter(r -> r.name().equals(report)).findFirst().orElseThrow();
            container.context().ungetService(ref);
            return query(v -> v.policy(policy) == null ? null : spec.read(v.policy(policy), v));
        } catch (org.osgi.framework.InvalidSyntaxException e) {
            throw new AssertionError(e);
        }
    }

    /**
     * Runs the command {@code command} of the policy {@code policy} as the console does: prepared
     * through the declaration its bundle registered (so that settings are of the bundle's own
     * classes), then handed to the engine; returns the engine's receipt (its notes).
     */
    Receipt command(String policy, String command, String... args) throws Exception {
        var ref = container.context().getServiceReferences(PolicyProvider.class, "(granary.policy.name=" + policy + ")")
                .stream().findFirst().orElseThrow(() -> new AssertionError("policy " + policy + " is not there"));
        try {
            var spec = container.context().getService(ref).declaration().commands().stream()
                    .filter(c -> c.name().equals(command)).findFirst().orElseThrow();
            var work = spec.prepare(List.of(args));
            assertTrue(work.changesState(), command + " changes settings");
            return submit(new PolicyReconfigured(policy, work.settings()));
        } finally {
            container.context().ungetService(ref);
        }
    }

    /** Whether the console offers {@code granary:<name>} now (a Gogo function service of that name). */
    boolean consoleHas(String name) {
        try {
            return container.context().getAllServiceReferences(null,
                    "(&(osgi.command.scope=granary)(osgi.command.function=" + name + "))") != null;
        } catch (org.osgi.framework.InvalidSyntaxException e) {
            throw new AssertionError(e);
        }
    }

    /** A Gogo session on the runtime's shell, printing to {@code out}; the caller closes it. */
    GogoSession gogo(java.io.PrintStream out) {
        return GogoSession.open(container.context(), new java.io.ByteArrayInputStream(new byte[0]), out, out);
    }

    /** The runtime's HTTP server ({@code http://127.0.0.1:PORT}), once it listens. */
    java.net.URI httpUri() throws Exception {
        return Http.awaitListening(container.context(), new Http.Address("127.0.0.1", 0), false, It.TIMEOUT);
    }

    Bundle bundle(String bsn) {
        return container.bundles().stream().filter(b -> bsn.equals(b.getSymbolicName())).findFirst().orElseThrow();
    }

    @Override
    public void close() {
        container.stop(It.TIMEOUT);
        Main.deleteTree(work);
    }
}

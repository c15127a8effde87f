package granary.launcher;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeoutException;
import java.util.function.Predicate;

import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.BundleException;
import org.osgi.framework.Constants;
import org.osgi.framework.InvalidSyntaxException;
import org.osgi.framework.ServiceReference;
import org.osgi.framework.launch.Framework;
import org.osgi.framework.launch.FrameworkFactory;
import org.osgi.framework.wiring.BundleCapability;
import org.osgi.framework.wiring.BundleRevision;

/**
 * A started OSGi framework with the embedded bundles. Framework-neutral: it talks to Felix and
 * Equinox through the standard launching API only.
 *
 * <p>Start order: install every bundle, start the framework, start the runtime's service bundles
 * (SCR, Config Admin, Gogo, HTTP, ...; SPI Fly and the ServiceLoader providers first, see
 * {@link #feedsServiceLoader}), write the initial configurations, then start the Granary bundles,
 * so that a Granary component sees its configuration when it first activates.
 */
public final class Container {

    private final Framework framework;
    private final List<Bundle> bundles;
    private final List<String> problems;
    private final Predicate<Bundle> held;

    private Container(Framework framework, List<Bundle> bundles, List<String> problems, Predicate<Bundle> held) {
        this.held = held;
        this.framework = framework;
        this.bundles = List.copyOf(bundles);
        this.problems = new java.util.concurrent.CopyOnWriteArrayList<>(problems);
    }

    /**
     * Starts a framework with the bundles. A bundle that does not start is reported in
     * {@link #problems()}, not thrown: the rest of the runtime may still be useful.
     *
     * @param configurations initial Config Admin configurations, by PID
     * @throws BundleException if the framework does not start or a bundle cannot be installed
     */
    public static Container start(FrameworkFactory factory, Map<String, String> properties,
                                  List<EmbeddedBundle> embedded, Map<String, Map<String, Object>> configurations)
            throws BundleException {
        Container c = startHolding(factory, properties, embedded, configurations, b -> false);
        c.startHeld();
        return c;
    }

    /**
     * As {@link #start}, but the bundles {@code held} selects stay installed and resolved, not started,
     * until {@link #startHeld}: the launcher holds the console shell back until the runtime is ready.
     */
    public static Container startHolding(FrameworkFactory factory, Map<String, String> properties,
                                         List<EmbeddedBundle> embedded, Map<String, Map<String, Object>> configurations,
                                         Predicate<Bundle> held) throws BundleException {
        Framework framework = factory.newFramework(properties);
        framework.init();
        try {
            BundleContext context = framework.getBundleContext();
            List<Bundle> installed = new ArrayList<>();
            for (EmbeddedBundle b : embedded) {
                installed.add(context.installBundle("granary:" + b.entry(), b.open()));
            }
            framework.start();
            List<String> problems = new ArrayList<>();
            startAll(installed, b -> !isGranary(b) && !held.test(b) && feedsServiceLoader(b), problems);
            startAll(installed, b -> !isGranary(b) && !held.test(b) && !feedsServiceLoader(b), problems);
            if (!configurations.isEmpty()) {
                Configurations.update(context, configurations);
            }
            startAll(installed, b -> isGranary(b) && !held.test(b), problems);
            return new Container(framework, installed, problems, held);
        } catch (BundleException | RuntimeException e) {
            stop(framework, Duration.ofSeconds(10));
            throw e;
        }
    }

    private static boolean isGranary(Bundle b) {
        String bsn = b.getSymbolicName();
        return bsn != null && bsn.startsWith("granary.");
    }

    /**
     * SPI Fly (the OSGi ServiceLoader mediator) and the bundles whose ServiceLoader providers it
     * registers (slf4j-simple): started before the other runtime bundles, because a consumer binds
     * once, on first use — slf4j-api picks its provider when Jetty first logs, and with none yet it
     * stays silent (a no-operation logger) for the life of the runtime.
     */
    static boolean feedsServiceLoader(Bundle b) {
        BundleRevision revision = b.adapt(BundleRevision.class);
        if (revision == null) {
            return false;
        }
        for (BundleCapability c : revision.getDeclaredCapabilities(null)) {
            boolean mediator = "osgi.extender".equals(c.getNamespace())
                    && "osgi.serviceloader.registrar".equals(c.getAttributes().get("osgi.extender"));
            boolean provider = "osgi.serviceloader".equals(c.getNamespace()) && c.getDirectives().containsKey("register");
            if (mediator || provider) {
                return true;
            }
        }
        return false;
    }

    private static void startAll(List<Bundle> bundles, Predicate<Bundle> which, List<String> problems) {
        for (Bundle b : bundles) {
            if (which.test(b) && b.getHeaders().get(Constants.FRAGMENT_HOST) == null) {
                try {
                    b.start();
                } catch (BundleException | RuntimeException e) {
                    problems.add("bundle " + b.getSymbolicName() + " did not start: " + e.getMessage());
                }
            }
        }
    }

    /** Starts the bundles held back by {@link #startHolding}; a failure is added to {@link #problems()}. */
    public void startHeld() {
        List<String> more = new ArrayList<>();
        // JLine finds its terminal providers (exec, jni, ...) through the thread's context class
        // loader; Gogo's JLine shell builds its terminal in the thread that starts it, this one.
        // Without JLine's own loader there it falls back to a dumb terminal: no editing, no history.
        Thread t = Thread.currentThread();
        ClassLoader before = t.getContextClassLoader();
        ClassLoader jline = bundles.stream().filter(b -> "org.jline".equals(b.getSymbolicName()))
                .map(b -> b.adapt(org.osgi.framework.wiring.BundleWiring.class)).filter(java.util.Objects::nonNull)
                .map(org.osgi.framework.wiring.BundleWiring::getClassLoader).findFirst().orElse(before);
        t.setContextClassLoader(jline);
        try {
            startAll(bundles, held, more);
        } finally {
            t.setContextClassLoader(before);
        }
        problems.addAll(more);
    }

    public Framework framework() {
        return framework;
    }

    public BundleContext context() {
        return framework.getBundleContext();
    }

    /** The embedded bundles, in install order. */
    public List<Bundle> bundles() {
        return bundles;
    }

    /** Bundles that did not start, one message each. */
    public List<String> problems() {
        return List.copyOf(problems);
    }

    /** The embedded bundles that are not ACTIVE (fragments are RESOLVED by nature and count as fine). */
    public List<String> notActive() {
        List<String> out = new ArrayList<>();
        for (Bundle b : bundles) {
            boolean fragment = b.getHeaders().get(Constants.FRAGMENT_HOST) != null;
            if (b.getState() != Bundle.ACTIVE && !(fragment && b.getState() == Bundle.RESOLVED)) {
                out.add(b.getSymbolicName() + " " + stateName(b.getState()));
            }
        }
        return out;
    }

    /**
     * Waits until a Gogo command of {@code scope} is registered: until then (while DS activates the
     * components) Gogo answers "Command not found".
     *
     * @throws TimeoutException naming the scope, the time waited and the bundles not ACTIVE
     */
    public void awaitCommands(String scope, Duration timeout) throws TimeoutException, InterruptedException {
        String filter = "(osgi.command.scope=" + scope + ")";
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            try {
                ServiceReference<?>[] refs = context().getAllServiceReferences(null, filter);
                if (refs != null && refs.length > 0) {
                    return;
                }
            } catch (InvalidSyntaxException e) {
                throw new IllegalArgumentException("bad command scope '" + scope + "': " + e.getMessage(), e);
            }
            if (System.nanoTime() > deadline) {
                throw new TimeoutException("no " + scope + ":* commands after " + timeout.toSeconds()
                        + " s; bundles not active: " + notActive() + "; start problems: " + problems);
            }
            Thread.sleep(20);   // the launcher is outside the framework: it polls the registry, with a deadline
        }
    }

    /**
     * The best service registered under {@code className}, whatever class loader the caller's copy
     * of that class comes from, or null. The launcher is outside the framework and talks to
     * services by reflection; {@code getServiceReference} would hide a service whose API class the
     * system bundle happens to see in another copy (e.g. on a test class path).
     */
    public static ServiceReference<?> service(BundleContext context, String className) {
        try {
            ServiceReference<?>[] refs = context.getAllServiceReferences(className, null);
            if (refs == null || refs.length == 0) {
                return null;
            }
            ServiceReference<?> best = refs[0];
            for (ServiceReference<?> r : refs) {
                if (r.compareTo(best) > 0) {
                    best = r;   // higher ranking, then lower service id
                }
            }
            return best;
        } catch (InvalidSyntaxException e) {
            throw new IllegalStateException(e);   // no filter given: cannot happen
        }
    }

    /** Waits until the framework has stopped (e.g. the Gogo shell stopped it at the end of its input). */
    public void awaitStop() throws InterruptedException {
        framework.waitForStop(0);
    }

    /** Stops the framework and waits for it, at most {@code timeout}. Idempotent. */
    public void stop(Duration timeout) {
        stop(framework, timeout);
    }

    private static void stop(Framework framework, Duration timeout) {
        try {
            if ((framework.getState() & (Bundle.STARTING | Bundle.ACTIVE | Bundle.STOPPING)) != 0) {
                framework.stop();
            }
            framework.waitForStop(timeout.toMillis());
        } catch (BundleException | RuntimeException e) {
            // stopping anyway; the caller exits the JVM next
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    static String stateName(int state) {
        return switch (state) {
            case Bundle.UNINSTALLED -> "UNINSTALLED";
            case Bundle.INSTALLED -> "INSTALLED";
            case Bundle.RESOLVED -> "RESOLVED";
            case Bundle.STARTING -> "STARTING";
            case Bundle.STOPPING -> "STOPPING";
            case Bundle.ACTIVE -> "ACTIVE";
            default -> "state " + state;
        };
    }
}

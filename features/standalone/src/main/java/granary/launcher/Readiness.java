package granary.launcher;

import java.lang.reflect.Array;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.ServiceReference;

/**
 * When the runtime is ready for an operator: every Declarative Services component of the Granary
 * bundles is active (or has failed, which is final and reported), so the console's commands are
 * there and the demo's cluster has joined, and every hosted policy is installed (or its
 * configuration was refused, which is final and reported). The launcher shows the prompt
 * only then (docs/operations.md, "Starting the runtime").
 *
 * <p>The launcher is outside the framework: it reads Felix SCR's {@code ServiceComponentRuntime}
 * by reflection, like {@link Configurations} does Config Admin.
 */
final class Readiness {

    static final String SCR = "org.osgi.service.component.runtime.ServiceComponentRuntime";
    // ComponentConfigurationDTO states
    private static final int UNSATISFIED_CONFIGURATION = 1;
    private static final int UNSATISFIED_REFERENCE = 2;
    private static final int FAILED_ACTIVATION = 16;
    // the engine's policy extender (granary.engine.osgi.HostedPolicy)
    private static final String POLICY_PROVIDER = "granary.api.spi.PolicyProvider";
    private static final String POLICY = "granary.api.spi.Policy";
    private static final String POLICY_NAME = "granary.policy.name";
    private static final String POLICY_PROBLEM = "granary.policy.problem";
    private static final String PROBLEM = "granary.problem";

    private Readiness() {
    }

    /**
     * What is not ready. {@code waiting} may still come (a component waiting for a service, a policy
     * whose configuration has not arrived); {@code failed} will not recover by waiting (a component
     * that failed to activate, a policy whose configuration was refused).
     */
    record State(List<String> waiting, List<String> failed) {
        boolean ready() {
            return waiting.isEmpty() && failed.isEmpty();
        }
    }

    /**
     * Waits until no Granary component waits for a reference or a configuration and every hosted
     * policy has a working instance or a refused configuration, or until the deadline passes.
     */
    static State await(BundleContext context, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            List<String> waiting = new ArrayList<>();
            List<String> failed = new ArrayList<>();
            components(context, waiting, failed);
            refusals(context, failed);
            policies(context, waiting, failed);
            if (waiting.isEmpty() || System.nanoTime() > deadline) {
                return new State(List.copyOf(waiting), List.copyOf(failed));
            }
            Thread.sleep(20);   // outside the framework there is no event to wait on: poll, with a deadline
        }
    }

    /** Components that refused their configuration say so on a service (granary.demo does). */
    private static void refusals(BundleContext context, List<String> failed) {
        try {
            ServiceReference<?>[] refused = context.getAllServiceReferences(null, "(" + PROBLEM + "=*)");
            for (ServiceReference<?> r : refused == null ? new ServiceReference<?>[0] : refused) {
                failed.add(r.getProperty("granary.component") + ": " + r.getProperty(PROBLEM));
            }
        } catch (org.osgi.framework.InvalidSyntaxException e) {
            throw new IllegalStateException(e);   // the filter is a constant
        }
    }

    /**
     * The policies the engine's extender hosts (a PolicyProvider service each, named by
     * {@code granary.policy.name}): ready once their Policy service is registered (the engine installs
     * it before it answers any later command), failed when their configuration was refused (the
     * extender puts the problem on the provider's {@code granary.policy.problem} property).
     */
    private static void policies(BundleContext context, List<String> waiting, List<String> failed) {
        try {
            ServiceReference<?>[] hosted = context.getAllServiceReferences(POLICY_PROVIDER, "(" + POLICY_NAME + "=*)");
            for (ServiceReference<?> p : hosted == null ? new ServiceReference<?>[0] : hosted) {
                Object name = p.getProperty(POLICY_NAME);
                Object problem = p.getProperty(POLICY_PROBLEM);
                if (problem != null) {
                    failed.add("policy " + name + ": " + problem);
                } else if (context.getAllServiceReferences(POLICY, "(" + POLICY_NAME + "=" + name + ")") == null) {
                    waiting.add("policy " + name + ": waits for its configuration");
                }
            }
        } catch (org.osgi.framework.InvalidSyntaxException e) {
            throw new IllegalStateException(e);   // the filters are constants
        }
    }

    /** Sorts the Granary components that are not (yet) usable into waiting and failed. */
    private static void components(BundleContext context, List<String> waiting, List<String> failed) {
        ServiceReference<?> ref = Container.service(context, SCR);
        if (ref == null) {
            waiting.add("Declarative Services (no " + SCR + " service yet)");
            return;
        }
        Object scr = context.getService(ref);
        try {
            Class<?> api = ref.getBundle().loadClass(SCR);
            Method descriptions = api.getMethod("getComponentDescriptionDTOs", Bundle[].class);
            Class<?> descriptionType = ref.getBundle().loadClass("org.osgi.service.component.runtime.dto.ComponentDescriptionDTO");
            Method configurations = api.getMethod("getComponentConfigurationDTOs", descriptionType);
            for (Object d : (Collection<?>) descriptions.invoke(scr, (Object) Array.newInstance(Bundle.class, 0))) {
                Object bundle = field(d, "bundle");
                String bsn = (String) field(bundle, "symbolicName");
                if (bsn == null || !bsn.startsWith("granary.") || !(Boolean) field(d, "defaultEnabled")) {
                    continue;
                }
                String name = (String) field(d, "name");
                for (Object c : (Collection<?>) configurations.invoke(scr, d)) {
                    int state = (Integer) field(c, "state");
                    if (state == UNSATISFIED_CONFIGURATION || state == UNSATISFIED_REFERENCE) {
                        waiting.add(name + ": " + (state == UNSATISFIED_REFERENCE ? "waits for a service" : "waits for its configuration"));
                    } else if (state == FAILED_ACTIVATION) {
                        failed.add(name + " (PID " + String.join(", ", (String[]) field(d, "configurationPid"))
                                + "): failed to activate: " + firstLine((String) field(c, "failure")));
                    }
                }
            }
        } catch (ReflectiveOperationException | RuntimeException e) {
            waiting.add("Declarative Services not readable: " + e);
        } finally {
            context.ungetService(ref);
        }
    }

    /**
     * SCR keeps a failure as its whole stack trace: an operator gets the root cause's line (or the
     * first line), without the exception's class name ({@code a.b.SomeException: the message} → {@code the message}).
     */
    static String firstLine(String failure) {
        if (failure == null || failure.isBlank()) {
            return "(no reason given)";
        }
        // the root cause says what is wrong; the lines before it say where SCR noticed
        String line = failure.strip().lines().filter(l -> l.startsWith("Caused by: ")).reduce((a, b) -> b)
                .map(l -> l.substring("Caused by: ".length())).orElse(failure.strip().lines().findFirst().orElse(""));
        return line.replaceFirst("^(?:[a-zA-Z_$][\\w$]*\\.)+[A-Z][\\w$]*(?:Exception|Error): ", "");
    }

    private static Object field(Object dto, String name) throws ReflectiveOperationException {
        return dto.getClass().getField(name).get(dto);
    }
}

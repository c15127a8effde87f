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
 * there, the policies are installed and the demo's cluster has joined. The launcher shows the prompt
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

    private Readiness() {
    }

    /**
     * Waits until no Granary component is waiting for a reference or a configuration, or the
     * deadline passes.
     *
     * @return what is still not ready (component: state), empty when ready; failed activations are
     *         included, since they will not recover by waiting
     */
    static List<String> await(BundleContext context, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            List<String> waiting = new ArrayList<>();
            List<String> failed = new ArrayList<>();
            components(context, waiting, failed);
            if (waiting.isEmpty() || System.nanoTime() > deadline) {
                waiting.addAll(failed);
                return waiting;
            }
            Thread.sleep(20);   // outside the framework there is no event to wait on: poll, with a deadline
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
                        failed.add(name + ": failed to activate: " + field(c, "failure"));
                    }
                }
            }
        } catch (ReflectiveOperationException | RuntimeException e) {
            waiting.add("Declarative Services not readable: " + e);
        } finally {
            context.ungetService(ref);
        }
    }

    private static Object field(Object dto, String name) throws ReflectiveOperationException {
        return dto.getClass().getField(name).get(dto);
    }
}

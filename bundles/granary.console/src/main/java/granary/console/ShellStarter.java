package granary.console;

import java.util.Arrays;
import java.util.Optional;

import granary.api.event.Scheduler;

import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.BundleException;
import org.osgi.framework.wiring.BundleWiring;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;

/**
 * Starts the console shell bundle a framework property names, once the Granary commands are there,
 * with JLine's class loader as the starting thread's context class loader (docs/operations.md, "What
 * the console shows"). JLine finds its terminal providers through that loader; a stock Felix starts
 * its bundles on a thread whose loader is the launcher's, where JLine finds none and falls back to a
 * dumb terminal (no line editing: the up arrow prints {@code ^[[A}). The standalone launcher starts
 * the shell itself and leaves the property out.
 */
@Component(immediate = true, service = {})
public class ShellStarter {

    /** The framework property: the symbolic name of the shell bundle to start, e.g. org.apache.felix.gogo.jline. */
    public static final String PROPERTY = "granary.console.startShell";
    static final String JLINE = "org.jline";

    @Activate
    public ShellStarter(@Reference Scheduler commandsAreThere, BundleContext context) {
        String shell = context.getProperty(PROPERTY);
        if (shell == null || shell.isBlank()) {
            return;
        }
        Optional<Bundle> bundle = find(context, shell.strip());
        if (bundle.isEmpty()) {
            System.err.println("Warning: " + PROPERTY + "=" + shell + ": no such bundle is installed; no console is started");
            return;
        }
        if (bundle.get().getState() == Bundle.ACTIVE || bundle.get().getState() == Bundle.STARTING) {
            return;
        }
        // not on the component's activation thread: the shell's start must not wait on Declarative Services
        Thread t = new Thread(() -> start(bundle.get(), loader(context)), "granary-console-shell");
        t.setDaemon(true);
        t.start();
    }

    private static void start(Bundle shell, ClassLoader loader) {
        Thread.currentThread().setContextClassLoader(loader);
        try {
            // transient: a restarted Felix (its bundle cache kept) must not start the shell on its own
            // start-level thread, where JLine finds no terminal
            shell.start(Bundle.START_TRANSIENT);
        } catch (BundleException | IllegalStateException e) {
            System.err.println("Warning: the console shell " + shell.getSymbolicName() + " did not start: " + e.getMessage());
        }
    }

    private static Optional<Bundle> find(BundleContext context, String symbolicName) {
        return Arrays.stream(context.getBundles()).filter(b -> symbolicName.equals(b.getSymbolicName())).findFirst();
    }

    /** JLine's class loader, or none (JLine then looks in its own). */
    private static ClassLoader loader(BundleContext context) {
        return find(context, JLINE).map(b -> b.adapt(BundleWiring.class)).map(BundleWiring::getClassLoader).orElse(null);
    }
}

package granary.engine.osgi;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import granary.api.event.PolicyFailed;
import granary.api.event.Scheduler;
import granary.api.spi.PolicyProvider;

import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.BundleEvent;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;
import org.osgi.util.tracker.BundleTracker;
import org.osgi.util.tracker.BundleTrackerCustomizer;

/**
 * Hosts the policies of every started bundle that declares some (docs/architecture.md, "Policies
 * as bundles"). A policy bundle is plain Java: it names its {@link PolicyProvider} in
 * {@code META-INF/services/granary.api.spi.PolicyProvider}, exactly as it does for class-path users.
 * From each declaration this extender derives, in the policy bundle's name, what a DS component and
 * a metatype file would otherwise say a second time: the prototype-scoped {@code Policy} service,
 * the configuration PID {@code granary.policy.<name>} and its metatype description, and the
 * {@code PolicyProvider} service the console and the HTTP API read reports and commands from.
 * A stopped policy bundle takes all of it away; the engine then swaps the policy out.
 */
@Component(immediate = true)
public class PolicyExtender {

    static final String SERVICES_ENTRY = "META-INF/services/" + PolicyProvider.class.getName();

    private final PolicyHealth health;
    private final BundleTracker<List<HostedPolicy>> tracker;

    /** Reports refused configurations to the engine as {@link PolicyFailed} events. */
    @Activate
    public PolicyExtender(@Reference Scheduler scheduler, BundleContext context) {
        this(problem -> scheduler.submit(problem), context);
    }

    PolicyExtender(PolicyHealth health, BundleContext context) {
        this.health = health;
        this.tracker = new BundleTracker<>(context, Bundle.ACTIVE, new Customizer());
        tracker.open();
    }

    @Deactivate
    void deactivate() {
        tracker.close();
    }

    private final class Customizer implements BundleTrackerCustomizer<List<HostedPolicy>> {

        @Override
        public List<HostedPolicy> addingBundle(Bundle bundle, BundleEvent event) {
            List<String> classes = providerClasses(bundle);
            if (classes.isEmpty()) {
                return null;   // not a policy bundle: not tracked
            }
            List<HostedPolicy> hosted = new ArrayList<>();
            for (String name : classes) {
                PolicyProvider provider = load(bundle, name);
                if (provider != null) {
                    HostedPolicy h = new HostedPolicy(bundle.getBundleContext(), provider, health);
                    h.open();
                    hosted.add(h);
                }
            }
            return hosted;
        }

        @Override
        public void modifiedBundle(Bundle bundle, BundleEvent event, List<HostedPolicy> hosted) {
        }

        @Override
        public void removedBundle(Bundle bundle, BundleEvent event, List<HostedPolicy> hosted) {
            hosted.forEach(HostedPolicy::close);
        }
    }

    /** The provider class names a bundle lists (blank lines and {@code #} comments skipped). */
    static List<String> providerClasses(Bundle bundle) {
        URL entry = bundle.getEntry(SERVICES_ENTRY);
        List<String> names = new ArrayList<>();
        if (entry == null) {
            return names;
        }
        try (BufferedReader in = new BufferedReader(new InputStreamReader(entry.openStream(), StandardCharsets.UTF_8))) {
            for (String line = in.readLine(); line != null; line = in.readLine()) {
                int hash = line.indexOf('#');
                String name = (hash < 0 ? line : line.substring(0, hash)).trim();
                if (!name.isEmpty()) {
                    names.add(name);
                }
            }
        } catch (IOException e) {
            System.err.println("granary: cannot read " + SERVICES_ENTRY + " of bundle " + bundle.getSymbolicName() + ": " + e);
        }
        return names;
    }

    /**
     * Instantiates a provider through the policy bundle's class loader. A class that does not
     * implement this engine's {@link PolicyProvider} (the bundle is wired to another version of the
     * api) is skipped with a message: the engine could not use its policy.
     */
    private PolicyProvider load(Bundle bundle, String className) {
        String where = bundle.getSymbolicName() + " " + bundle.getVersion();
        try {
            Class<?> c = bundle.loadClass(className);
            if (!PolicyProvider.class.isAssignableFrom(c)) {
                health.failed(new PolicyFailed(className, where + ": " + className + " does not implement the granary.api.spi.PolicyProvider "
                        + "this engine uses (is the bundle wired to another granary.api version?)"));
                return null;
            }
            return (PolicyProvider) c.getConstructor().newInstance();
        } catch (ReflectiveOperationException | LinkageError | RuntimeException e) {
            health.failed(new PolicyFailed(className, where + ": cannot instantiate policy provider " + className + ": " + e));
            return null;
        }
    }
}

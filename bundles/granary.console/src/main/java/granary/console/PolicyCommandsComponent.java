package granary.console;

import java.util.Dictionary;
import java.util.Hashtable;

import granary.api.event.Scheduler;
import granary.api.spi.PolicyProvider;

import org.osgi.framework.BundleContext;
import org.osgi.framework.ServiceRegistration;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;

/**
 * Offers every installed policy's reports and commands as Gogo functions in scope {@code granary}.
 * It follows the {@code PolicyProvider} services the engine's policy extender registers, one per
 * started policy bundle: a bundle that starts adds its functions, one that stops takes them away.
 */
@Component(immediate = true, service = {})
public class PolicyCommandsComponent {

    private final BundleContext context;
    private final PolicyConsole console;

    @Activate
    public PolicyCommandsComponent(@Reference Scheduler scheduler, BundleContext context) {
        this.context = context;
        this.console = new PolicyConsole(scheduler, this::register, Commands.CORE_NAMES);
    }

    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC)
    void addPolicy(PolicyProvider provider) {
        console.added(provider, provider.declaration());
    }

    void removePolicy(PolicyProvider provider) {
        console.removed(provider);
    }

    @Deactivate
    void deactivate() {
        console.clear();
    }

    private Runnable register(String name, PolicyFunction function) {
        Dictionary<String, Object> props = new Hashtable<>();
        props.put("osgi.command.scope", "granary");
        props.put("osgi.command.function", name);
        ServiceRegistration<?> r = context.registerService(org.apache.felix.service.command.Function.class, function, props);
        return () -> {
            try {
                r.unregister();
            } catch (IllegalStateException alreadyGone) {
                // the bundle is stopping: the framework unregistered it first
            }
        };
    }
}

package granary.console;

import java.util.ArrayList;
import java.util.Dictionary;
import java.util.Hashtable;
import java.util.List;

import granary.api.event.Scheduler;

import org.osgi.framework.BundleContext;
import org.osgi.framework.ServiceRegistration;

import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;

/**
 * Registers {@link Commands} with Gogo (scope {@code granary}). Registered as {@code Object}: Gogo
 * finds commands by their properties, and every bundle can see {@code java.lang.Object}. Immediate,
 * so that the hyphenated commands it registers itself exist from the start.
 */
@Component(immediate = true, service = Object.class, property = {
        "osgi.command.scope=granary",
        "osgi.command.function=policies",
        "osgi.command.function=policy",
        "osgi.command.function=deselect",
        "osgi.command.function=status",
        "osgi.command.function=nodes",
        "osgi.command.function=jobs",
        "osgi.command.function=submit",
        "osgi.command.function=cancel",
        "osgi.command.function=blacklist",
        "osgi.command.function=unblacklist",
        "osgi.command.function=quotaLoad",
        "osgi.command.function=quota",
        "osgi.command.function=billing",
        "osgi.command.function=queues",
        "osgi.command.function=queuesLoad",
        "osgi.command.function=move",
        "osgi.command.function=reservations"})
public class CommandsComponent extends Commands {

    private final List<ServiceRegistration<?>> hyphenated = new ArrayList<>();

    @Activate
    public CommandsComponent(@Reference Scheduler scheduler, BundleContext context) {
        super(scheduler);
        for (HyphenatedCommand c : hyphenatedCommands()) {
            Dictionary<String, Object> props = new Hashtable<>();
            props.put("osgi.command.scope", "granary");
            props.put("osgi.command.function", c.name());
            hyphenated.add(context.registerService(org.apache.felix.service.command.Function.class, c, props));
        }
    }

    @Deactivate
    void deactivate() {
        for (ServiceRegistration<?> r : hyphenated) {
            try {
                r.unregister();
            } catch (IllegalStateException alreadyGone) {
                // the bundle is stopping: the framework unregistered it first
            }
        }
        hyphenated.clear();
    }
}

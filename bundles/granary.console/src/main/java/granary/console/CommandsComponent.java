package granary.console;

import granary.api.event.Scheduler;

import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;

/**
 * Registers the core {@link Commands} with Gogo (scope {@code granary}); the list of functions is
 * {@link Commands#CORE_NAMES}, kept equal to the properties below. Registered as {@code Object}: Gogo finds commands by their properties,
 * and every bundle can see {@code java.lang.Object}.
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
        "osgi.command.function=move",
        "osgi.command.function=why"})
public class CommandsComponent extends Commands {

    @Activate
    public CommandsComponent(@Reference Scheduler scheduler) {
        super(scheduler);
    }
}

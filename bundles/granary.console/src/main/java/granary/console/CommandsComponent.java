package granary.console;

import granary.api.event.Scheduler;
import granary.engine.EngineHost;
import granary.master.LeaderLease;

import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;

/**
 * Registers the core {@link Commands} with Gogo (scope {@code granary}), told of the submissions the
 * live engine refuses ({@link SubmissionRefusals}); the list of functions is
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

    private final SubmissionRefusals refusals;
    private AutoCloseable watch;

    @Activate
    public CommandsComponent(@Reference Scheduler scheduler) {
        this(scheduler, new SubmissionRefusals());
    }

    private CommandsComponent(Scheduler scheduler, SubmissionRefusals refusals) {
        super(scheduler, refusals);
        this.refusals = refusals;
    }

    /** The live event loop, when there is one: it tells the status of the submissions it refuses. */
    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC)
    synchronized void setHost(EngineHost host) {
        unsetHost(host);
        watch = host.watchHandling(refusals);
    }

    synchronized void unsetHost(EngineHost host) {
        if (watch != null) {
            try {
                watch.close();
            } catch (Exception e) {
                // the loop is stopping: it tells nobody any more
            }
            watch = null;
        }
    }

    /** This master's lease: under high availability the status says leader or standby. */
    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC)
    void setLease(LeaderLease lease) {
        lease(lease);
    }

    void unsetLease(LeaderLease lease) {
        lease(null);
    }

    @Deactivate
    void deactivate() {
        unsetHost(null);
    }
}

package granary.demo.osgi;

import java.util.Dictionary;
import java.util.Hashtable;
import java.util.List;

import granary.api.event.Scheduler;
import granary.demo.Demo;
import granary.demo.DemoSettings;

import org.osgi.framework.BundleContext;
import org.osgi.framework.ServiceRegistration;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.Designate;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;

/**
 * The demo as a DS component: runs while the {@link Scheduler} is there and {@code enabled} is true.
 * It has no {@code @Modified} method on purpose: a new configuration stops the running demo (its
 * jobs cancelled, its nodes removed) and starts a fresh one with the new settings.
 */
@Component(service = {}, immediate = true, configurationPid = DemoComponent.PID)
@Designate(ocd = DemoComponent.Config.class)
public class DemoComponent {

    public static final String PID = "granary.demo";

    // The defaults repeat DemoSettings.DEFAULTS (annotation defaults must be constants);
    // DemoComponentTest checks that they agree.
    @ObjectClassDefinition(name = "Granary demo", description = "An embedded demo: a cluster of in-process nodes "
            + "and a steady stream of synthetic jobs that start and finish, so that granary:status moves.")
    public @interface Config {
        @AttributeDefinition(description = "Run the demo. False: a quiet runtime with no demo nodes or jobs.")
        boolean enabled() default true;

        @AttributeDefinition(description = "Rooms of the demo cluster (r1, r2, ...).")
        int rooms() default 4;

        @AttributeDefinition(description = "Nodes in each room.")
        int nodesPerRoom() default 50;

        @AttributeDefinition(description = "CPU of one node in 1/100 cores: 6400 = 64 cores.")
        long nodeCpu() default 6400;

        @AttributeDefinition(description = "Memory of one node in MiB: 262144 = 256 GiB.")
        long nodeMemMb() default 262_144;

        @AttributeDefinition(description = "Synthetic jobs submitted per second (0: the cluster only, no jobs).")
        double jobsPerSecond() default 2.0;

        @AttributeDefinition(description = "At most this many demo jobs in the scheduler at once, waiting or "
                + "running; arrivals pause while the cap is reached.")
        int maxRunningJobs() default 100;

        @AttributeDefinition(description = "Shortest task in milliseconds: a granted slot is released after a "
                + "random time between minTaskMillis and maxTaskMillis.")
        long minTaskMillis() default 1_000;

        @AttributeDefinition(description = "Longest task in milliseconds.")
        long maxTaskMillis() default 10_000;

        @AttributeDefinition(description = "A unit of a demo job asks for 1 to this many slots.")
        int maxSlotsPerUnit() default 8;

        @AttributeDefinition(description = "Groups the demo jobs are spread over; jobs of a group whose name "
                + "contains 'service' are ONLINE, the others OFFLINE.")
        String[] groups() default {"root.batch", "root.service", "root.adhoc"};

        @AttributeDefinition(description = "Seed of the job generator: the same seed gives the same jobs.")
        long seed() default 42;

        @AttributeDefinition(description = "Demo job ids are <jobPrefix>-<n>; the demo touches only its own jobs.")
        String jobPrefix() default "demo";
    }

    /** Service property of a refused configuration: the launcher reports it and does not start. */
    static final String PROBLEM_PROPERTY = "granary.problem";

    private final Demo demo;
    private final ServiceRegistration<?> problem;

    /**
     * A refused configuration is not an activation failure: the demo stays off and the problem is
     * registered as a service property (docs/operations.md, "Fail closed"), one line for the operator
     * instead of the framework's stack trace.
     */
    @Activate
    public DemoComponent(@Reference Scheduler scheduler, Config config, BundleContext context) {
        DemoSettings settings = null;
        ServiceRegistration<?> refused = null;
        if (config.enabled()) {
            try {
                settings = settings(config);
            } catch (IllegalArgumentException e) {
                Dictionary<String, Object> props = new Hashtable<>();
                props.put(PROBLEM_PROPERTY, "configuration " + PID + " refused: " + e.getMessage());
                props.put("granary.component", PID);
                refused = context.registerService(Object.class, new Object(), props);
            }
        }
        this.problem = refused;
        this.demo = settings == null ? null : new Demo(scheduler, settings);
        if (demo != null) {
            demo.start();
        }
    }

    @Deactivate
    void deactivate() {
        if (demo != null) {
            demo.stop();
        }
        if (problem != null) {
            try {
                problem.unregister();
            } catch (IllegalStateException gone) {
                // the bundle is stopping
            }
        }
    }

    /** @throws IllegalArgumentException naming every bad setting */
    static DemoSettings settings(Config c) {
        return new DemoSettings(c.rooms(), c.nodesPerRoom(), c.nodeCpu(), c.nodeMemMb(), c.jobsPerSecond(),
                c.maxRunningJobs(), c.minTaskMillis(), c.maxTaskMillis(), c.maxSlotsPerUnit(), List.of(c.groups()),
                c.seed(), c.jobPrefix());
    }
}

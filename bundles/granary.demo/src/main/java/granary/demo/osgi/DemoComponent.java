package granary.demo.osgi;

import java.util.List;

import granary.api.event.Scheduler;
import granary.demo.Demo;
import granary.demo.DemoSettings;

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

    private final Demo demo;

    @Activate
    public DemoComponent(@Reference Scheduler scheduler, Config config) {
        this.demo = config.enabled() ? new Demo(scheduler, settings(config)) : null;
        if (demo != null) {
            demo.start();
        }
    }

    @Deactivate
    void deactivate() {
        if (demo != null) {
            demo.stop();
        }
    }

    /** @throws IllegalArgumentException naming every bad setting (DS then logs it and does not activate) */
    static DemoSettings settings(Config c) {
        return new DemoSettings(c.rooms(), c.nodesPerRoom(), c.nodeCpu(), c.nodeMemMb(), c.jobsPerSecond(),
                c.maxRunningJobs(), c.minTaskMillis(), c.maxTaskMillis(), c.maxSlotsPerUnit(), List.of(c.groups()),
                c.seed(), c.jobPrefix());
    }
}

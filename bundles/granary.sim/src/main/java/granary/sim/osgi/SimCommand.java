package granary.sim.osgi;

import java.util.List;

import granary.sim.cli.Runner;
import granary.sim.run.Progress;

import org.apache.felix.service.command.Descriptor;
import org.osgi.framework.BundleContext;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;

/**
 * {@code granary:sim}: replays a trace inside the runtime, on its installed policy bundles (fresh
 * instances, never the live engine's) and on a separate engine in virtual time; the live scheduler
 * is not touched. Same options as {@code java -jar granary-sim.jar}, except policy options
 * ({@code name:key=value}): inside the runtime policies take their configuration from Config Admin.
 * The replay runs on a thread of its own, one at a time, within a wall-clock limit and a limit on
 * units, and {@code granary:sim --cancel} or Ctrl-C stops it ({@link OneReplay}).
 * Registered as {@code Object} with the Gogo command properties, like the other console commands.
 */
@Component(immediate = true, service = Object.class, property = {"osgi.command.scope=granary", "osgi.command.function=sim"})
public class SimCommand {

    private final OneReplay replay;

    @Activate
    public SimCommand(BundleContext context) {
        this.replay = new OneReplay((args, maxUnits, option) -> Runner.run(args, new OsgiPolicies(context), Progress.NONE,
                maxUnits, option));
    }

    @Descriptor("replay a trace in virtual time under one or more policy sets of the installed policies; "
            + "'granary:sim --help' lists the options, 'granary:sim --cancel' stops a running replay")
    public String sim(@Descriptor("options as for java -jar granary-sim.jar, e.g. --trace swf:log.swf --policies fifo "
            + "--policies fair --out results; also --wall-limit-seconds S, --max-units N, --cancel") String... args) {
        return replay.sim(List.of(args));
    }
}

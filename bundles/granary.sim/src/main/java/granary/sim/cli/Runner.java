package granary.sim.cli;

import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

import granary.api.model.InvalidRequestException;
import granary.api.spi.ExtensionPoint;
import granary.sim.report.ResultsFiles;
import granary.sim.report.SummaryText;
import granary.sim.run.ClassPathPolicies;
import granary.sim.run.PolicySource;
import granary.sim.run.Progress;
import granary.sim.run.Replay;
import granary.sim.run.ReplayCancelledException;
import granary.sim.trace.TraceException;
import granary.sim.trace.TraceFormat;

/** Runs the simulator for a list of arguments: the command line and the console command share it. */
public final class Runner {

    /** The text to show and the exit code (0 done, 1 failed, 2 bad arguments or input). */
    public record Outcome(int exit, String text) {
    }

    private Runner() {
    }

    public static Outcome run(List<String> args, PolicySource source, Progress progress) {
        return run(args, source, progress, Long.MAX_VALUE, "");
    }

    /**
     * As {@link #run(List, PolicySource, Progress)}, refusing up front a workload of more than
     * {@code maxUnits} units ({@code option} names the setting in the message). A replay whose thread
     * is interrupted stops with exit code 1 and says where it stopped.
     */
    public static Outcome run(List<String> args, PolicySource source, Progress progress, long maxUnits, String option) {
        try {
            Arguments.Invocation inv = Arguments.parse(args, source.declarations());
            if (inv.help()) {
                return new Outcome(0, Arguments.usage(source.declarations()));
            }
            if (inv.listPolicies()) {
                return new Outcome(0, policies(source));
            }
            if (inv.listOptions() != null) {
                return new Outcome(0, options(TraceFormat.of(inv.listOptions())));
            }
            Replay.Report loaded = Replay.load(inv.request(), source);
            long units = loaded.workload().units();
            if (units > maxUnits) {
                return new Outcome(2, loaded.workload().report().source() + ": " + String.format(Locale.ROOT, "%,d", units)
                        + " units to replay, more than the limit of " + String.format(Locale.ROOT, "%,d", maxUnits)
                        + (option.isEmpty() ? "" : " (" + option + ")") + "; replay part of it with --max-jobs N or --until-seconds S");
            }
            Replay.Report report = Replay.run(loaded, source, inv.progress() ? progress : Progress.NONE);
            String summary = SummaryText.of(report);
            List<Path> files = ResultsFiles.write(inv.out(), report, summary);
            StringBuilder sb = new StringBuilder(summary).append("\nresults in ").append(inv.out()).append(":");
            for (Path p : files) {
                sb.append(' ').append(inv.out().relativize(p));
            }
            return new Outcome(0, sb.append('\n').toString());
        } catch (UsageException | InvalidRequestException | TraceException e) {
            return new Outcome(2, e.getMessage());
        } catch (ReplayCancelledException e) {
            return new Outcome(1, e.getMessage());
        } catch (UncheckedIOException e) {
            return new Outcome(2, e.getMessage());   // the output directory cannot be written
        }
    }

    static String policies(PolicySource source) {
        StringBuilder sb = new StringBuilder();
        for (String name : source.names()) {
            PolicySource.Created c = source.create(name, Map.of());
            Set<ExtensionPoint> points = ExtensionPoint.of(c.policy());
            c.release().run();
            sb.append(name).append("  ").append(String.join(",", points.stream().map(ExtensionPoint::id).toList()));
            if (source instanceof ClassPathPolicies cp) {
                cp.options(name).forEach((k, d) -> sb.append("\n    ").append(name).append(':').append(k).append("=...  ").append(d));
            }
            sb.append('\n');
        }
        return sb.toString();
    }

    static String options(TraceFormat f) {
        StringBuilder sb = new StringBuilder(f.id()).append(": ").append(f.description()).append('\n');
        f.options().forEach((k, d) -> sb.append("  ").append(k).append("  ").append(d).append('\n'));
        return sb.toString();
    }
}

package granary.sim.run;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import granary.api.model.InvalidRequestException;
import granary.api.model.NodeSpec;
import granary.api.spi.ExtensionPoint;
import granary.sim.cluster.ClusterSpec;
import granary.sim.trace.TraceContext;
import granary.sim.trace.TraceFormat;
import granary.sim.workload.Workload;

/**
 * Replays one workload under each policy set, one after the other, each on a fresh engine with
 * fresh policy instances: the runs are independent and comparable.
 */
public final class Replay {

    /**
     * What to replay.
     *
     * @param tracePath     null for a workload without a file (synthetic)
     * @param cluster       {@code --cluster} parts; empty: the trace's own or default cluster
     * @param maxJobs       replay only the first jobs by arrival
     * @param untilMs       replay only jobs arriving until then (trace time)
     */
    public record Request(TraceFormat format, Path tracePath, Map<String, String> traceOptions, List<String> cluster,
                          List<PolicySetSpec> sets, SimSettings settings, long seed, long maxJobs, long untilMs,
                          boolean declareRunTimes) {
        public Request {
            traceOptions = Map.copyOf(traceOptions);
            cluster = List.copyOf(cluster);
            sets = List.copyOf(sets);
        }

        /** Job masters that declare no run times. */
        public Request(TraceFormat format, Path tracePath, Map<String, String> traceOptions, List<String> cluster,
                       List<PolicySetSpec> sets, SimSettings settings, long seed, long maxJobs, long untilMs) {
            this(format, tracePath, traceOptions, cluster, sets, settings, seed, maxJobs, untilMs, false);
        }
    }

    /** What was replayed and what each set measured. */
    public record Report(Request request, Workload workload, List<NodeSpec> nodes, List<RunResult> runs) {
    }

    private Replay() {
    }

    /** Reads the workload and the cluster, and checks the sets' names, without running anything. */
    public static Report load(Request r, PolicySource source) {
        for (PolicySetSpec set : r.sets()) {
            for (PolicySetSpec.Ref ref : set.policies()) {
                if (!source.names().contains(ref.name())) {
                    throw new InvalidRequestException("--policies " + set.label(), ref.name(), "'" + ref.name()
                            + "' is not installed; policies: " + String.join(", ", source.names()));
                }
            }
        }
        boolean whole = "whole".equals(r.traceOptions().get("gpu"));
        List<NodeSpec> nodes = r.cluster().isEmpty() ? r.format().defaultCluster(r.tracePath(), r.traceOptions())
                : ClusterSpec.parse(r.cluster(), whole);
        long mem = nodes == null ? 0 : nodes.stream().mapToLong(n -> n.capacity().memMb()).max().orElse(0);
        boolean gang = PolicySetup.available(source, ExtensionPoint.GANG_PLACEMENT);
        Workload w = r.format().read(r.tracePath(), r.traceOptions(), new TraceContext(mem, gang, r.seed()));
        if (nodes == null) {
            nodes = w.nodes();
        }
        if (nodes == null || nodes.isEmpty()) {
            throw new InvalidRequestException("--cluster", "cluster", "the trace " + r.format().id() + " describes no "
                    + "nodes: give --cluster, e.g. nodes=100,cpu=6400,mem=262144");
        }
        Workload cut = w.cut(r.maxJobs(), r.untilMs());
        if (r.declareRunTimes()) {
            cut = cut.declaringRunTimes();
        }
        if (cut.jobs().isEmpty()) {
            // the trace has jobs (an empty one is refused when read), but the cut leaves none
            throw new InvalidRequestException("--max-jobs / --until-seconds", "cut", "leave no job of the "
                    + w.jobs().size() + " in " + (r.tracePath() == null ? "the trace" : r.tracePath().getFileName())
                    + " to replay (the first arrives at " + w.jobs().stream().mapToLong(j -> j.arrivalMs()).min().orElse(0) / 1000
                    + " s)");
        }
        return new Report(r, cut, nodes, List.of());
    }

    /** Loads and replays under every set. */
    public static Report run(Request r, PolicySource source, Progress progress) {
        return run(load(r, source), source, progress);
    }

    /** Replays a loaded workload ({@link #load}) under every set. */
    public static Report run(Report loaded, PolicySource source, Progress progress) {
        Request r = loaded.request();
        List<RunResult> runs = new ArrayList<>();
        for (int i = 0; i < r.sets().size(); i++) {
            runs.add(runOne(loaded, r.sets().get(i), source, progress, i));
        }
        progress.done();
        return new Report(r, loaded.workload(), loaded.nodes(), runs);
    }

    static RunResult runOne(Report loaded, PolicySetSpec set, PolicySource source, Progress progress, int i) {
        PolicySetup.Prepared p = PolicySetup.prepare(set, source, loaded.workload().hasAllOrNothing(),
                loaded.request().settings().policyOptions());
        try {
            return new Simulation(loaded.workload(), loaded.nodes(), p, loaded.request().settings(), progress, i,
                    loaded.request().sets().size()).run();
        } finally {
            p.release();
        }
    }
}

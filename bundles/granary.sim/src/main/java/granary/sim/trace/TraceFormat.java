package granary.sim.trace;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import granary.api.model.InvalidRequestException;
import granary.api.model.NodeSpec;
import granary.api.model.Resources;
import granary.sim.workload.ReadReport;
import granary.sim.workload.SimJob;
import granary.sim.workload.SimUnit;
import granary.sim.workload.Workload;

/**
 * The workload sources the simulator reads ({@code --trace FORMAT:PATH}), each with its options
 * ({@code --trace-option key=value}) and the cluster it replays on when none is given.
 */
public enum TraceFormat {

    JSON("json", "Granary's workload format (jobs, units, submit times, durations, groups; optional nodes)",
            JsonWorkloadReader.OPTIONS, true) {
        @Override
        Workload read(Path path, TraceOptions o, TraceContext ctx) {
            return JsonWorkloadReader.read(path, o, ctx);
        }
    },
    ALIBABA_2017("alibaba2017", "Alibaba cluster-trace-v2017 batch_task.csv (with or without a header line)",
            Alibaba2017Reader.OPTIONS, true) {
        @Override
        Workload read(Path path, TraceOptions o, TraceContext ctx) {
            return Alibaba2017Reader.read(path, o, ctx);
        }

        @Override
        List<NodeSpec> defaultCluster(Path path, TraceOptions o) {
            // v2017: about 1,300 machines of 64 cpus (trace_201708.md); memory is normalized, size assumed
            return uniform(1300, Resources.of(6400, 256 * 1024));
        }
    },
    ALIBABA_2018("alibaba2018", "Alibaba cluster-trace-v2018 batch_task.csv (official v2018 schema)",
            Alibaba2018Reader.OPTIONS, true) {
        @Override
        Workload read(Path path, TraceOptions o, TraceContext ctx) {
            return Alibaba2018Reader.read(path, o, ctx);
        }

        @Override
        List<NodeSpec> defaultCluster(Path path, TraceOptions o) {
            // v2018: about 4,000 machines of 96 cores (machine_meta); memory is normalized, size assumed
            return uniform(4000, Resources.of(9600, 512 * 1024));
        }
    },
    SWF("swf", "Standard Workload Format (.swf or .swf.gz) of the Parallel Workloads Archive; each job a gang",
            SwfReader.OPTIONS, true) {
        @Override
        Workload read(Path path, TraceOptions o, TraceContext ctx) {
            return SwfReader.read(path, o, ctx);
        }

        @Override
        List<NodeSpec> defaultCluster(Path path, TraceOptions o) {
            return SwfReader.nodes(path, o);
        }
    },
    GPU_2023("gpu2023", "Alibaba cluster-trace-gpu-v2023 pod list (openb_pod_list_*.csv); nodes from "
            + Gpu2023Reader.NODE_LIST + " beside it, or --cluster gpu2023:<node list>", Gpu2023Reader.OPTIONS, true) {
        @Override
        Workload read(Path path, TraceOptions o, TraceContext ctx) {
            return Gpu2023Reader.read(path, o, ctx);
        }

        @Override
        List<NodeSpec> defaultCluster(Path path, TraceOptions o) {
            Path nodes = Gpu2023Reader.siblingNodeList(path);
            return nodes == null ? null : Gpu2023Reader.nodes(nodes, "whole".equals(o.text("gpu", "milli")));
        }
    },
    SYNTHETIC("synthetic", "a seeded synthetic workload (no file): arrival rate, size and duration distributions, groups",
            SyntheticWorkload.OPTIONS, false) {
        @Override
        Workload read(Path path, TraceOptions o, TraceContext ctx) {
            return SyntheticWorkload.generate(o, ctx);
        }

        @Override
        List<NodeSpec> defaultCluster(Path path, TraceOptions o) {
            return uniform(100, Resources.of(6400, 256 * 1024));
        }
    };

    /** Options every file format takes besides its own. */
    static final Map<String, String> COMMON = Map.of("badRows", "fail (default) | skip", "limit", "rows to read (default all)");

    private final String id;
    private final String description;
    private final Map<String, String> options;
    private final boolean needsPath;

    TraceFormat(String id, String description, Map<String, String> options, boolean needsPath) {
        this.id = id;
        this.description = description;
        this.options = options;
        this.needsPath = needsPath;
    }

    public String id() {
        return id;
    }

    public String description() {
        return description;
    }

    /** Option name → description. */
    public Map<String, String> options() {
        Map<String, String> m = new LinkedHashMap<>(options);
        if (needsPath && this != JSON) {
            COMMON.forEach(m::putIfAbsent);
        }
        return m;
    }

    public boolean needsPath() {
        return needsPath;
    }

    abstract Workload read(Path path, TraceOptions o, TraceContext ctx);

    /** The cluster the trace describes or implies, or null if it has none (then --cluster is needed). */
    List<NodeSpec> defaultCluster(Path path, TraceOptions o) {
        return null;
    }

    /** Reads the workload; options are checked against {@link #options()}. */
    public Workload read(Path path, Map<String, String> options, TraceContext ctx) {
        Workload w = read(path, new TraceOptions(id, options, options()), ctx);
        check(w);
        return w;
    }

    /**
     * A workload without jobs is an error (an empty file, a header only, or every row skipped), and so
     * is a unit ending after {@link TraceLimits#MAX_SPAN_S}.
     */
    static void check(Workload w) {
        if (w.jobs().isEmpty()) {
            throw new TraceException(w.report().source(), 0, 0, noJobs(w.report()));
        }
        for (SimJob j : w.jobs()) {
            for (SimUnit u : j.units()) {
                long end = u.arrivalMs() + u.durationMs();
                if (end > TraceLimits.MAX_SPAN_S * 1000) {
                    String where = j.origin() == null ? w.report().source()
                            : j.origin().startsWith("$") ? w.report().source() + ": " + j.origin() : j.origin();
                    throw new TraceException(where, 0, 0,
                            TraceLimits.span(j.id(), u.name(), end));
                }
            }
        }
    }

    static String noJobs(ReadReport r) {
        StringBuilder sb = new StringBuilder("no jobs to replay (")
                .append(TraceLimits.n(r.rows())).append(" rows read, ").append(TraceLimits.n(r.skippedTotal())).append(" skipped");
        String sep = ": ";
        for (Map.Entry<String, Long> e : r.skipped().entrySet()) {
            sb.append(sep).append(e.getKey()).append(" ").append(TraceLimits.n(e.getValue()));
            sep = ", ";
        }
        return sb.append(")").toString();
    }

    /** The default cluster for this trace, or null. */
    public List<NodeSpec> defaultCluster(Path path, Map<String, String> options) {
        return defaultCluster(path, new TraceOptions(id, options, options()));
    }

    public static TraceFormat of(String id) {
        for (TraceFormat f : values()) {
            if (f.id.equalsIgnoreCase(id)) {
                return f;
            }
        }
        List<String> ids = new ArrayList<>();
        for (TraceFormat f : values()) {
            ids.add(f.id);
        }
        throw new InvalidRequestException("--trace", "format", "'" + id + "' is not a trace format; formats: " + String.join(", ", ids));
    }

    static List<NodeSpec> uniform(int n, Resources capacity) {
        List<NodeSpec> nodes = new ArrayList<>(n);
        int width = Integer.toString(n - 1).length();
        for (int i = 0; i < n; i++) {
            nodes.add(new NodeSpec(String.format("n%0" + width + "d", i), "r0", capacity));
        }
        return nodes;
    }
}

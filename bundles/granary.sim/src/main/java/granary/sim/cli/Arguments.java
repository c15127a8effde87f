package granary.sim.cli;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import granary.codec.CodecException;
import granary.policy.queues.api.QueueTreeCodec;
import granary.policy.quota.api.QuotaTableCodec;
import granary.sim.run.PolicySetSpec;
import granary.sim.run.Replay;
import granary.sim.run.SimSettings;
import granary.sim.trace.TraceFormat;

/**
 * The simulator's arguments, shared by the command line and the {@code granary:sim} console
 * command. Options are {@code --name value} or {@code --name=value}; see {@link #USAGE}.
 */
public final class Arguments {

    public static final String USAGE = """
            Usage: java -jar granary-sim.jar --trace FORMAT:PATH [options]
            Replays a workload on the Granary engine and its policies in virtual time, under one or
            more policy sets, and reports wait-for-resource timeouts, waits, utilisation,
            fragmentation, per-group usage and billing (spec §13).

              --trace FORMAT:PATH        the workload; FORMAT is one of
                                           json         Granary's workload format (jobs, units, submit, duration)
                                           alibaba2017  Alibaba cluster-trace-v2017 batch_task.csv (header optional)
                                           alibaba2018  Alibaba cluster-trace-v2018 batch_task.csv
                                           swf          Standard Workload Format .swf / .swf.gz (each job a gang)
                                           gpu2023      Alibaba cluster-trace-gpu-v2023 openb_pod_list_*.csv
                                           synthetic    a seeded synthetic workload (no PATH)
                                         any file may be gzipped (read transparently)
              --trace-option KEY=VALUE   a mapping option of the reader (repeatable), e.g. group=hash:4,
                                         empty=default, limit=1000; --list-options FORMAT lists them
              --cluster SPEC             nodes=N,cpu=C,mem=M[,gpu=G][,rooms=R][,label.K=V] | file:cluster.json
                                         | gpu2023:openb_node_list_all_node.csv (repeatable; default: the
                                         trace's own nodes, or its documented default cluster)
              --policies SETS            policy sets to compare, '|' between sets, ',' inside a set, options as
                                         name:key=value (quote it in a shell: 'fifo|fair|quota,submitwindow');
                                         repeatable, one set or several each time; default fifo
              --quota FILE               quota table for the sets' quota policy (spec §5 format)
              --workers-spans TEXT       WorkerSpans of the quota table, e.g. default:5000,0-9:15000
              --queues FILE              queue tree for the sets' queue policy
              --out DIR                  where results.json and the CSV series go (default sim-results)
              --seed N                   seed of random workloads (default 1)
              --timeout-seconds S        a wait above S is a wait-for-resource timeout (default 10)
              --tick-seconds S           clock tick while something waits (default 1; 0 = none)
              --sample-seconds S         time-series interval (default: from the trace's span)
              --idle-limit-seconds S     stop when nothing is left to arrive or end and S pass
                                         without a grant (default 86400)
              --start INSTANT            wall time of trace time 0 (default 2024-01-01T00:00:00Z)
              --max-jobs N               replay only the first N jobs by arrival
              --until-seconds S          replay only jobs arriving up to S
              --no-progress              no progress bar (it only shows on a terminal anyway)
              --check-invariants         check every engine invariant after every event (slow)
              --list-policies            list the installed policies and their options
              --list-options FORMAT      list the mapping options of a trace format
              --help                     this text
            Exit codes: 0 done, 1 failed, 2 bad arguments or input files.
            """;

    /** What to do. */
    public record Invocation(Replay.Request request, Path out, boolean progress, boolean help, boolean listPolicies,
                             String listOptions) {
    }

    private Arguments() {
    }

    public static Invocation parse(List<String> args) {
        Map<String, List<String>> v = split(args);
        if (v.containsKey("help")) {
            return new Invocation(null, null, false, true, false, null);
        }
        if (v.containsKey("list-policies")) {
            return new Invocation(null, null, false, false, true, null);
        }
        if (v.containsKey("list-options")) {
            TraceFormat f = TraceFormat.of(one(v, "list-options", null));
            return new Invocation(null, null, false, false, false, f.id());
        }
        String trace = one(v, "trace", null);
        if (trace == null) {
            throw new UsageException("--trace is missing, e.g. --trace alibaba2017:batch_task.csv or --trace synthetic");
        }
        int colon = trace.indexOf(':');
        TraceFormat format = TraceFormat.of(colon < 0 ? trace : trace.substring(0, colon));
        Path path = colon < 0 || colon == trace.length() - 1 ? null : Path.of(trace.substring(colon + 1));
        if (format.needsPath() && path == null) {
            throw new UsageException("--trace " + trace + ": give the file, e.g. --trace " + format.id() + ":PATH");
        }
        List<PolicySetSpec> sets = new ArrayList<>();
        for (String s : v.getOrDefault("policies", List.of("fifo"))) {
            sets.addAll(PolicySetSpec.parseAll(s));
        }
        SimSettings settings = settings(v);
        Replay.Request request = new Replay.Request(format, path, pairs(v.getOrDefault("trace-option", List.of())),
                v.getOrDefault("cluster", List.of()), sets, settings, longValue(v, "seed", 1),
                longValue(v, "max-jobs", Long.MAX_VALUE), millis(v, "until-seconds", Long.MAX_VALUE));
        Path out = Path.of(one(v, "out", "sim-results"));
        return new Invocation(request, out, !v.containsKey("no-progress"), false, false, null);
    }

    private static SimSettings settings(Map<String, List<String>> v) {
        SimSettings s = SimSettings.DEFAULTS.withTimeoutMs(millis(v, "timeout-seconds", 10_000))
                .withTickMs(millis(v, "tick-seconds", 1_000)).withSampleMs(millis(v, "sample-seconds", 0))
                .withIdleLimitMs(millis(v, "idle-limit-seconds", 86_400_000L)).withInvariantChecks(v.containsKey("check-invariants"));
        String start = one(v, "start", null);
        if (start != null) {
            try {
                s = s.withStart(Instant.parse(start).toEpochMilli());
            } catch (DateTimeParseException e) {
                throw new UsageException("--start '" + start + "' is not an instant like 2024-01-01T00:00:00Z");
            }
        }
        String quota = one(v, "quota", null);
        String spans = one(v, "workers-spans", null);
        if (spans != null && quota == null) {
            throw new UsageException("--workers-spans needs --quota (the table the spans belong to)");
        }
        if (quota != null) {
            s = s.withQuota(read(quota, file -> QuotaTableCodec.read(file, spans == null ? null : QuotaTableCodec.workerSpans(spans))));
        }
        String queues = one(v, "queues", null);
        if (queues != null) {
            s = s.withQueues(read(queues, QueueTreeCodec::read));
        }
        return s;
    }

    private interface Codec<T> {
        T read(Path file);
    }

    /** Reads a file with a codec; its problems name the file as given on the command line. */
    private static <T> T read(String file, Codec<T> codec) {
        Path p = Path.of(file);
        if (!Files.isRegularFile(p)) {
            throw new UsageException("no such file " + p.toAbsolutePath());
        }
        try {
            return codec.read(p);
        } catch (CodecException e) {
            throw new UsageException(e.describe());
        }
    }

    private static final List<String> FLAGS = List.of("help", "list-policies", "no-progress", "check-invariants");
    private static final List<String> VALUED = List.of("trace", "trace-option", "cluster", "policies", "quota", "workers-spans",
            "queues", "out", "seed", "timeout-seconds", "tick-seconds", "sample-seconds", "idle-limit-seconds", "start",
            "max-jobs", "until-seconds", "list-options");
    private static final List<String> REPEATABLE = List.of("trace-option", "cluster", "policies");

    private static Map<String, List<String>> split(List<String> args) {
        Map<String, List<String>> v = new LinkedHashMap<>();
        for (int i = 0; i < args.size(); i++) {
            String a = args.get(i);
            if (a.equals("-h")) {
                a = "--help";
            }
            if (!a.startsWith("--")) {
                throw new UsageException("unexpected argument '" + a + "': options start with --; see --help");
            }
            String name = a.substring(2);
            String value = null;
            int eq = name.indexOf('=');
            if (eq >= 0) {
                value = name.substring(eq + 1);
                name = name.substring(0, eq);
            }
            if (FLAGS.contains(name)) {
                if (value != null) {
                    throw new UsageException("--" + name + " takes no value");
                }
                v.put(name, List.of());
                continue;
            }
            if (!VALUED.contains(name)) {
                throw new UsageException("unknown option '--" + name + "'; see --help");
            }
            if (value == null) {
                if (i + 1 >= args.size()) {
                    throw new UsageException("--" + name + " needs a value; see --help");
                }
                value = args.get(++i);
            }
            List<String> list = v.computeIfAbsent(name, k -> new ArrayList<>());
            if (!list.isEmpty() && !REPEATABLE.contains(name)) {
                throw new UsageException("--" + name + " is given twice");
            }
            list.add(value);
        }
        return v;
    }

    private static String one(Map<String, List<String>> v, String name, String dflt) {
        List<String> l = v.get(name);
        return l == null || l.isEmpty() ? dflt : l.get(0);
    }

    private static long longValue(Map<String, List<String>> v, String name, long dflt) {
        String s = one(v, name, null);
        if (s == null) {
            return dflt;
        }
        try {
            long n = Long.parseLong(s.trim());
            if (n < 0) {
                throw new NumberFormatException();
            }
            return n;
        } catch (NumberFormatException e) {
            throw new UsageException("--" + name + " '" + s + "' is not a whole number >= 0");
        }
    }

    private static long millis(Map<String, List<String>> v, String name, long dflt) {
        String s = one(v, name, null);
        if (s == null) {
            return dflt;
        }
        try {
            double d = Double.parseDouble(s.trim());
            if (d < 0 || Double.isNaN(d) || Double.isInfinite(d)) {
                throw new NumberFormatException();
            }
            return Math.round(d * 1000);
        } catch (NumberFormatException e) {
            throw new UsageException("--" + name + " '" + s + "' is not a number of seconds >= 0");
        }
    }

    private static Map<String, String> pairs(List<String> kvs) {
        Map<String, String> m = new LinkedHashMap<>();
        for (String kv : kvs) {
            int eq = kv.indexOf('=');
            if (eq <= 0) {
                throw new UsageException("--trace-option '" + kv + "' is not KEY=VALUE");
            }
            if (m.put(kv.substring(0, eq).trim(), kv.substring(eq + 1).trim()) != null) {
                throw new UsageException("--trace-option " + kv.substring(0, eq) + " is given twice");
            }
        }
        return m;
    }
}

package granary.sim.cli;

import java.nio.file.Path;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import granary.api.model.InvalidRequestException;
import granary.api.model.Problem;
import granary.api.spi.OptionSpec;
import granary.api.spi.PolicyDeclaration;
import granary.sim.run.PolicySetSpec;
import granary.sim.run.Replay;
import granary.sim.run.SimSettings;
import granary.sim.trace.TraceFormat;

/**
 * The simulator's arguments, shared by the command line and the {@code granary:sim} console
 * command. Options are {@code --name value} or {@code --name=value}; see {@link #usage}. Besides its
 * own, it takes the flags the policies declare ({@code OptionSpec.commandLine}: the quota policy's
 * {@code --quota FILE}) and {@code --option NAME.KEY=VALUE} for any option of any policy; both go to
 * every set that has the policy.
 */
public final class Arguments {

    private static final String USAGE = """
            Usage: java -jar granary-sim.jar --trace FORMAT:PATH [options]
            Replays a workload on the Granary engine and its policies in virtual time, under one or
            more policy sets, and reports wait-for-resource timeouts, waits, utilisation,
            fragmentation, per-group usage and billing (docs/operations.md, "What operators measure").

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
                                         repeatable, one set or several each time; default %s
            %s
              --option NAME.KEY=VALUE    option KEY of policy NAME for every set that has it (repeatable;
                                         a set's own NAME:KEY=VALUE wins)
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
              --declare-run-times        every unit declares its true run time (expectedSeconds), as job
                                         masters that know their tasks would
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

    /** The usage text, with the flags the policies declare. */
    public static String usage(List<PolicyDeclaration> declarations) {
        List<String> lines = new ArrayList<>();
        for (Map.Entry<String, Target> f : flags(declarations).entrySet()) {
            String left = "  --" + f.getKey() + " VALUE";
            lines.add(left + " ".repeat(Math.max(1, 29 - left.length())) + "option " + f.getValue().option().name()
                    + " of policy " + f.getValue().policy() + " for every set that has it");
        }
        String policies = String.join(",", granary.sim.run.SimDefaults.shipped().policies());
        return USAGE.formatted(policies + " (the simulator's defaults.properties)", String.join("\n", lines));
    }

    /** A policy flag's option. */
    private record Target(String policy, OptionSpec<?> option) {
    }

    private static Map<String, Target> flags(List<PolicyDeclaration> declarations) {
        Map<String, Target> flags = new LinkedHashMap<>();
        for (PolicyDeclaration d : declarations) {
            for (OptionSpec<?> o : d.options()) {
                if (o.commandLineFlag() != null && !OWN.contains(o.commandLineFlag())) {
                    flags.putIfAbsent(o.commandLineFlag(), new Target(d.name(), o));
                }
            }
        }
        return flags;
    }

    /** @param declarations the policies there are: their command-line flags are taken */
    public static Invocation parse(List<String> args, List<PolicyDeclaration> declarations) {
        Map<String, Target> flags = flags(declarations);
        Map<String, List<String>> v = split(args, flags);
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
        // without --policies: the simulator's configured set (granary/sim/run/defaults.properties)
        for (String s : v.getOrDefault("policies", List.of(String.join(",", granary.sim.run.SimDefaults.shipped().policies())))) {
            sets.addAll(PolicySetSpec.parseAll(s));
        }
        SimSettings settings = policyOptions(settings(v), v, flags, declarations);
        Replay.Request request = new Replay.Request(format, path, pairs(v.getOrDefault("trace-option", List.of())),
                v.getOrDefault("cluster", List.of()), sets, settings, longValue(v, "seed", 1),
                longValue(v, "max-jobs", Long.MAX_VALUE), millis(v, "until-seconds", Long.MAX_VALUE),
                v.containsKey("declare-run-times"));
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
        return s;
    }

    /** The policies' flags and {@code --option}s, checked now: a bad option or file is a usage error. */
    private static SimSettings policyOptions(SimSettings settings, Map<String, List<String>> v, Map<String, Target> flags,
                                             List<PolicyDeclaration> declarations) {
        SimSettings s = settings;
        for (Map.Entry<String, Target> f : flags.entrySet()) {
            String value = one(v, f.getKey(), null);
            if (value != null) {
                s = s.withPolicyOption(f.getValue().policy(), f.getValue().option().name(), value, "--" + f.getKey());
            }
        }
        for (String o : v.getOrDefault("option", List.of())) {
            int dot = o.indexOf('.');
            int eq = o.indexOf('=');
            if (dot <= 0 || eq < dot + 2) {
                throw new UsageException("--option '" + o + "' is not NAME.KEY=VALUE, e.g. --option quota.zone=UTC");
            }
            String policy = o.substring(0, dot).trim();
            String key = o.substring(dot + 1, eq).trim();
            if (declarations.stream().noneMatch(d -> d.name().equals(policy))) {
                throw new UsageException("--option " + o.substring(0, eq) + ": no policy '" + policy + "'; policies: "
                        + PolicyDeclaration.names(declarations).stream().collect(Collectors.joining(", ")));
            }
            s = s.withPolicyOption(policy, key, o.substring(eq + 1).trim(), "--option " + policy + "." + key);
        }
        check(s.policyOptions(), declarations);
        return s;
    }

    /** Makes each policy named once with its options, so that a bad value or a file that cannot be read shows now. */
    private static void check(List<SimSettings.PolicyOption> options, List<PolicyDeclaration> declarations) {
        for (PolicyDeclaration d : declarations) {
            Map<String, String> mine = new LinkedHashMap<>();
            options.stream().filter(o -> o.policy().equals(d.name())).forEach(o -> mine.put(o.option(), o.value()));
            if (!mine.isEmpty()) {
                try {
                    d.create(mine);
                } catch (InvalidRequestException e) {
                    // every problem on its own line
                    throw new UsageException(e.problems().stream().map(Problem::toString).collect(Collectors.joining("\n")));
                }
            }
        }
    }

    private static final List<String> FLAGS = List.of("help", "list-policies", "no-progress", "check-invariants",
            "declare-run-times");
    private static final List<String> VALUED = List.of("trace", "trace-option", "cluster", "policies", "option", "out", "seed", "timeout-seconds", "tick-seconds", "sample-seconds", "idle-limit-seconds", "start",
            "max-jobs", "until-seconds", "list-options");
    private static final List<String> REPEATABLE = List.of("trace-option", "cluster", "policies", "option");
    /** The simulator's own options: a policy cannot declare these as its flags. */
    private static final List<String> OWN = java.util.stream.Stream.concat(FLAGS.stream(), VALUED.stream()).toList();

    private static Map<String, List<String>> split(List<String> args, Map<String, Target> flags) {
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
            if (!VALUED.contains(name) && !flags.containsKey(name)) {
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

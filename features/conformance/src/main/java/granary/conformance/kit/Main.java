package granary.conformance.kit;

import granary.codec.json.JsonArray;
import granary.codec.json.JsonObject;
import granary.codec.json.JsonPosition;
import granary.codec.json.JsonValue;
import granary.codec.json.JsonWriter;
import granary.conformance.Case;
import granary.conformance.Cases;
import granary.conformance.Schedules;
import granary.conformance.kit.processes.ProcessScenarios;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The failover conformance kit (docs/recovery.md, "The conformance kit"): runs the 17 named cases
 * and {@code --schedules N} seeded random fault schedules against Granary's real master, recovery
 * engine and scheduler engine, prints a table, writes a JSON report, and exits 1 on any violation.
 */
public final class Main {

    static final String USAGE = String.join("\n",
            "Usage: java -jar granary-conformance.jar [--schedules N] [--seed S] [--report FILE.json] [--processes]",
            "  --schedules N   random fault schedules to run after the 17 cases (default 200; 0: none)",
            "  --seed S        seed of the first schedule (default 1); schedule i uses seed S+i, so a",
            "                  failing seed is a reproduction: --seed <it> --schedules 1",
            "  --report FILE   also write the results as JSON",
            "  --processes     also run the real-process scenarios on this machine (rows P1-P17: kill -9 of",
            "                  the master, an agent, the job master, each started again; agents and job masters",
            "                  frozen past their timeouts; a torn agent checkpoint; a master with another secret;",
            "                  up to a minute each); they listen on 127.0.0.1 only and kill every process they start",
            "  --rows P5,P7    with --processes: only these rows",
            "  --jars DIR      where the runnable jars are for --processes: DIR/standalone/target/granary-",
            "                  standalone.jar, DIR/agent/target/granary-agent.jar, DIR/jobmaster/target/",
            "                  granary-jobmaster.jar (default: the features/ directory this kit was built in)",
            "  --work-dir DIR  the processes' directories and logs, kept (default: a temporary directory,",
            "                  deleted when every row held, kept as granary-conformance-failed-* if one failed)",
            "  --help          this text",
            "Exit codes: 0 no violation, 1 a violation, 2 bad options.");

    record Options(int schedules, long seed, Path report, boolean processes, Path jars, Path workDir, List<String> rows) {
    }

    private Main() {
    }

    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err));
    }

    static int run(String[] args, PrintStream out, PrintStream err) {
        Options o;
        try {
            o = parse(args);
        } catch (IllegalArgumentException ex) {
            err.println("Error: " + ex.getMessage());
            err.println(USAGE);
            return 2;
        }
        if (o == null) {
            out.println(USAGE);
            return 0;
        }
        // the jars are looked for before anything runs: a missing one is said at once, not after the cases
        ProcessScenarios.Jars jars = null;
        if (o.processes()) {
            jars = ProcessScenarios.Jars.under(o.jars() != null ? o.jars() : builtIn());
            Path missing = jars.missing();
            if (missing != null) {
                err.println("Error: --processes needs " + missing.toAbsolutePath().normalize()
                        + ": build it with 'mvn -DskipTests package', or say where the jars are with --jars DIR");
                return 2;
            }
        }
        long started = System.nanoTime();
        List<Cases.Outcome> outcomes = new ArrayList<>();
        out.printf("%-5s | %-38s | %-60s | %-10s | %s%n", "case", "title", "what was injected", "invariants", "result");
        for (Case c : Cases.all()) {
            Cases.Outcome r = Cases.run(c, 42);
            outcomes.add(r);
            row(out, r);
        }
        int failedSchedules = 0;
        List<Cases.Outcome> schedules = new ArrayList<>();
        for (int i = 0; i < o.schedules(); i++) {
            long seed = o.seed() + i;
            Cases.Outcome r = Schedules.run(seed);
            if (!r.passed()) {
                failedSchedules++;
                List<Schedules.Fault> minimal = Schedules.shrink(seed, Schedules.generate(seed));
                Cases.Outcome m = Schedules.run(seed, minimal);
                r = new Cases.Outcome(r.id(), r.title(), "minimal: " + minimal, m.violations(), m.log(), m.counters());
                row(out, r);
            }
            schedules.add(r);
        }
        if (jars != null) {
            WorkDirectory work;
            try {
                work = WorkDirectory.open(o.workDir());
            } catch (IOException ex) {
                err.println("Error: cannot create the work directory " + (o.workDir() != null ? o.workDir()
                        : "in " + System.getProperty("java.io.tmpdir")) + ": " + ex.getMessage());
                return 2;
            }
            boolean held = true;
            ProcessScenarios scenarios = new ProcessScenarios(jars, work.path(), out);
            work.onStop(scenarios::stop);
            for (Cases.Outcome r : scenarios.rows(o.rows())) {
                outcomes.add(r);
                row(out, r);
                held &= r.passed();
            }
            try {
                Path logs = work.finish(held);
                out.println(logs == null ? "the rows' temporary directory is deleted (--work-dir DIR keeps their logs)"
                        : "the rows' logs: " + logs);
            } catch (IOException ex) {
                err.println("Error: cannot keep the rows' logs: " + ex.getMessage() + "; they are in " + work.path());
            }
        }
        long failedCases = outcomes.stream().filter(r -> !r.passed()).count();
        double seconds = (System.nanoTime() - started) / 1e9;
        out.printf("%d of %d cases passed; %d of %d random schedules passed (seeds %d..%d); %.1f s%n",
                outcomes.size() - failedCases, outcomes.size(), o.schedules() - failedSchedules, o.schedules(),
                o.seed(), o.seed() + Math.max(0, o.schedules() - 1), seconds);
        if (o.report() != null) {
            try {
                Files.writeString(o.report(), report(outcomes, schedules, o, seconds) + "\n", StandardCharsets.UTF_8);
                out.println("report: " + o.report().toAbsolutePath());
            } catch (IOException ex) {
                err.println("Error: cannot write the report " + o.report() + ": " + ex.getMessage());
                return 2;
            }
        }
        return failedCases == 0 && failedSchedules == 0 ? 0 : 1;
    }

    private static void row(PrintStream out, Cases.Outcome r) {
        out.printf("%-5s | %-38s | %-60s | %-10s | %s%n", r.id(), cut(r.title(), 38), cut(r.injected(), 60),
                r.passed() ? "held" : r.violations().size() + " broken", r.passed() ? "PASS" : "FAIL");
        for (String v : r.violations()) {
            out.println("      " + v);
        }
    }

    /** The features/ directory of the build this kit's jar (features/conformance/target/…) comes from. */
    private static Path builtIn() {
        try {
            Path jar = Path.of(Main.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            return jar.toAbsolutePath().getParent().getParent().getParent();
        } catch (java.net.URISyntaxException | RuntimeException ex) {
            return Path.of("features");
        }
    }

    private static String cut(String s, int n) {
        return s.length() <= n ? s : s.substring(0, n - 1) + "…";
    }

    static Options parse(String[] args) {
        int schedules = 200;
        long seed = 1;
        Path report = null;
        boolean processes = false;
        Path jars = null;
        Path workDir = null;
        List<String> rows = List.of();
        for (String a : args) {
            if (a.equals("--help") || a.equals("-h")) {
                return null;
            }
        }
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if (a.equals("--processes")) {
                processes = true;
                continue;
            }
            String name = a.contains("=") ? a.substring(0, a.indexOf('=')) : a;
            String value;
            if (a.contains("=")) {
                value = a.substring(a.indexOf('=') + 1);
            } else if (i + 1 < args.length) {
                value = args[++i];
            } else {
                throw new IllegalArgumentException(name + ": needs a value");
            }
            switch (name) {
                case "--schedules" -> schedules = (int) number(name, value, 0, 1_000_000);
                case "--seed" -> seed = number(name, value, Long.MIN_VALUE / 2, Long.MAX_VALUE / 2);
                case "--report" -> report = Path.of(value);
                case "--jars" -> jars = Path.of(value);
                case "--work-dir" -> workDir = Path.of(value);
                case "--rows" -> rows = rows(value);
                case "--processes" -> throw new IllegalArgumentException("--processes takes no value, got '" + value + "'");
                default -> throw new IllegalArgumentException("unknown option " + name);
            }
        }
        if (!processes && (jars != null || workDir != null || !rows.isEmpty())) {
            throw new IllegalArgumentException((jars != null ? "--jars" : workDir != null ? "--work-dir" : "--rows") + ": only with --processes");
        }
        return new Options(schedules, seed, report, processes, jars, workDir, rows);
    }

    private static List<String> rows(String value) {
        List<String> rows = List.of(value.split(",", -1));
        for (String r : rows) {
            if (!ProcessScenarios.IDS.contains(r)) {
                throw new IllegalArgumentException("--rows: no row '" + r + "'; the rows are " + String.join(",", ProcessScenarios.IDS));
            }
        }
        return rows;
    }

    private static long number(String name, String value, long min, long max) {
        long n;
        try {
            n = Long.parseLong(value);
        } catch (NumberFormatException ex) {
            throw new IllegalArgumentException(name + ": expected a whole number, got '" + value + "'");
        }
        if (n < min || n > max) {
            throw new IllegalArgumentException(name + ": must be from " + min + " to " + max + ", got " + n);
        }
        return n;
    }

    static String report(List<Cases.Outcome> cases, List<Cases.Outcome> schedules, Options o, double seconds) {
        List<JsonValue> cs = new ArrayList<>();
        cases.forEach(c -> cs.add(outcome(c)));
        List<JsonValue> failed = new ArrayList<>();
        schedules.stream().filter(s -> !s.passed()).forEach(s -> failed.add(outcome(s)));
        long violations = cases.stream().mapToLong(c -> c.violations().size()).sum()
                + schedules.stream().mapToLong(c -> c.violations().size()).sum();
        return JsonWriter.write(JsonObject.builder()
                .put("cases", new JsonArray(cs, JsonPosition.NONE))
                .put("schedules", JsonObject.builder().put("run", (long) schedules.size()).put("firstSeed", o.seed())
                        .put("passed", schedules.stream().filter(Cases.Outcome::passed).count())
                        .put("failed", new JsonArray(failed, JsonPosition.NONE)).build())
                .put("violations", violations)
                .put("millis", Math.round(seconds * 1000))
                .build());
    }

    private static JsonValue outcome(Cases.Outcome c) {
        List<JsonValue> v = new ArrayList<>();
        c.violations().forEach(x -> v.add(JsonValue.of(x)));
        JsonObject.Builder counters = JsonObject.builder();
        for (Map.Entry<String, Long> e : c.counters().entrySet()) {
            counters.put(e.getKey(), e.getValue());
        }
        return JsonObject.builder().put("id", c.id()).put("title", c.title()).put("injected", c.injected())
                .put("result", c.passed() ? "pass" : "fail").put("violations", new JsonArray(v, JsonPosition.NONE))
                .put("counters", counters.build()).build();
    }
}

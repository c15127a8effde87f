package granary.planner.app;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The planner's command line (docs/planner.md, "Running it"). Everything is optional: without
 * arguments the planner opens empty. Unknown or malformed arguments are refused with what is wrong.
 *
 * @param master     connect to this master at start
 * @param token      its token (the text of {@code --token-file}, or {@code --token})
 * @param table      open this quota table file in the editor
 * @param workerSpans the table's WorkerSpans, e.g. {@code default:5000,0-9:15000}
 * @param trace      the trace the what-if replays
 * @param maxJobs    the what-if replays only the first jobs of the trace (0: all)
 * @param tab        the tab shown first: {@code table}, {@code whatif}, {@code push} or {@code live}
 * @param act        at start, also: {@code import} the table in force, {@code whatif} run the replay,
 *                   {@code acknowledge} the draft's warnings (groups left with nothing: a script that shows the push review),
 *                   {@code preview} the push's dry run (for the screenshot script and demos)
 */
public record PlannerOptions(String master, String token, Path table, String workerSpans, Path trace, long maxJobs, String tab,
                             List<String> act) {

    static final String USAGE = String.join("\n",
            "usage: java -jar granary-planner.jar [options]",
            "  --master=URL          connect to a master at start, e.g. http://127.0.0.1:7070",
            "  --token-file=FILE     the token to use (--issue-token=reader/NAME; admin/NAME to push)",
            "  --token=TOKEN         the same, given directly",
            "  --table=FILE          open a quota table file (the article's JSON format)",
            "  --worker-spans=SPANS  its WorkerSpans, e.g. default:5000,0-9:15000",
            "  --trace=FILE          the trace for the what-if (the simulator's formats, e.g. Alibaba batch_task.csv.gz)",
            "  --max-jobs=N          the what-if replays only the first N jobs of the trace (default: all)",
            "  --tab=table|whatif|push|live   the tab shown first",
            "  --act=import,whatif,acknowledge,preview    at start: import the table in force, run the what-if,",
            "                        acknowledge the draft's warnings, dry-run the push");

    static final List<String> TABS = List.of("table", "whatif", "push", "live");
    static final List<String> ACTS = List.of("import", "whatif", "acknowledge", "preview");

    public PlannerOptions {
        act = List.copyOf(act);
    }

    /** Parses the arguments; throws IllegalArgumentException naming the argument and what is wrong. */
    public static PlannerOptions parse(List<String> args) {
        String master = null;
        String token = null;
        Path table = null;
        String spans = null;
        Path trace = null;
        long maxJobs = 0;
        String tab = "table";
        List<String> act = List.of();
        for (String a : args) {
            int eq = a.indexOf('=');
            String key = eq < 0 ? a : a.substring(0, eq);
            String value = eq < 0 ? null : a.substring(eq + 1);
            if (value == null || value.isBlank()) {
                throw new IllegalArgumentException("'" + a + "' needs a value: " + key + "=...\n" + USAGE);
            }
            switch (key) {
                case "--master" -> master = value;
                case "--token" -> token = value;
                case "--token-file" -> token = readToken(Path.of(value));
                case "--table" -> table = existing(key, Path.of(value));
                case "--worker-spans" -> spans = value;
                case "--trace" -> trace = existing(key, Path.of(value));
                case "--max-jobs" -> {
                    try {
                        maxJobs = Long.parseLong(value);
                    } catch (NumberFormatException e) {
                        maxJobs = -1;
                    }
                    if (maxJobs < 0) {
                        throw new IllegalArgumentException("--max-jobs: '" + value + "' is not a whole number of jobs, 0 or more");
                    }
                }
                case "--tab" -> {
                    if (!TABS.contains(value)) {
                        throw new IllegalArgumentException("--tab: '" + value + "' is none of " + TABS);
                    }
                    tab = value;
                }
                case "--act" -> {
                    act = List.of(value.split(","));
                    for (String x : act) {
                        if (!ACTS.contains(x)) {
                            throw new IllegalArgumentException("--act: '" + x + "' is none of " + ACTS);
                        }
                    }
                }
                default -> throw new IllegalArgumentException("unknown argument '" + a + "'\n" + USAGE);
            }
        }
        return new PlannerOptions(master, token, table, spans, trace, maxJobs, tab, act);
    }

    private static Path existing(String key, Path p) {
        if (!Files.isRegularFile(p)) {
            throw new IllegalArgumentException(key + ": no file at " + p.toAbsolutePath());
        }
        return p;
    }

    private static String readToken(Path p) {
        try {
            return Files.readString(existing("--token-file", p)).strip();
        } catch (java.io.IOException e) {
            throw new IllegalArgumentException("--token-file: cannot read " + p + ": " + e.getMessage());
        }
    }
}

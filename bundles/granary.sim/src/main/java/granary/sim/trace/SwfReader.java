package granary.sim.trace;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import granary.api.model.NodeSpec;
import granary.api.model.Resources;
import granary.api.model.UnitSpec;
import granary.sim.workload.ReadReport;
import granary.sim.workload.SimJob;
import granary.sim.workload.SimUnit;
import granary.sim.workload.Workload;

/**
 * The Standard Workload Format of the Parallel Workloads Archive ({@code .swf}, or gzipped
 * {@code .swf.gz}): {@code ;} header comments, then one job per line with 18 whitespace-separated
 * fields (job, submit, wait, run, procs_alloc, avg_cpu, used_mem, procs_req, time_req, mem_req,
 * status, user, group, app, queue, partition, preceding_job, think_time; −1 = unknown).
 *
 * <p>Mapping: each job is one unit of {@code procs} slots (allocated processors, else requested)
 * of one processor each ({@code cpuPerProc}, default 100 = one core, and the job's memory per
 * processor, KB → MiB, when the log has it), all-or-nothing — a gang — when a gang-placement policy
 * is available ({@code gang=auto}), arriving at {@code submit} and running {@code run} seconds.
 * Jobs with an unknown run time (−1) or processor count are skipped (counted). The header's
 * {@code MaxNodes} / {@code MaxProcs} give the default cluster: MaxNodes nodes of
 * MaxProcs / MaxNodes processors.
 */
public final class SwfReader {

    static final String[] NAMES = {"job", "submit", "wait", "run", "procs_alloc", "avg_cpu", "used_mem", "procs_req",
        "time_req", "mem_req", "status", "user", "group", "app", "queue", "partition", "preceding_job", "think_time"};

    public static final Map<String, String> OPTIONS = options();

    private static Map<String, String> options() {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("gang", "auto (default: gangs when a gang-placement policy is installed) | true | false");
        m.put("procs", "alloc (default: allocated, else requested) | req");
        m.put("cpuPerProc", "cpu of one processor in 1/100 cores (default 100)");
        m.put("memPerProcMb", "memory of one processor in MiB when the log has none (default 0)");
        m.put("arrival", "submit (default) | start (= submit + wait)");
        m.put("group", "const:NAME (default const:default) | hash:N | user | group | queue | app (e.g. user-4)");
        m.put("priority", "priority of every unit (default 0)");
        m.put("badRows", "fail (default) | skip");
        m.put("limit", "read at most this many jobs (default 0 = all)");
        return m;
    }

    private SwfReader() {
    }

    public static Workload read(Path path, TraceOptions o, TraceContext ctx) {
        ReadReport report = new ReadReport(path.toString());
        String gangMode = o.choice("gang", "auto", "auto", "true", "false");
        boolean gang = "true".equals(gangMode) || "auto".equals(gangMode) && ctx.gangPlacement();
        report.fact("gang", gang + ("auto".equals(gangMode) ? " (gang=auto: " + (ctx.gangPlacement()
                ? "a gang-placement policy is installed)" : "no gang-placement policy is installed; jobs run as plain units)") : ""));
        boolean req = "req".equals(o.choice("procs", "alloc", "alloc", "req"));
        long cpuPerProc = o.number("cpuPerProc", 100);
        long memPerProc = o.number("memPerProcMb", 0);
        boolean atStart = "start".equals(o.choice("arrival", "submit", "submit", "start"));
        GroupRule group = GroupRule.parse("swf", o.text("group", "const:default"),
                Map.of("user", "user-", "group", "group-", "queue", "queue-", "app", "app-"));
        int priority = (int) o.number("priority", 0);
        if (cpuPerProc <= 0 || memPerProc < 0) {
            throw o.bad("cpuPerProc", "cpuPerProc must be at least 1 and memPerProcMb not negative");
        }
        List<SimJob> jobs = new ArrayList<>();
        Map<Long, String> seen = new HashMap<>();
        long limit = o.limit();
        try (TextSource in = TextSource.open(path)) {
            RowLoop loop = new RowLoop(o.skipBadRows(), report);
            for (String line = in.next(); line != null && report.rows() < limit; line = in.next()) {
                String t = line.strip();
                if (t.startsWith(";")) {
                    header(t, report);
                    continue;
                }
                if (t.isEmpty()) {
                    continue;
                }
                report.row();
                loop.handle(in, line, l -> {
                    Row r = Row.whitespace(in.name(), in.lineNo(), l, NAMES).expect(NAMES.length);
                    SimJob j = job(r, req, cpuPerProc, memPerProc, atStart, gang, group, priority, report, seen);
                    if (j != null) {
                        jobs.add(j);
                    }
                });
            }
            loop.done(in);
        }
        return new Workload(jobs, report, null);
    }

    private static void header(String comment, ReadReport report) {
        String c = comment.substring(1).trim();
        int colon = c.indexOf(':');
        if (colon > 0) {
            String key = c.substring(0, colon).trim();
            if (key.equals("MaxNodes") || key.equals("MaxProcs") || key.equals("UnixStartTime") || key.equals("Computer")
                    || key.equals("Installation")) {
                report.fact(key, c.substring(colon + 1).trim());
            }
        }
    }

    private static SimJob job(Row r, boolean req, long cpuPerProc, long memPerProc, boolean atStart, boolean gang,
                              GroupRule group, int priority, ReadReport report, Map<Long, String> seen) {
        long id = r.integer(0);
        long submit = r.integer(1);
        long wait = r.integer(2);
        long run = r.integer(3);
        long alloc = r.integer(4);
        long usedMem = r.integer(6);
        long requested = r.integer(7);
        long memReq = r.integer(9);
        String first = seen.putIfAbsent(id, r.where());
        if (first != null) {
            throw r.bad(0, "job " + id + " appears twice (first at " + first + ")");
        }
        if (submit < 0) {
            throw r.bad(1, "must not be negative, got " + submit);
        }
        TraceLimits.time(r, 1, submit, false);
        TraceLimits.duration(r, 3, run, "run");
        if (atStart && wait > 0) {
            TraceLimits.time(r, 2, submit + Math.min(wait, TraceLimits.MAX_TIME_S + 1), false);
        }
        long procs = req ? requested : (alloc > 0 ? alloc : requested);
        if (procs <= 0) {
            report.skip("unknown processor count (-1)", r.where());
            return null;
        }
        if (run < 0) {
            report.skip("unknown run time (-1)", r.where());
            return null;
        }
        if (procs > Integer.MAX_VALUE) {
            throw r.bad(req ? 7 : 4, "too many processors: " + procs);
        }
        long memKb = usedMem > 0 ? usedMem : memReq;
        long mem = memKb > 0 ? (memKb + 1023) / 1024 : memPerProc;
        long arrival = atStart && wait > 0 ? submit + wait : submit;
        String jobId = "swf-" + id;
        UnitSpec spec = UnitSpec.builder("job").slot(Resources.of(cpuPerProc, mem)).desired((int) procs)
                .priority(priority).allOrNothing(gang).build();
        String g = group.group(jobId, column -> switch (column) {
            case "user" -> r.text(11);
            case "group" -> r.text(12);
            case "queue" -> r.text(14);
            default -> r.text(13);
        });
        String user = r.text(11).equals("-1") ? null : "user-" + GroupRule.sanitize(r.text(11));
        return new SimJob(jobId, g, user, 0, false, List.of(new SimUnit(spec, arrival * 1000, run * 1000)), r.where());
    }

    /** The cluster of the header: MaxNodes nodes of MaxProcs / MaxNodes processors, or null if the header has neither. */
    public static List<NodeSpec> nodes(Path path, TraceOptions o) {
        ReadReport facts = new ReadReport(path.toString());
        try (TextSource in = TextSource.open(path)) {
            for (String line = in.next(); line != null; line = in.next()) {
                String t = line.strip();
                if (!t.isEmpty() && !t.startsWith(";")) {
                    break;
                }
                if (!t.isEmpty()) {
                    header(t, facts);
                }
            }
        }
        long nodes = number(facts.facts().get("MaxNodes"));
        long procs = number(facts.facts().get("MaxProcs"));
        if (nodes <= 0 && procs <= 0) {
            return null;
        }
        nodes = nodes > 0 ? nodes : procs;
        long perNode = Math.max(1, (procs > 0 ? procs : nodes) / nodes);
        long cpu = o.number("cpuPerProc", 100) * perNode;
        long mem = o.number("memPerProcMb", 0) * perNode;
        List<NodeSpec> out = new ArrayList<>();
        int width = Long.toString(nodes).length();
        for (long i = 0; i < nodes; i++) {
            out.add(new NodeSpec(String.format("n%0" + width + "d", i), "r0", Resources.of(cpu, mem)));
        }
        return out;
    }

    private static long number(String s) {
        try {
            return s == null ? -1 : Long.parseLong(s.trim());
        } catch (NumberFormatException e) {
            return -1;
        }
    }
}

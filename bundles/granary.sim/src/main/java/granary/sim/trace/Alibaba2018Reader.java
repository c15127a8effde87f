package granary.sim.trace;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import granary.api.model.Resources;
import granary.api.model.UnitSpec;
import granary.sim.workload.ReadReport;
import granary.sim.workload.SimJob;
import granary.sim.workload.SimUnit;
import granary.sim.workload.Workload;

/**
 * Alibaba cluster-trace-v2018 {@code batch_task.csv} (official schema, {@code cluster-trace-v2018/schema.md}
 * §1.5): task_name, instance_num, job_name, task_type, status, start_time, end_time, plan_cpu
 * (100 = one core), plan_mem (normalized to the largest machine, 0..100). No header in the official
 * file; a header line with these names is accepted.
 *
 * <p>Mapping: one job per job_name, one unit per task of instance_num slots of plan_cpu ×
 * (plan_mem / 100 × {@code memMb}) MiB, running end − start seconds. The DAG in the task names
 * ({@code M5_3_4}: task 5 needs tasks 3 and 4) is kept with {@code dag=true} (default): a task is
 * requested once the tasks it needs have finished in the replay, and not before its start time;
 * names without numbers ({@code task_Nzg3...}) are independent. Quirks, each counted: start ≤ 0 is
 * requested at 0; end before start (or 0) runs until the trace's last time
 * ({@code unended=trace-end}) or is skipped; empty requests are skipped or defaulted
 * ({@code empty=}); a dependency on a task the job does not have is ignored; a cycle of dependencies is refused.
 */
public final class Alibaba2018Reader {

    static final String[] NAMES = {"task_name", "instance_num", "job_name", "task_type", "status", "start_time",
        "end_time", "plan_cpu", "plan_mem"};
    static final List<String[]> HEADERS = List.of(NAMES, new String[] {"task_name", "inst_num", "job_name", "task_type",
        "status", "start_time", "end_time", "plan_cpu", "plan_mem"});
    static final Set<String> STATUSES = Set.of("Terminated", "Failed", "Running", "Waiting", "Ready", "Cancelled", "Interrupted");
    private static final Pattern DAG_NAME = Pattern.compile("[A-Za-z]+(\\d+)((?:_\\d+)*)");

    public static final Map<String, String> OPTIONS = options();

    private static Map<String, String> options() {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("header", "auto (default) | yes | no");
        m.put("memMb", "MiB that plan_mem 100 stands for (default: memory of the cluster's largest node)");
        m.put("dag", "true (default) | false: request a task only after the tasks its name depends on finished");
        m.put("empty", "skip (default) | default: rows with an empty plan_cpu or plan_mem");
        m.put("defaultCpu", "plan_cpu for empty requests with empty=default (default 100)");
        m.put("defaultMem", "plan_mem (0..100) for empty requests with empty=default (default 0.5)");
        m.put("unended", "trace-end (default) | skip: tasks whose end time is 0 or before their start");
        m.put("statuses", "statuses to replay, comma-separated (default all)");
        m.put("group", "const:NAME (default const:default) | hash:N | task_type (group type-<t>)");
        m.put("priority", "priority of every unit (default 0)");
        m.put("badRows", "fail (default) | skip");
        m.put("limit", "read at most this many data rows (default 0 = all)");
        return m;
    }

    private record Task(String job, String name, String rawName, int instances, Resources slot, long startMs, long endMs,
                        boolean unended, String type, String where) {
    }

    private Alibaba2018Reader() {
    }

    public static Workload read(Path path, TraceOptions o, TraceContext ctx) {
        ReadReport report = new ReadReport(path.toString());
        boolean dag = o.flag("dag", true);
        boolean emptyDefault = "default".equals(o.choice("empty", "skip", "skip", "default"));
        double defaultCpu = o.decimal("defaultCpu", 100);
        double defaultMem = o.decimal("defaultMem", 0.5);
        boolean unendedSkip = "skip".equals(o.choice("unended", "trace-end", "trace-end", "skip"));
        Set<String> statuses = Statuses.parse(o, STATUSES);
        GroupRule group = GroupRule.parse("alibaba2018", o.text("group", "const:default"), Map.of("task_type", "type-"));
        int priority = (int) o.number("priority", 0);
        long memMb = o.number("memMb", ctx.nodeMemMb());
        if (memMb <= 0) {
            throw o.bad("memMb", "unknown: give memMb=<MiB of plan_mem 100> or a cluster (--cluster)");
        }
        Map<String, List<Task>> jobs = new LinkedHashMap<>();
        Map<String, String> seen = new HashMap<>();
        long[] traceEnd = {0};
        new CsvTable(NAMES, HEADERS, o.choice("header", "auto", "auto", "yes", "no")).textFirstColumn().read(path, report, o.skipBadRows(), o.limit(), r -> {
            String rawName = r.text(0);
            long instances = r.integer(1);
            String job = GroupRule.sanitize(r.text(2));
            String type = r.text(3);
            String status = r.text(4);
            long start = r.integer(5);
            long end = r.integer(6);
            TraceLimits.time(r, 5, start, true);
            TraceLimits.time(r, 6, end, true);
            Double cpu = r.empty(7) ? null : nonNegative(r, 7);
            Double mem = r.empty(8) ? null : nonNegative(r, 8);
            if (rawName.isEmpty() || job.isEmpty()) {
                throw r.bad(rawName.isEmpty() ? 0 : 2, "is empty");
            }
            if (!STATUSES.contains(status)) {
                throw r.bad(4, "'" + status + "' is not a task status; statuses: " + new TreeSet<>(STATUSES));
            }
            if (instances < 0 || instances > Integer.MAX_VALUE) {
                throw r.bad(1, "must be between 0 and " + Integer.MAX_VALUE + ", got " + instances);
            }
            if (mem != null && mem > 100) {
                throw r.bad(8, "normalized memory must be within 0..100, got " + r.text(8));
            }
            traceEnd[0] = Math.max(traceEnd[0], Math.max(start, end) * 1000);   // every row, skipped or not
            String name = GroupRule.sanitize(rawName);
            String first = seen.putIfAbsent(job + "/" + name, r.where());
            if (first != null) {
                throw r.bad(0, "task " + rawName + " of job " + job + " appears twice (first at " + first + ")");
            }
            if (!statuses.contains(status)) {
                report.skip("status " + status + " not replayed (statuses=)", r.where());
                return;
            }
            if (instances == 0) {
                report.skip("no instances", r.where());
                return;
            }
            if (cpu == null || mem == null) {
                if (!emptyDefault) {
                    report.skip("empty request (empty=skip)", r.where());
                    return;
                }
                report.defaulted("empty request -> defaultCpu/defaultMem (empty=default)", r.where());
                cpu = cpu == null ? defaultCpu : cpu;
                mem = mem == null ? defaultMem : mem;
            }
            Resources slot = Resources.of((long) Math.ceil(cpu), (long) Math.ceil(mem / 100.0 * memMb));
            if (slot.isZero()) {
                throw r.bad(7, "the request is zero in cpu and in memory");
            }
            boolean unended = end <= 0 && start > 0 || end < start;
            if (!unended) {
                TraceLimits.duration(r, 6, end - Math.max(0, start), "end_time - start_time");
            }
            if (unended && unendedSkip) {
                report.skip("end 0 or before start (not ended in the trace; unended=skip)", r.where());
                return;
            }
            if (start <= 0) {
                report.adjust("start time <= 0 (before the trace): requested at 0", r.where());
            }
            jobs.computeIfAbsent(job, k -> new ArrayList<>()).add(new Task(job, name, rawName, (int) instances, slot,
                    Math.max(0, start) * 1000, end * 1000, unended, type, r.where()));
        });
        List<SimJob> out = new ArrayList<>();
        List<TraceException.Problem> cycles = new ArrayList<>();
        for (List<Task> tasks : jobs.values()) {
            SimJob j = job(tasks, dag, traceEnd[0], priority, group, report);
            List<String> cycle = Dag.cycle(j.units());
            if (cycle == null) {
                out.add(j);
            } else if (o.skipBadRows()) {
                report.skip("dependency cycle", tasks.get(0).where());
            } else if (cycles.size() < RowLoop.MAX_PROBLEMS) {
                cycles.add(new TraceException.Problem(tasks.get(0).where(), 0, 0, Dag.message(j.id(), "tasks", cycle)));
            }
        }
        if (!cycles.isEmpty()) {
            throw new TraceException(cycles);
        }
        report.fact("memMb", Long.toString(memMb));
        return new Workload(out, report, null);
    }

    private static double nonNegative(Row r, int i) {
        double d = r.decimal(i);
        if (d < 0) {
            throw r.bad(i, "must not be negative, got " + r.text(i));
        }
        return d;
    }

    private static SimJob job(List<Task> tasks, boolean dag, long traceEnd, int priority, GroupRule group, ReadReport report) {
        Map<String, String> byNumber = new HashMap<>();
        for (Task t : tasks) {
            Matcher m = DAG_NAME.matcher(t.rawName());
            if (m.matches()) {
                byNumber.putIfAbsent(m.group(1), t.name());
            }
        }
        List<SimUnit> units = new ArrayList<>();
        for (Task t : tasks) {
            long end = t.unended() ? Math.max(traceEnd, t.startMs()) : t.endMs();
            if (t.unended()) {
                report.adjust("end 0 or before start (not ended in the trace): runs until the trace's last time", t.where());
            }
            UnitSpec spec = UnitSpec.builder(t.name()).slot(t.slot()).desired(t.instances()).priority(priority).build();
            List<String> after = dag ? dependencies(t, byNumber, report) : List.of();
            units.add(new SimUnit(spec, t.startMs(), Math.max(0, end - t.startMs()), after));
        }
        Task first = tasks.get(0);
        return new SimJob(first.job(), group.group(first.job(), c -> first.type()), null, 0, false, units, first.where());
    }

    private static List<String> dependencies(Task t, Map<String, String> byNumber, ReadReport report) {
        Matcher m = DAG_NAME.matcher(t.rawName());
        if (!m.matches() || m.group(2).isEmpty()) {
            return List.of();
        }
        List<String> after = new ArrayList<>();
        for (String n : m.group(2).substring(1).split("_")) {
            String dep = byNumber.get(n);
            if (dep == null || dep.equals(t.name())) {
                report.adjust("dependency on a task the job does not have: ignored", t.where());
            } else if (!after.contains(dep)) {
                after.add(dep);
            }
        }
        return after;
    }
}

package granary.sim.trace;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import granary.api.model.Resources;
import granary.api.model.UnitSpec;
import granary.sim.workload.ReadReport;
import granary.sim.workload.SimJob;
import granary.sim.workload.SimUnit;
import granary.sim.workload.Workload;

/**
 * Alibaba cluster-trace-v2017 {@code batch_task.csv} (official schema, {@code cluster-trace-v2017/schema.csv}):
 * task create time, task end time, job id, task id, number of instances, status, cpus per instance
 * (1/100 cores: 50 = half a core), memory per instance normalized to the largest machine.
 * The official file has no header; a copy with a header line (any of the accepted spellings) is
 * read the same way.
 *
 * <p>Mapping: one job per job id, one unit per row (task) of {@code number_of_instances} slots of
 * {@code cpu} × ({@code mem} × {@code memMb}) MiB, requested at the create time and running
 * {@code end − create} seconds. Rules for the trace's quirks, each counted in the read report:
 * <ul>
 *   <li>create time ≤ 0 (before the trace window): requested at 0; the run time is still end − create;</li>
 *   <li>end before create (a task still running when the trace ended; end is 0 there): runs until the
 *       trace's last time ({@code unended=trace-end}, default) or is skipped ({@code unended=skip});</li>
 *   <li>empty cpu or memory: skipped ({@code empty=skip}, default) or given {@code defaultCpu} /
 *       {@code defaultMem} ({@code empty=default});</li>
 *   <li>0 instances: skipped.</li>
 * </ul>
 */
public final class Alibaba2017Reader {

    static final String[] NAMES = {"task_create_time", "task_end_time", "job_id", "task_id", "number_of_instances",
        "status", "number_of_cpus_requested_per_instance_in_the_task", "normalized_memory_requested_per_instance_in_the_task"};
    static final List<String[]> HEADERS = List.of(NAMES,
            new String[] {"task create time", "task end time", "job id", "task id", "number of instances", "status",
                "number of cpus requested per instance in the task", "normalized memory requested per instance in the task"},
            new String[] {"create_timestamp", "modify_timestamp", "job_id", "task_id", "instance_num", "status", "plan_cpu", "plan_mem"});
    static final Set<String> STATUSES = Set.of("Terminated", "Failed", "Running", "Waiting", "Ready", "Cancelled");

    /** Options and their documentation. */
    public static final Map<String, String> OPTIONS = options();

    private static Map<String, String> options() {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("header", "auto (default) | yes | no: whether the first line names the columns");
        m.put("memMb", "MiB that normalized memory 1.0 stands for (default: memory of the cluster's largest node)");
        m.put("empty", "skip (default) | default: rows with an empty cpu or memory request");
        m.put("defaultCpu", "cpu (1/100 cores) for empty requests with empty=default (default 50)");
        m.put("defaultMem", "normalized memory for empty requests with empty=default (default 0.0054)");
        m.put("unended", "trace-end (default) | skip: tasks whose end time is before their create time");
        m.put("statuses", "statuses to replay, comma-separated (default all: " + String.join(",", new java.util.TreeSet<>(STATUSES)) + ")");
        m.put("group", "const:NAME (default const:default) | hash:N: the job's group");
        m.put("priority", "priority of every unit (default 0)");
        m.put("badRows", "fail (default) | skip: what a malformed row does");
        m.put("limit", "read at most this many data rows (default 0 = all)");
        return m;
    }

    private record Task(String job, String name, int instances, Resources slot, long createMs, long endMs,
                        boolean unended, String where) {
    }

    private Alibaba2017Reader() {
    }

    public static Workload read(Path path, TraceOptions o, TraceContext ctx) {
        ReadReport report = new ReadReport(path.toString());
        Settings s = new Settings(o, ctx);
        Map<String, List<Task>> jobs = new LinkedHashMap<>();
        Map<String, String> seen = new java.util.HashMap<>();
        long[] traceEnd = {0};
        new CsvTable(NAMES, HEADERS, o.choice("header", "auto", "auto", "yes", "no"))
                .read(path, report, o.skipBadRows(), o.limit(), row -> {
                    Task t = task(row, s, report, seen, traceEnd);
                    if (t != null) {
                        jobs.computeIfAbsent(t.job(), k -> new ArrayList<>()).add(t);
                    }
                });
        List<SimJob> out = new ArrayList<>();
        for (Map.Entry<String, List<Task>> e : jobs.entrySet()) {
            SimJob j = job(e.getKey(), e.getValue(), s, traceEnd[0], report);
            if (j != null) {
                out.add(j);
            }
        }
        report.fact("memMb", Long.toString(s.memMb));
        return new Workload(out, report, null);
    }

    private static final class Settings {
        final boolean emptyDefault;
        final long defaultCpu;
        final double defaultMem;
        final boolean unendedSkip;
        final Set<String> statuses;
        final GroupRule group;
        final int priority;
        final long memMb;

        Settings(TraceOptions o, TraceContext ctx) {
            emptyDefault = "default".equals(o.choice("empty", "skip", "skip", "default"));
            defaultCpu = o.number("defaultCpu", 50);
            defaultMem = o.decimal("defaultMem", 0.0054);
            unendedSkip = "skip".equals(o.choice("unended", "trace-end", "trace-end", "skip"));
            statuses = Statuses.parse(o, STATUSES);
            group = GroupRule.parse("alibaba2017", o.text("group", "const:default"), Map.of());
            priority = (int) o.number("priority", 0);
            memMb = o.number("memMb", ctx.nodeMemMb());
            if (memMb <= 0) {
                throw o.bad("memMb", "unknown: give memMb=<MiB of normalized memory 1.0> or a cluster (--cluster)");
            }
            if (defaultCpu < 0 || defaultMem < 0 || defaultCpu == 0 && defaultMem == 0) {
                throw o.bad("defaultCpu", "defaultCpu and defaultMem must not be negative, and not both 0");
            }
        }

    }

    private static Task task(Row r, Settings s, ReadReport report, Map<String, String> seen, long[] traceEnd) {
        long create = r.integer(0);
        long end = r.integer(1);
        TraceLimits.time(r, 0, create, true);
        TraceLimits.time(r, 1, end, true);
        traceEnd[0] = Math.max(traceEnd[0], Math.max(create, end) * 1000);   // every row, skipped or not
        String job = "job-" + r.integer(2);
        String name = "task-" + r.integer(3);
        long instances = r.integer(4);
        String status = r.text(5);
        if (!STATUSES.contains(status)) {
            throw r.bad(5, "'" + status + "' is not a task status; statuses: " + new java.util.TreeSet<>(STATUSES));
        }
        if (instances < 0 || instances > Integer.MAX_VALUE) {
            throw r.bad(4, "must be between 0 and " + Integer.MAX_VALUE + ", got " + instances);
        }
        Long cpu = r.empty(6) ? null : cpu(r);
        Double mem = r.empty(7) ? null : mem(r);
        String first = seen.putIfAbsent(job + "/" + name, r.where());
        if (first != null) {
            throw r.bad(3, "task " + name + " of " + job + " appears twice (first at " + first + ")");
        }
        if (!s.statuses.contains(status)) {
            report.skip("status " + status + " not replayed (statuses=)", r.where());
            return null;
        }
        if (instances == 0) {
            report.skip("no instances", r.where());
            return null;
        }
        if (cpu == null || mem == null) {
            if (!s.emptyDefault) {
                report.skip("empty request (empty=skip)", r.where());
                return null;
            }
            report.defaulted("empty request -> defaultCpu/defaultMem (empty=default)", r.where());
            cpu = cpu == null ? s.defaultCpu : cpu;
            mem = mem == null ? s.defaultMem : mem;
        }
        long memMb = (long) Math.ceil(mem * s.memMb);
        if (cpu == 0 && memMb == 0) {
            throw r.bad(6, "the request is zero in cpu and in memory");
        }
        boolean unended = end < create;
        if (!unended) {
            TraceLimits.duration(r, 1, end - create, "end - create");
        }
        if (unended && s.unendedSkip) {
            report.skip("end before create (not ended in the trace; unended=skip)", r.where());
            return null;
        }
        if (create <= 0) {
            report.adjust("create time <= 0 (before the trace): requested at 0", r.where());
        }
        return new Task(job, name, (int) instances, Resources.of(cpu, memMb), create * 1000, end * 1000, unended, r.where());
    }

    private static long cpu(Row r) {
        double cpu = r.decimal(6);
        if (cpu < 0) {
            throw r.bad(6, "must not be negative, got " + r.text(6));
        }
        return (long) Math.ceil(cpu);
    }

    private static double mem(Row r) {
        double mem = r.decimal(7);
        if (mem < 0 || mem > 1) {
            throw r.bad(7, "normalized memory must be within 0..1, got " + r.text(7));
        }
        return mem;
    }

    private static SimJob job(String id, List<Task> tasks, Settings s, long traceEnd, ReadReport report) {
        List<SimUnit> units = new ArrayList<>();
        for (Task t : tasks) {
            long end = t.endMs();
            if (t.unended()) {
                end = Math.max(traceEnd, t.createMs());
                report.adjust("end before create (not ended in the trace): runs until the trace's last time", t.where());
            }
            UnitSpec spec = UnitSpec.builder(t.name()).slot(t.slot()).desired(t.instances()).priority(s.priority).build();
            units.add(new SimUnit(spec, Math.max(0, t.createMs()), end - t.createMs()));
        }
        String group = s.group.group(id, c -> null);
        return new SimJob(id, group, null, 0, false, units, tasks.get(0).where());
    }
}

package granary.sim.trace;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import granary.api.model.Resources;
import granary.api.model.UnitSpec;
import granary.sim.workload.ReadReport;
import granary.sim.workload.SimJob;
import granary.sim.workload.SimUnit;
import granary.sim.workload.Workload;

/**
 * A seeded synthetic workload: {@code jobs} jobs arriving as a Poisson stream of {@code rate} jobs
 * per second, each of {@code units} units with {@code slots} slots of {@code cpu} × {@code mem}
 * (and {@code gpu}), running {@code duration} seconds, in one of {@code groups} groups, with
 * {@code priority}; a share {@code gang} of the jobs is all-or-nothing. Sizes and times are
 * {@link Distribution}s. The same seed gives the same workload on every JVM.
 */
public final class SyntheticWorkload {

    public static final Map<String, String> OPTIONS = options();

    private static Map<String, String> options() {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("jobs", "number of jobs (default 1000)");
        m.put("rate", "mean arrivals per second, Poisson (default 1)");
        m.put("units", "units per job, a distribution (default const:1)");
        m.put("slots", "slots per unit (default uniform:1:20)");
        m.put("duration", "seconds a slot runs (default exp:60)");
        m.put("cpu", "cpu per slot in 1/100 cores (default choice:50,100,200,400)");
        m.put("mem", "memory per slot in MiB (default choice:1024,2048,4096,8192)");
        m.put("gpu", "extended resource gpu per slot (default const:0)");
        m.put("groups", "number of groups g0..g<N-1>, or their names separated by commas (default 4)");
        m.put("priority", "unit priority (default const:0)");
        m.put("gang", "share of all-or-nothing jobs, 0..1 (default 0)");
        m.put("users", "number of users user-0..user-<N-1> (default 10)");
        return m;
    }

    private SyntheticWorkload() {
    }

    public static Workload generate(TraceOptions o, TraceContext ctx) {
        long jobs = o.number("jobs", 1000);
        double rate = o.decimal("rate", 1);
        Distribution units = dist(o, "units", "const:1");
        Distribution slots = dist(o, "slots", "uniform:1:20");
        Distribution duration = dist(o, "duration", "exp:60");
        Distribution cpu = dist(o, "cpu", "choice:50,100,200,400");
        Distribution mem = dist(o, "mem", "choice:1024,2048,4096,8192");
        Distribution gpu = dist(o, "gpu", "const:0");
        Distribution priority = dist(o, "priority", "const:0");
        double gang = o.decimal("gang", 0);
        long users = o.number("users", 10);
        List<String> groups = groups(o);
        if (jobs < 0 || rate <= 0 || gang < 0 || gang > 1 || users < 1) {
            throw o.bad("jobs", "need jobs >= 0, rate > 0, 0 <= gang <= 1, users >= 1");
        }
        if (jobs > TraceLimits.MAX_SYNTHETIC_JOBS) {
            throw o.bad("jobs", "at most " + TraceLimits.n(TraceLimits.MAX_SYNTHETIC_JOBS) + ", got " + TraceLimits.n(jobs));
        }
        Random r = new Random(ctx.seed());
        ReadReport report = new ReadReport("synthetic(seed=" + ctx.seed() + ")");
        List<SimJob> out = new ArrayList<>();
        double t = 0;
        for (long j = 0; j < jobs; j++) {
            t += -Math.log(1 - r.nextDouble()) / rate;
            if (t > TraceLimits.MAX_TIME_S) {
                throw o.bad("rate", "job " + j + " would arrive at " + TraceLimits.n((long) Math.min(t, Long.MAX_VALUE))
                        + " s, after the limit of " + TraceLimits.n(TraceLimits.MAX_TIME_S) + " s (10 years): raise rate or lower jobs");
            }
            long at = Math.round(t * 1000);
            boolean isGang = r.nextDouble() < gang;
            int n = (int) Math.max(1, units.sampleLong(r));
            List<SimUnit> us = new ArrayList<>();
            for (int k = 0; k < n; k++) {
                Resources slot = slot(cpu.sampleLong(r), mem.sampleLong(r), gpu.sampleLong(r));
                UnitSpec spec = UnitSpec.builder("u" + k).slot(slot).desired((int) Math.max(1, slots.sampleLong(r)))
                        .priority((int) priority.sampleLong(r)).build();
                double d = duration.sample(r);
                if (d > TraceLimits.MAX_DURATION_S) {
                    throw o.bad("duration", "job " + j + " drew a duration of " + TraceLimits.n((long) Math.min(d, Long.MAX_VALUE))
                            + " s, above the limit of " + TraceLimits.n(TraceLimits.MAX_DURATION_S) + " s (1 year)");
                }
                us.add(new SimUnit(spec, at, Math.round(d * 1000)));
            }
            String group = groups.get(r.nextInt(groups.size()));
            String user = "user-" + r.nextInt((int) Math.min(users, Integer.MAX_VALUE));
            report.row();
            out.add(new SimJob("job-" + j, group, user, 0, isGang, us, "synthetic job " + j));
        }
        return new Workload(out, report, null);
    }

    private static Resources slot(long cpu, long mem, long gpu) {
        Resources r = gpu > 0 ? Resources.of(cpu, mem, Map.of("gpu", gpu)) : Resources.of(cpu, mem);
        return r.isZero() ? Resources.of(1, 0) : r;
    }

    private static Distribution dist(TraceOptions o, String name, String dflt) {
        return Distribution.parse("trace synthetic", name, o.text(name, dflt));
    }

    private static List<String> groups(TraceOptions o) {
        String g = o.text("groups", "4");
        List<String> out = new ArrayList<>();
        if (g.matches("\\d+")) {
            int n = Integer.parseInt(g);
            if (n < 1) {
                throw o.bad("groups", "must be at least 1");
            }
            for (int i = 0; i < n; i++) {
                out.add("g" + i);
            }
            return out;
        }
        for (String name : g.split("[,/]")) {
            if (!granary.api.model.Names.isValid(name.trim())) {
                throw o.bad("groups", "'" + name.trim() + "' is not a valid group name: " + granary.api.model.Names.RULE);
            }
            out.add(name.trim());
        }
        return out;
    }
}

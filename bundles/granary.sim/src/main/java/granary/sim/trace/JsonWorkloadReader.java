package granary.sim.trace;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import granary.api.model.JobSpec;
import granary.api.model.NodeSpec;
import granary.api.model.Text;
import granary.api.model.UnitSpec;
import granary.codec.JobCodec;
import granary.codec.json.Json;
import granary.codec.json.JsonArray;
import granary.codec.json.JsonNumber;
import granary.codec.json.JsonObject;
import granary.codec.json.JsonPath;
import granary.codec.json.JsonValue;
import granary.sim.workload.ReadReport;
import granary.sim.workload.SimJob;
import granary.sim.workload.SimUnit;
import granary.sim.workload.Workload;

/**
 * Granary's own workload format: the job file format of {@code granary:submit} ({@link JobCodec},
 * which reads and checks the job part) plus when things happen:
 * <pre>
 * {
 *   "nodes": [ ... ],                        optional: the cluster (see the cluster file format)
 *   "jobs": [
 *     { "id": "etl-1", "group": "root.a.p0", "user": "alice", "gang": false, "productionLevel": 0,
 *       "submit": 12.5,                      seconds from the start of the trace (default 0)
 *       "units": [
 *         { "name": "map", "slot": {"cpu": 100, "mem": 2048}, "desired": 40, "priority": 1,
 *           "duration": 30,                  required: seconds each slot runs once granted
 *           "submit": 20,                    optional: when this unit is requested (default: the job's submit)
 *           "after": ["extract"]             optional: units of the same job that must finish first
 *           ... every other field of a unit in the job file format (locality, maxPerNode, kind, ...)
 *         } ] } ] }
 * </pre>
 * The document may also be just the array of jobs. Times are seconds (decimals allowed, kept to the
 * millisecond). A gang job's units arrive together and cannot depend on each other. Every problem
 * names the file, line and column and the JSON path, e.g.
 * {@code w.json:14:30: $.jobs[2].units[0].slot.cpu: must not be negative, got -100}.
 */
public final class JsonWorkloadReader {

    private static final Set<String> TOP = Set.of("jobs", "nodes");
    private static final Set<String> JOB_TIME_FIELDS = Set.of("submit");
    private static final Set<String> UNIT_TIME_FIELDS = Set.of("duration", "submit", "after");

    public static final Map<String, String> OPTIONS = Map.of(
            "group", "override every job's group: const:NAME | hash:N (default: as in the file)");

    private JsonWorkloadReader() {
    }

    public static Workload read(Path path, TraceOptions o, TraceContext ctx) {
        String group = o.text("group", "");
        GroupRule rule = group.isEmpty() ? null : GroupRule.parse("json", group, Map.of());
        JsonValue root = JsonInput.read(path);
        Json f = new Json(JsonInput.name(path));
        ReadReport report = new ReadReport(path.toString());
        JsonValue jobsValue = root;
        List<NodeSpec> nodes = null;
        String base = "$";
        if (root instanceof JsonObject top) {
            f.onlyKnown(top, "$", TOP);
            jobsValue = f.field(top, "jobs", "$", true);
            base = "$.jobs";
            if (top.has("nodes")) {
                nodes = JsonNodes.read(f, top.get("nodes"), "$.nodes");
            }
        }
        JsonArray jobs = jobsValue == null ? null : f.array(jobsValue, base);
        List<SimJob> out = new ArrayList<>();
        Set<String> ids = new HashSet<>();
        for (int i = 0; jobs != null && i < jobs.size() && f.count() < RowLoop.MAX_PROBLEMS; i++) {
            report.row();
            String p = JsonPath.item(base, i);
            SimJob j = job(f, jobs.get(i), p);
            if (j != null && !ids.add(j.id())) {
                f.problem(((JsonObject) jobs.get(i)).get("id"), p + ".id", "job id '" + Text.escape(j.id()) + "' appears twice in the file");
            } else if (j != null) {
                out.add(rule == null ? j : new SimJob(j.id(), rule.group(j.id(), c -> null), j.user(),
                        j.productionLevel(), j.gang(), j.units(), j.origin()));
            }
        }
        JsonInput.throwIfProblems(f);
        return new Workload(out, report, nodes);
    }

    /** One job: its times read here, the rest by the job file codec (which accepts the time fields). */
    private static SimJob job(Json f, JsonValue e, String path) {
        JsonObject o = f.object(e, path);
        if (o == null) {
            return null;
        }
        long submit = seconds(f, o, "submit", path, 0L, TraceLimits.MAX_TIME_S, "time");
        List<long[]> times = new ArrayList<>();      // per unit: submit, duration
        List<List<String>> after = new ArrayList<>();
        List<JsonObject> unitObjects = new ArrayList<>();
        if (o.get("units") instanceof JsonArray units) {
            for (int k = 0; k < units.size(); k++) {
                String up = JsonPath.item(path + ".units", k);
                JsonObject u = units.get(k) instanceof JsonObject x ? x : JsonObject.builder().build();
                unitObjects.add(u);
                long unitSubmit = seconds(f, u, "submit", up, submit, TraceLimits.MAX_TIME_S, "time");
                if (unitSubmit < submit) {
                    f.problem(u.get("submit"), up + ".submit", "is before the job's submit " + submit / 1000.0 + " s");
                }
                times.add(new long[] {unitSubmit, seconds(f, u, "duration", up, null, TraceLimits.MAX_DURATION_S, "duration")});
                after.add(f.strings(u, "after", up));
            }
        }
        JobSpec spec = JobCodec.job(f, o, path, JOB_TIME_FIELDS, UNIT_TIME_FIELDS);
        if (spec == null || times.size() != spec.units().size()) {
            return null;
        }
        return simJob(f, spec, submit, times, after, unitObjects, path);
    }

    /** Seconds (a number, decimals allowed) as milliseconds; {@code dflt} null means required. */
    private static long seconds(Json f, JsonObject o, String key, String path, Long dflt, long maxSeconds, String what) {
        JsonValue e = f.field(o, key, path, false);
        if (e == null) {
            if (dflt == null) {
                f.problem(o, path + "." + key, "is missing (seconds)");
                return 0;
            }
            return dflt;
        }
        if (!(e instanceof JsonNumber n)) {
            f.problem(e, path + "." + key, "expected a number of seconds, got " + Json.kind(e));
            return 0;
        }
        BigDecimal s = n.decimal();
        if (s.signum() < 0) {
            f.problem(e, path + "." + key, "must not be negative, got " + Text.escape(s.toPlainString()));
            return 0;
        }
        if (s.compareTo(BigDecimal.valueOf(maxSeconds)) > 0) {
            f.problem(e, path + "." + key, what + " " + Text.escape(s.toPlainString()) + " s is above the limit of "
                    + TraceLimits.n(maxSeconds) + " s (" + (maxSeconds == TraceLimits.MAX_TIME_S ? "10 years" : "1 year") + ")");
            return 0;
        }
        try {
            return s.movePointRight(3).setScale(0, RoundingMode.HALF_UP).longValueExact();
        } catch (ArithmeticException ex) {
            f.problem(e, path + "." + key, "is too large, got " + Text.escape(n.text()));
            return 0;
        }
    }

    private static SimJob simJob(Json f, JobSpec spec, long submit, List<long[]> times, List<List<String>> after,
                                 List<JsonObject> unitObjects, String path) {
        Map<String, Integer> index = new HashMap<>();
        for (int k = 0; k < spec.units().size(); k++) {
            index.put(spec.units().get(k).name(), k);
        }
        List<SimUnit> units = new ArrayList<>();
        for (int k = 0; k < spec.units().size(); k++) {
            UnitSpec u = spec.units().get(k);
            String up = JsonPath.item(path + ".units", k);
            for (String dep : after.get(k)) {
                if (!index.containsKey(dep) || dep.equals(u.name())) {
                    f.problem(unitObjects.get(k).get("after"), up + ".after", "'" + Text.escape(dep) + "' is not another unit of job "
                            + spec.id() + "; units: " + new LinkedHashMap<>(index).keySet());
                }
            }
            if (spec.gang() && (!after.get(k).isEmpty() || times.get(k)[0] != submit)) {
                f.problem(unitObjects.get(k), up, "a gang job's units arrive with the job: no 'after', and no 'submit' of their own");
            }
            units.add(new SimUnit(u, times.get(k)[0], times.get(k)[1], after.get(k)));
        }
        if (!f.ok()) {
            return null;
        }
        List<String> cycle = Dag.cycle(units);
        if (cycle != null) {
            int k = index.get(cycle.get(0));
            f.problem(unitObjects.get(k).get("after"), JsonPath.item(path + ".units", k) + ".after",
                    Dag.message(spec.id(), "units", cycle));
            return null;
        }
        return new SimJob(spec.id(), spec.group(), spec.user(), spec.productionLevel(), spec.gang(), units, path);
    }

    /**
     * A cluster file: {@code {"nodes": [...]}} or just the array (see {@link JsonNodes} for an entry).
     */
    public static List<NodeSpec> clusterFile(Path path) {
        JsonValue root = JsonInput.read(path);
        Json f = new Json(JsonInput.name(path));
        String p = "$";
        if (root instanceof JsonObject top) {
            f.onlyKnown(top, "$", Set.of("nodes"));
            root = f.field(top, "nodes", "$", true);
            p = "$.nodes";
        }
        List<NodeSpec> nodes = root == null ? List.of() : JsonNodes.read(f, root, p);
        JsonInput.throwIfProblems(f);
        return nodes;
    }
}

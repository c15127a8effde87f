package granary.sim.trace;

import java.io.StringReader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import com.google.gson.Gson;
import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;

import granary.api.model.JobSpec;
import granary.api.model.NodeSpec;
import granary.api.model.Problem;
import granary.api.model.UnitSpec;
import granary.codec.CodecException;
import granary.codec.JobCodec;
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
        JsonTree tree = parse(path);
        JsonFields f = new JsonFields(tree);
        String file = path.getFileName() == null ? path.toString() : path.getFileName().toString();
        ReadReport report = new ReadReport(path.toString());
        JsonElement root = tree.root();
        JsonElement jobsElement = root;
        List<NodeSpec> nodes = null;
        if (root.isJsonObject()) {
            f.onlyKnown(root.getAsJsonObject(), "$", TOP);
            jobsElement = root.getAsJsonObject().get("jobs");
            if (root.getAsJsonObject().has("nodes")) {
                nodes = JsonNodes.read(f, root.getAsJsonObject().get("nodes"), "$.nodes");
            }
        }
        JsonArray jobs = f.array(jobsElement, root.isJsonObject() ? "$.jobs" : "$");
        List<SimJob> out = new ArrayList<>();
        Set<String> ids = new HashSet<>();
        String base = root.isJsonObject() ? "$.jobs" : "$";
        for (int i = 0; jobs != null && i < jobs.size() && f.count() < RowLoop.MAX_PROBLEMS; i++) {
            report.row();
            SimJob j = job(f, tree, file, jobs.get(i), base + "[" + i + "]");
            if (j != null && !ids.add(j.id())) {
                f.problem(base + "[" + i + "].id", "job id '" + j.id() + "' appears twice in the file");
            } else if (j != null) {
                out.add(rule == null ? j : new SimJob(j.id(), rule.group(j.id(), c -> null), j.user(),
                        j.productionLevel(), j.gang(), j.units(), j.origin()));
            }
        }
        f.throwIfProblems();
        return new Workload(out, report, nodes);
    }

    static JsonTree parse(Path path) {
        StringBuilder sb = new StringBuilder();
        String name;
        try (TextSource in = TextSource.open(path)) {
            name = in.name();
            for (String line = in.next(); line != null; line = in.next()) {
                sb.append(line).append('\n');
            }
        }
        return JsonTree.parse(name, sb.toString());
    }

    private static SimJob job(JsonFields f, JsonTree tree, String file, JsonElement e, String path) {
        JsonObject o = f.object(e, path);
        if (o == null) {
            return null;
        }
        long submit = f.seconds(o, "submit", path, 0L);
        JsonObject stripped = o.deepCopy();
        JOB_TIME_FIELDS.forEach(stripped::remove);
        List<long[]> times = new ArrayList<>();      // per unit: submit, duration
        List<List<String>> after = new ArrayList<>();
        JsonElement unitsElement = o.get("units");
        if (unitsElement != null && unitsElement.isJsonArray()) {
            JsonArray units = unitsElement.getAsJsonArray();
            JsonArray strippedUnits = stripped.getAsJsonArray("units");
            for (int k = 0; k < units.size(); k++) {
                String up = path + ".units[" + k + "]";
                JsonObject u = units.get(k).isJsonObject() ? units.get(k).getAsJsonObject() : new JsonObject();
                long unitSubmit = f.seconds(u, "submit", up, submit);
                if (unitSubmit < submit) {
                    f.problem(up + ".submit", "is before the job's submit " + submit / 1000.0 + " s");
                }
                times.add(new long[] {unitSubmit, f.seconds(u, "duration", up, null)});
                after.add(f.strings(u, "after", up));
                if (strippedUnits.get(k).isJsonObject()) {
                    UNIT_TIME_FIELDS.forEach(strippedUnits.get(k).getAsJsonObject()::remove);
                }
            }
        }
        JobSpec spec = spec(f, tree, file, stripped, path);
        if (spec == null || times.size() != spec.units().size()) {
            return null;
        }
        return simJob(f, spec, submit, times, after, path);
    }

    /** Reads the job part with the job file codec; its problems are moved to this file's paths and places. */
    private static JobSpec spec(JsonFields f, JsonTree tree, String file, JsonObject job, String path) {
        try {
            List<JobSpec> specs = JobCodec.read(new StringReader(new Gson().toJson(job)), file);
            return specs.get(0);
        } catch (CodecException ex) {
            for (Problem p : ex.problems()) {
                String field = p.field() != null && p.field().startsWith("$") ? path + p.field().substring(1) : path;
                f.add(tree.problem(field, withTimeFields(field, p.message())));
            }
            return null;
        }
    }

    /** The job codec lists the job file's fields as known; this format knows its time fields too. */
    private static String withTimeFields(String field, String message) {
        String marker = "unknown field; known fields: ";
        if (!message.startsWith(marker)) {
            return message;
        }
        java.util.TreeSet<String> known = new java.util.TreeSet<>(List.of(message.substring(marker.length()).split(", ")));
        known.addAll(field.matches(".*\\.units\\[\\d+\\]\\.[^.\\[]+$") ? UNIT_TIME_FIELDS : JOB_TIME_FIELDS);
        return marker + String.join(", ", known);
    }

    private static SimJob simJob(JsonFields f, JobSpec spec, long submit, List<long[]> times, List<List<String>> after,
                                 String path) {
        Map<String, Integer> index = new HashMap<>();
        for (int k = 0; k < spec.units().size(); k++) {
            index.put(spec.units().get(k).name(), k);
        }
        List<SimUnit> units = new ArrayList<>();
        for (int k = 0; k < spec.units().size(); k++) {
            UnitSpec u = spec.units().get(k);
            String up = path + ".units[" + k + "]";
            for (String dep : after.get(k)) {
                if (!index.containsKey(dep) || dep.equals(u.name())) {
                    f.problem(up + ".after", "'" + dep + "' is not another unit of job " + spec.id() + "; units: "
                            + new LinkedHashMap<>(index).keySet());
                }
            }
            if (spec.gang() && (!after.get(k).isEmpty() || times.get(k)[0] != submit)) {
                f.problem(up, "a gang job's units arrive with the job: no 'after', and no 'submit' of their own");
            }
            units.add(new SimUnit(u, times.get(k)[0], times.get(k)[1], after.get(k)));
        }
        if (!f.ok()) {
            return null;
        }
        return new SimJob(spec.id(), spec.group(), spec.user(), spec.productionLevel(), spec.gang(), units, path);
    }

    /**
     * A cluster file: {@code {"nodes": [...]}} or just the array (see {@link JsonNodes} for an entry).
     */
    public static List<NodeSpec> clusterFile(Path path) {
        JsonTree tree = parse(path);
        JsonFields f = new JsonFields(tree);
        JsonElement root = tree.root();
        String p = "$";
        if (root.isJsonObject()) {
            f.onlyKnown(root.getAsJsonObject(), "$", Set.of("nodes"));
            root = root.getAsJsonObject().get("nodes");
            p = "$.nodes";
        }
        List<NodeSpec> nodes = JsonNodes.read(f, root, p);
        f.throwIfProblems();
        return nodes;
    }
}

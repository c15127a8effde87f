package granary.codec;

import java.io.Reader;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import com.google.gson.GsonBuilder;
import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;

import granary.codec.json.Json;
import granary.api.model.InvalidRequestException;
import granary.api.model.JobSpec;
import granary.api.model.Locality;
import granary.api.model.Resources;
import granary.api.model.UnitKind;
import granary.api.model.UnitSpec;

/**
 * The job file format of {@code granary:submit} (and of the HTTP API and workload files). A file
 * holds one job object or an array of them:
 *
 * <pre>
 * {
 *   "id": "wordcount-7",                     required; letters, digits, . _ - : @
 *   "group": "root.batch",                   optional, default "default": quota group / queue
 *   "user": "alice",                         optional
 *   "productionLevel": 0,                    optional baseline level, outranks priority
 *   "gang": false,                           optional: all units form one all-or-nothing gang
 *   "units": [
 *     {
 *       "name": "map",                       required, unique in the job
 *       "slot": {"cpu": 100, "mem": 2048, "gpu": 1},   or the text "cpu=100,mem=2048,gpu=1";
 *                                            cpu in 1/100 cores, mem in MiB, other keys are
 *                                            extended resources
 *       "desired": 1000,                     required: slots wanted
 *       "priority": 5,                       optional, default 0; higher wins
 *       "locality": [                        optional, default anywhere
 *         {"level": "MACHINE", "target": "r1-n3", "count": 1},
 *         {"level": "ROOM", "target": "r1", "count": 10},
 *         {"level": "CLUSTER", "count": 1000}
 *       ],
 *       "maxPerNode": 4,                     optional, 0 = no limit
 *       "blacklist": ["r2-n9"],              optional
 *       "nodeSelector": {"disk": "ssd"},     optional: labels a node must carry
 *       "allOrNothing": false,               optional
 *       "kind": "OFFLINE"                    optional: OFFLINE (revocable) or ONLINE (a service)
 *     }
 *   ]
 * }
 * </pre>
 *
 * Unknown fields are errors, so that a misspelt field is not silently ignored.
 */
public final class JobCodec {

    private static final Set<String> JOB_FIELDS = Set.of("id", "group", "user", "productionLevel", "gang", "units");
    private static final Set<String> UNIT_FIELDS = Set.of("name", "slot", "desired", "priority", "locality",
            "maxPerNode", "blacklist", "nodeSelector", "allOrNothing", "kind");
    private static final Set<String> LOCALITY_FIELDS = Set.of("level", "target", "count");

    private JobCodec() {
    }

    /**
     * Reads one job or an array of jobs.
     *
     * @param source names the input in error messages, e.g. the file name
     * @throws CodecException listing every problem found, each with its JSON path
     */
    public static List<JobSpec> read(Reader in, String source) {
        Json json = new Json(source);
        JsonElement doc = json.parse(in);
        List<JobSpec> jobs = new ArrayList<>();
        if (doc.isJsonArray()) {
            JsonArray a = doc.getAsJsonArray();
            for (int i = 0; i < a.size(); i++) {
                JobSpec j = job(json, a.get(i), "$[" + i + "]");
                if (j != null) {
                    jobs.add(j);
                }
            }
        } else {
            JobSpec j = job(json, doc, "$");
            if (j != null) {
                jobs.add(j);
            }
        }
        Set<String> ids = new HashSet<>();
        for (int i = 0; i < jobs.size(); i++) {
            if (!ids.add(jobs.get(i).id())) {
                json.problem("$[" + i + "].id", "job id '" + jobs.get(i).id() + "' appears twice in the file");
            }
        }
        json.throwIfProblems();
        return jobs;
    }

    /** Reads a job from an already parsed element (e.g. inside another document). */
    static JobSpec job(Json json, JsonElement e, String path) {
        JsonObject o = json.object(e, path);
        if (o == null) {
            return null;
        }
        json.onlyKnown(o, path, JOB_FIELDS);
        String id = json.string(o, "id", path, null);
        String group = json.string(o, "group", path, JobSpec.DEFAULT_GROUP);
        String user = json.string(o, "user", path, "anonymous");
        int level = json.int32(o, "productionLevel", path, 0);
        boolean gang = json.bool(o, "gang", path, false);
        List<UnitSpec> units = new ArrayList<>();
        JsonArray a = json.array(o.get("units"), path + ".units");
        if (a != null) {
            for (int i = 0; i < a.size(); i++) {
                UnitSpec u = unit(json, a.get(i), path + ".units[" + i + "]");
                if (u != null) {
                    units.add(u);
                }
            }
        }
        if (!json.ok()) {
            return null;
        }
        try {
            return new JobSpec(id, group, user, level, gang, units);
        } catch (InvalidRequestException ex) {
            json.problem(path, ex);
            return null;
        }
    }

    private static UnitSpec unit(Json json, JsonElement e, String path) {
        JsonObject o = json.object(e, path);
        if (o == null) {
            return null;
        }
        json.onlyKnown(o, path, UNIT_FIELDS);
        String name = json.string(o, "name", path, null);
        Resources slot = resources(json, o.get("slot"), path + ".slot");
        int desired = json.int32(o, "desired", path, null);
        int priority = json.int32(o, "priority", path, 0);
        int maxPerNode = json.int32(o, "maxPerNode", path, 0);
        boolean aon = json.bool(o, "allOrNothing", path, false);
        String kindText = json.string(o, "kind", path, "OFFLINE");
        UnitKind kind = UnitKind.OFFLINE;
        try {
            kind = UnitKind.valueOf(kindText.toUpperCase());
        } catch (IllegalArgumentException ex) {
            json.problem(path + ".kind", "'" + kindText + "' is not a kind; use OFFLINE or ONLINE");
        }
        List<Locality> locality = localities(json, o.get("locality"), path + ".locality");
        List<String> blacklist = strings(json, o.get("blacklist"), path + ".blacklist");
        Map<String, String> selector = labels(json, o.get("nodeSelector"), path + ".nodeSelector");
        if (!json.ok()) {
            return null;
        }
        try {
            return new UnitSpec(name, slot, desired, priority, locality, maxPerNode, new HashSet<>(blacklist),
                    selector, aon, kind);
        } catch (InvalidRequestException ex) {
            json.problem(path, ex);
            return null;
        }
    }

    /** A resource vector: an object {@code {"cpu":100,"mem":2048,"gpu":1}} or the text {@code cpu=100,mem=2048}. */
    public static Resources resources(Json json, JsonElement e, String path) {
        if (e == null || e.isJsonNull()) {
            json.problem(path, "is missing");
            return null;
        }
        if (e.isJsonPrimitive() && e.getAsJsonPrimitive().isString()) {
            try {
                return Resources.parse(e.getAsString());
            } catch (IllegalArgumentException ex) {
                json.problem(path, ex.getMessage());
                return null;
            }
        }
        JsonObject o = json.object(e, path);
        if (o == null) {
            return null;
        }
        long cpu = 0;
        long mem = 0;
        Map<String, Long> ext = new TreeMap<>();
        for (Map.Entry<String, JsonElement> f : o.entrySet()) {
            long v = json.integer(f.getValue(), path + "." + f.getKey());
            switch (f.getKey()) {
                case "cpu" -> cpu = v;
                case "mem", "memMb" -> mem = v;
                default -> ext.put(f.getKey(), v);
            }
        }
        try {
            Resources r = Resources.of(cpu, mem, ext);
            String negative = r.firstNegative();
            if (negative != null) {
                json.problem(path + "." + negative, "must not be negative, got " + r.get(negative));
            }
            return r;
        } catch (IllegalArgumentException ex) {
            json.problem(path, ex.getMessage());
            return null;
        }
    }

    private static List<Locality> localities(Json json, JsonElement e, String path) {
        List<Locality> out = new ArrayList<>();
        if (e == null || e.isJsonNull()) {
            return out;
        }
        JsonArray a = json.array(e, path);
        if (a == null) {
            return out;
        }
        for (int i = 0; i < a.size(); i++) {
            String p = path + "[" + i + "]";
            JsonObject o = json.object(a.get(i), p);
            if (o == null) {
                continue;
            }
            json.onlyKnown(o, p, LOCALITY_FIELDS);
            String level = json.string(o, "level", p, null);
            String target = json.string(o, "target", p, "");
            int count = json.int32(o, "count", p, null);
            if (level == null) {
                continue;
            }
            try {
                out.add(new Locality(Locality.Level.valueOf(level.toUpperCase()), target.isEmpty() ? null : target, count));
            } catch (IllegalArgumentException ex) {
                json.problem(p, ex instanceof InvalidRequestException ? ex.getMessage()
                        : "level '" + level + "' is not one of MACHINE, ROOM, CLUSTER");
            }
        }
        return out;
    }

    private static List<String> strings(Json json, JsonElement e, String path) {
        List<String> out = new ArrayList<>();
        if (e == null || e.isJsonNull()) {
            return out;
        }
        JsonArray a = json.array(e, path);
        if (a != null) {
            for (int i = 0; i < a.size(); i++) {
                JsonElement x = a.get(i);
                if (x.isJsonPrimitive() && x.getAsJsonPrimitive().isString()) {
                    out.add(x.getAsString());
                } else {
                    json.problem(path + "[" + i + "]", "expected a string, got " + Json.kind(x));
                }
            }
        }
        return out;
    }

    private static Map<String, String> labels(Json json, JsonElement e, String path) {
        Map<String, String> out = new TreeMap<>();
        if (e == null || e.isJsonNull()) {
            return out;
        }
        JsonObject o = json.object(e, path);
        if (o != null) {
            for (Map.Entry<String, JsonElement> f : o.entrySet()) {
                JsonElement v = f.getValue();
                if (v.isJsonPrimitive() && v.getAsJsonPrimitive().isString()) {
                    out.put(f.getKey(), v.getAsString());
                } else {
                    json.problem(path + "." + f.getKey(), "expected a string, got " + Json.kind(v));
                }
            }
        }
        return out;
    }

    /** Writes a job in the same format (omitting fields at their defaults). */
    public static String write(JobSpec job) {
        return new GsonBuilder().setPrettyPrinting().disableHtmlEscaping().create().toJson(toJson(job));
    }

    static JsonObject toJson(JobSpec job) {
        JsonObject o = new JsonObject();
        o.addProperty("id", job.id());
        o.addProperty("group", job.group());
        if (!"anonymous".equals(job.user())) {
            o.addProperty("user", job.user());
        }
        if (job.productionLevel() != 0) {
            o.addProperty("productionLevel", job.productionLevel());
        }
        if (job.gang()) {
            o.addProperty("gang", true);
        }
        JsonArray units = new JsonArray();
        for (UnitSpec u : job.units()) {
            units.add(unitJson(u));
        }
        o.add("units", units);
        return o;
    }

    private static JsonObject unitJson(UnitSpec u) {
        JsonObject o = new JsonObject();
        o.addProperty("name", u.name());
        o.add("slot", resourcesJson(u.slot()));
        o.addProperty("desired", u.desired());
        if (u.priority() != 0) {
            o.addProperty("priority", u.priority());
        }
        if (!u.locality().isEmpty()) {
            JsonArray a = new JsonArray();
            for (Locality l : u.locality()) {
                JsonObject x = new JsonObject();
                x.addProperty("level", l.level().name());
                if (l.target() != null) {
                    x.addProperty("target", l.target());
                }
                x.addProperty("count", l.count());
                a.add(x);
            }
            o.add("locality", a);
        }
        if (u.maxPerNode() != 0) {
            o.addProperty("maxPerNode", u.maxPerNode());
        }
        if (!u.blacklist().isEmpty()) {
            JsonArray a = new JsonArray();
            u.blacklist().stream().sorted().forEach(a::add);
            o.add("blacklist", a);
        }
        if (!u.nodeSelector().isEmpty()) {
            JsonObject s = new JsonObject();
            new TreeMap<>(u.nodeSelector()).forEach(s::addProperty);
            o.add("nodeSelector", s);
        }
        if (u.allOrNothing()) {
            o.addProperty("allOrNothing", true);
        }
        if (u.kind() != UnitKind.OFFLINE) {
            o.addProperty("kind", u.kind().name());
        }
        return o;
    }

    public static JsonObject resourcesJson(Resources r) {
        JsonObject o = new JsonObject();
        o.addProperty("cpu", r.cpu());
        o.addProperty("mem", r.memMb());
        Map<String, Long> ext = new LinkedHashMap<>(r.extended());
        ext.forEach(o::addProperty);
        return o;
    }
}

package granary.codec;

import java.io.Reader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import granary.api.model.InvalidRequestException;
import granary.api.model.JobSpec;
import granary.api.model.Locality;
import granary.api.model.Resources;
import granary.api.model.Text;
import granary.api.model.UnitKind;
import granary.api.model.UnitSpec;
import granary.codec.json.Json;
import granary.codec.json.JsonArray;
import granary.codec.json.JsonNull;
import granary.codec.json.JsonObject;
import granary.codec.json.JsonPath;
import granary.codec.json.JsonPosition;
import granary.codec.json.JsonReader;
import granary.codec.json.JsonString;
import granary.codec.json.JsonValue;
import granary.codec.json.JsonWriter;

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
 *       "kind": "OFFLINE",                   optional: OFFLINE (revocable) or ONLINE (a service)
 *       "expectedSeconds": 600               optional: declared run time of one slot's work, 0 = unknown
 *     }
 *   ]
 * }
 * </pre>
 *
 * Unknown fields are errors, so that a misspelt field is not silently ignored. The document is
 * read by {@link JsonReader} (strict JSON) and every problem reads
 * {@code <file>:<line>:<column>: <json path>: <what is wrong>}; see docs/formats.md.
 */
public final class JobCodec {

    /** The fields of a job object. */
    public static final Set<String> JOB_FIELDS = Set.of("id", "group", "user", "productionLevel", "gang", "units");
    /** The fields of a unit object. */
    public static final Set<String> UNIT_FIELDS = Set.of("name", "slot", "desired", "priority", "locality",
            "maxPerNode", "blacklist", "nodeSelector", "allOrNothing", "kind", "expectedSeconds");
    private static final Set<String> LOCALITY_FIELDS = Set.of("level", "target", "count");

    private JobCodec() {
    }

    /**
     * Reads a job file: one job or an array of jobs. Messages name the file as given.
     *
     * @throws CodecException listing every problem found, each with line, column and JSON path
     */
    public static List<JobSpec> read(Path file) {
        return jobs(new Json(file.toString()), JsonReader.read(file));
    }

    /**
     * Reads one job or an array of jobs from text already decoded (a request body, a test).
     *
     * @param source names the input in error messages, e.g. the file name
     * @throws CodecException listing every problem found, each with line, column and JSON path
     */
    public static List<JobSpec> read(Reader in, String source) {
        return jobs(new Json(source), JsonReader.read(in, source));
    }

    private static List<JobSpec> jobs(Json json, JsonValue doc) {
        List<JobSpec> jobs = new ArrayList<>();
        List<JsonValue> values = doc instanceof JsonArray a ? a.items() : List.of(doc);
        Set<String> ids = new HashSet<>();
        for (int i = 0; i < values.size(); i++) {
            String path = doc instanceof JsonArray ? JsonPath.item("$", i) : "$";
            JobSpec j = job(json, values.get(i), path, Set.of(), Set.of());
            if (j == null) {
                continue;
            }
            jobs.add(j);
            if (!ids.add(j.id())) {
                json.problem(((JsonObject) values.get(i)).get("id"), path + ".id",
                        "job id '" + Text.escape(j.id()) + "' appears twice in the file");
            }
        }
        json.throwIfProblems();
        return jobs;
    }

    /**
     * Reads a job from a parsed value (e.g. inside another document), recording problems in
     * {@code json}; null if it has problems.
     *
     * @param moreJobFields  fields the enclosing format adds to a job (read by it, accepted here)
     * @param moreUnitFields fields the enclosing format adds to a unit
     */
    public static JobSpec job(Json json, JsonValue e, String path, Set<String> moreJobFields, Set<String> moreUnitFields) {
        JsonObject o = json.object(e, path);
        if (o == null) {
            return null;
        }
        int before = json.count();
        json.onlyKnown(o, path, union(JOB_FIELDS, moreJobFields));
        String id = json.string(o, "id", path, null);
        String group = json.string(o, "group", path, JobSpec.DEFAULT_GROUP);
        String user = json.string(o, "user", path, "anonymous");
        int level = json.int32(o, "productionLevel", path, 0);
        boolean gang = json.bool(o, "gang", path, false);
        List<UnitSpec> units = new ArrayList<>();
        JsonArray a = null;
        if (o.has("units")) {
            a = json.array(o.get("units"), path + ".units");
        } else {
            json.problem(o, path + ".units", "expected an array, got nothing");
        }
        for (int i = 0; a != null && i < a.size(); i++) {
            UnitSpec u = unit(json, a.get(i), JsonPath.item(path + ".units", i), moreUnitFields);
            if (u != null) {
                units.add(u);
            }
        }
        if (json.count() > before) {
            return null;
        }
        try {
            return new JobSpec(id, group, user, level, gang, units);
        } catch (InvalidRequestException ex) {
            json.problem(o, path, ex);
            return null;
        }
    }

    private static Set<String> union(Set<String> a, Set<String> b) {
        if (b.isEmpty()) {
            return a;
        }
        Set<String> u = new HashSet<>(a);
        u.addAll(b);
        return u;
    }

    private static UnitSpec unit(Json json, JsonValue e, String path, Set<String> moreUnitFields) {
        JsonObject o = json.object(e, path);
        if (o == null) {
            return null;
        }
        int before = json.count();
        json.onlyKnown(o, path, union(UNIT_FIELDS, moreUnitFields));
        String name = json.string(o, "name", path, null);
        Resources slot = resources(json, json.field(o, "slot", path, true), path + ".slot");
        int desired = json.int32(o, "desired", path, null);
        int priority = json.int32(o, "priority", path, 0);
        int maxPerNode = json.int32(o, "maxPerNode", path, 0);
        boolean aon = json.bool(o, "allOrNothing", path, false);
        int expected = json.int32(o, "expectedSeconds", path, 0);
        String kindText = json.string(o, "kind", path, "OFFLINE");
        UnitKind kind = UnitKind.OFFLINE;
        try {
            kind = UnitKind.valueOf(kindText.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException ex) {
            json.problem(o.get("kind"), path + ".kind", "'" + Text.escape(kindText) + "' is not a kind; use OFFLINE or ONLINE");
        }
        List<Locality> locality = localities(json, o.get("locality"), path + ".locality");
        List<String> blacklist = json.strings(o, "blacklist", path);
        Map<String, String> selector = json.labels(o, "nodeSelector", path);
        if (json.count() > before) {
            return null;
        }
        try {
            return new UnitSpec(name, slot, desired, priority, locality, maxPerNode, new HashSet<>(blacklist),
                    selector, aon, kind, expected);
        } catch (InvalidRequestException ex) {
            json.problem(o, path, ex);
            return null;
        }
    }

    /**
     * A resource vector: an object {@code {"cpu":100,"mem":2048,"gpu":1}} or the text
     * {@code cpu=100,mem=2048}; null (with a problem) when {@code e} is null or wrong.
     */
    public static Resources resources(Json json, JsonValue e, String path) {
        if (e == null) {
            return null;
        }
        if (e instanceof JsonString s) {
            try {
                return Resources.parse(s.value());
            } catch (IllegalArgumentException ex) {
                json.problem(e, path, ex.getMessage());
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
        for (JsonObject.Member f : o.members()) {
            long v = json.integer(f.value(), JsonPath.member(path, f.key()));
            switch (f.key()) {
                case "cpu" -> cpu = v;
                case "mem", "memMb" -> mem = v;
                default -> ext.put(f.key(), v);
            }
        }
        try {
            Resources r = Resources.of(cpu, mem, ext);
            String negative = r.firstNegative();
            if (negative != null) {
                JsonValue at = o.has(negative) ? o.get(negative) : "mem".equals(negative) ? o.get("memMb") : o;
                json.problem(at, JsonPath.member(path, negative), "must not be negative, got " + r.get(negative));
            }
            return r;
        } catch (IllegalArgumentException ex) {
            json.problem(e, path, ex.getMessage());
            return null;
        }
    }

    private static List<Locality> localities(Json json, JsonValue e, String path) {
        List<Locality> out = new ArrayList<>();
        if (e == null || e instanceof JsonNull) {
            return out;
        }
        JsonArray a = json.array(e, path);
        for (int i = 0; a != null && i < a.size(); i++) {
            String p = JsonPath.item(path, i);
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
                out.add(new Locality(Locality.Level.valueOf(level.toUpperCase(Locale.ROOT)), target.isEmpty() ? null : target, count));
            } catch (IllegalArgumentException ex) {
                json.problem(o, p, ex instanceof InvalidRequestException ? ex.getMessage()
                        : "level '" + Text.escape(level) + "' is not one of MACHINE, ROOM, CLUSTER");
            }
        }
        return out;
    }

    /** Writes a job in the same format (omitting fields at their defaults). */
    public static String write(JobSpec job) {
        return JsonWriter.write(toJson(job));
    }

    static JsonObject toJson(JobSpec job) {
        JsonObject.Builder o = JsonObject.builder();
        o.put("id", job.id());
        o.put("group", job.group());
        if (!"anonymous".equals(job.user())) {
            o.put("user", job.user());
        }
        if (job.productionLevel() != 0) {
            o.put("productionLevel", job.productionLevel());
        }
        if (job.gang()) {
            o.put("gang", true);
        }
        List<JsonValue> units = new ArrayList<>();
        for (UnitSpec u : job.units()) {
            units.add(unitJson(u));
        }
        o.put("units", new JsonArray(units, JsonPosition.NONE));
        return o.build();
    }

    private static JsonObject unitJson(UnitSpec u) {
        JsonObject.Builder o = JsonObject.builder();
        o.put("name", u.name());
        o.put("slot", resourcesJson(u.slot()));
        o.put("desired", u.desired());
        if (u.priority() != 0) {
            o.put("priority", u.priority());
        }
        if (!u.locality().isEmpty()) {
            List<JsonValue> a = new ArrayList<>();
            for (Locality l : u.locality()) {
                JsonObject.Builder x = JsonObject.builder();
                x.put("level", l.level().name());
                if (l.target() != null) {
                    x.put("target", l.target());
                }
                x.put("count", l.count());
                a.add(x.build());
            }
            o.put("locality", new JsonArray(a, JsonPosition.NONE));
        }
        if (u.maxPerNode() != 0) {
            o.put("maxPerNode", u.maxPerNode());
        }
        if (!u.blacklist().isEmpty()) {
            o.put("blacklist", new JsonArray(u.blacklist().stream().sorted().map(b -> (JsonValue) JsonValue.of(b)).toList(),
                    JsonPosition.NONE));
        }
        if (!u.nodeSelector().isEmpty()) {
            JsonObject.Builder s = JsonObject.builder();
            new TreeMap<>(u.nodeSelector()).forEach(s::put);
            o.put("nodeSelector", s.build());
        }
        if (u.allOrNothing()) {
            o.put("allOrNothing", true);
        }
        if (u.expectedSeconds() > 0) {
            o.put("expectedSeconds", u.expectedSeconds());
        }
        if (u.kind() != UnitKind.OFFLINE) {
            o.put("kind", u.kind().name());
        }
        return o.build();
    }

    /** A resource vector as an object: cpu, mem, then the extended resources. */
    public static JsonObject resourcesJson(Resources r) {
        JsonObject.Builder o = JsonObject.builder();
        o.put("cpu", r.cpu());
        o.put("mem", r.memMb());
        new LinkedHashMap<>(r.extended()).forEach((k, v) -> o.put(k, v));
        return o.build();
    }
}

package granary.policy.queues.api;

import java.io.Reader;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;

import granary.codec.JobCodec;
import granary.codec.CodecException;
import granary.codec.json.Json;
import granary.api.model.InvalidRequestException;
import granary.policy.queues.api.Capacity;
import granary.policy.queues.api.QueueSpec;
import granary.policy.queues.api.QueueTree;

/**
 * The queue tree file (spec §10). Queues are objects keyed by name under {@code queues}; a queue
 * with {@code queues} of its own is a parent, one without is a leaf. Every field but the names is
 * optional.
 *
 * <pre>
 * {
 *   "fallback": "root.default",          leaf for jobs naming an unknown queue; absent = refuse them
 *   "drf": false,                        order siblings by dominant resource share
 *   "queues": {
 *     "a": {
 *       "capacity": "60%",               guaranteed: "40%", 0.4, or resources {"cpu": 4000, "mem": 16384}
 *       "maxCapacity": "100%",           elastic limit, same forms, of the parent's maximum (default 100%)
 *       "maxRunningJobs": 50,            0 = no limit
 *       "maxRunningJobsPerUser": 10,     0 = no limit
 *       "queues": { "p0": {"capacity": "70%"}, "p1": {"capacity": "30%"} }
 *     },
 *     "b": { "capacity": "30%", "queues": { "p0": {"capacity": "100%"} } },
 *     "default": { "capacity": "10%" }
 *   }
 * }
 * </pre>
 *
 * This tree has the leaves {@code root.a.p0}, {@code root.a.p1}, {@code root.b.p0} and
 * {@code root.default}: {@code p0} alone is ambiguous, {@code p1} means {@code root.a.p1}.
 */
public final class QueueTreeCodec {

    private static final Set<String> TOP_FIELDS = Set.of("fallback", "drf", "queues");
    private static final Set<String> QUEUE_FIELDS = Set.of("capacity", "maxCapacity", "maxRunningJobs",
            "maxRunningJobsPerUser", "queues");

    private QueueTreeCodec() {
    }

    /**
     * Reads and validates a tree.
     *
     * @throws CodecException listing every problem with the file and the JSON path or queue path
     */
    public static QueueTree read(Reader in, String source) {
        Json json = new Json(source);
        JsonObject doc = json.object(json.parse(in), "$");
        json.throwIfProblems();
        json.onlyKnown(doc, "$", TOP_FIELDS);
        String fallback = json.string(doc, "fallback", "$", "");
        boolean drf = json.bool(doc, "drf", "$", false);
        List<QueueSpec> queues = children(json, doc.get("queues"), "$.queues");
        json.throwIfProblems();
        try {
            return QueueTree.of(queues, fallback.isEmpty() ? null : fallback, drf);
        } catch (InvalidRequestException e) {
            json.problemsOf(e);
            json.throwIfProblems();
            throw e;
        }
    }

    private static List<QueueSpec> children(Json json, JsonElement e, String path) {
        List<QueueSpec> out = new ArrayList<>();
        if (e == null || e.isJsonNull()) {
            json.problem(path, "is missing: a tree needs queues under root");
            return out;
        }
        JsonObject o = json.object(e, path);
        if (o == null) {
            return out;
        }
        for (Map.Entry<String, JsonElement> q : o.entrySet()) {
            QueueSpec spec = queue(json, q.getKey(), q.getValue(), path + "." + q.getKey());
            if (spec != null) {
                out.add(spec);
            }
        }
        return out;
    }

    private static QueueSpec queue(Json json, String name, JsonElement e, String path) {
        JsonObject o = json.object(e, path);
        if (o == null) {
            return null;
        }
        json.onlyKnown(o, path, QUEUE_FIELDS);
        Capacity capacity = capacity(json, o.get("capacity"), path + ".capacity", Capacity.fraction(0));
        Capacity max = capacity(json, o.get("maxCapacity"), path + ".maxCapacity", Capacity.ALL);
        int maxJobs = json.int32(o, "maxRunningJobs", path, 0);
        int maxPerUser = json.int32(o, "maxRunningJobsPerUser", path, 0);
        List<QueueSpec> children = o.has("queues") ? children(json, o.get("queues"), path + ".queues") : List.of();
        if (o.has("queues") && children.isEmpty() && json.ok()) {
            json.problem(path + ".queues", "is empty: leave it out for a leaf queue");
        }
        return new QueueSpec(name, capacity, max, maxJobs, maxPerUser, children);
    }

    private static Capacity capacity(Json json, JsonElement e, String path, Capacity dflt) {
        if (e == null || e.isJsonNull()) {
            return dflt;
        }
        try {
            if (e.isJsonPrimitive() && e.getAsJsonPrimitive().isNumber()) {
                return Capacity.fraction(e.getAsDouble());
            }
            if (e.isJsonPrimitive() && e.getAsJsonPrimitive().isString()) {
                return Capacity.parse(e.getAsString());
            }
            if (e.isJsonObject()) {
                var r = JobCodec.resources(json, e, path);
                return r == null || !r.isNonNegative() ? dflt : Capacity.of(r);
            }
            json.problem(path, "expected \"40%\", 0.4 or resources, got " + Json.kind(e));
        } catch (InvalidRequestException ex) {
            json.problem(path, ex.problems().get(0).message());
        }
        return dflt;
    }
}

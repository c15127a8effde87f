package granary.policy.queues.api;

import java.io.Reader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import granary.api.model.InvalidRequestException;
import granary.codec.CodecException;
import granary.codec.JobCodec;
import granary.codec.json.Json;
import granary.codec.json.JsonNull;
import granary.codec.json.JsonNumber;
import granary.codec.json.JsonObject;
import granary.codec.json.JsonPath;
import granary.codec.json.JsonReader;
import granary.codec.json.JsonString;
import granary.codec.json.JsonValue;

/**
 * The queue tree file (docs/multi-tenancy.md, "Queues by full path"). Queues are objects keyed by name under {@code queues}; a queue
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
 * {@code root.default}: {@code p0} alone is ambiguous, {@code p1} means {@code root.a.p1}. The
 * document is strict JSON ({@link JsonReader}); problems read
 * {@code <file>:<line>:<column>: <json path>: <what is wrong>}, or
 * {@code <file>: queue tree: <field>: <what is wrong>} for rules over the whole tree.
 */
public final class QueueTreeCodec {

    private static final Set<String> TOP_FIELDS = Set.of("fallback", "drf", "queues");
    private static final Set<String> QUEUE_FIELDS = Set.of("capacity", "maxCapacity", "maxRunningJobs",
            "maxRunningJobsPerUser", "queues");

    private QueueTreeCodec() {
    }

    /**
     * Reads and validates a tree file; problems name the file as given.
     *
     * @throws CodecException listing every problem with the file, line and column and the JSON
     *         path, or the queue path
     */
    public static QueueTree read(Path file) {
        return tree(new Json(file.toString()), JsonReader.read(file));
    }

    /**
     * Reads and validates a tree from text already decoded.
     *
     * @param source names the input in messages, e.g. the file
     * @throws CodecException as {@link #read(Path)}
     */
    public static QueueTree read(Reader in, String source) {
        return tree(new Json(source), JsonReader.read(in, source));
    }

    private static QueueTree tree(Json json, JsonValue root) {
        JsonObject doc = json.object(root, "$");
        json.throwIfProblems();
        json.onlyKnown(doc, "$", TOP_FIELDS);
        String fallback = json.string(doc, "fallback", "$", "");
        boolean drf = json.bool(doc, "drf", "$", false);
        List<QueueSpec> queues = children(json, doc, "$");
        json.throwIfProblems();
        try {
            return QueueTree.of(queues, fallback.isEmpty() ? null : fallback, drf);
        } catch (InvalidRequestException e) {
            json.problemsOf(e);
            json.throwIfProblems();
            throw e;
        }
    }

    /** The queues under {@code parent}'s {@code queues} member. */
    private static List<QueueSpec> children(Json json, JsonObject parent, String parentPath) {
        List<QueueSpec> out = new ArrayList<>();
        String path = parentPath + ".queues";
        JsonValue e = parent.get("queues");
        if (e == null || e instanceof JsonNull) {
            json.problem(parent, path, "is missing: a tree needs queues under root");
            return out;
        }
        JsonObject o = json.object(e, path);
        if (o == null) {
            return out;
        }
        for (JsonObject.Member q : o.members()) {
            QueueSpec spec = queue(json, q.key(), q.value(), JsonPath.member(path, q.key()));
            if (spec != null) {
                out.add(spec);
            }
        }
        return out;
    }

    private static QueueSpec queue(Json json, String name, JsonValue e, String path) {
        JsonObject o = json.object(e, path);
        if (o == null) {
            return null;
        }
        json.onlyKnown(o, path, QUEUE_FIELDS);
        Capacity capacity = capacity(json, o.get("capacity"), path + ".capacity", Capacity.fraction(0));
        Capacity max = capacity(json, o.get("maxCapacity"), path + ".maxCapacity", Capacity.ALL);
        int maxJobs = json.int32(o, "maxRunningJobs", path, 0);
        int maxPerUser = json.int32(o, "maxRunningJobsPerUser", path, 0);
        List<QueueSpec> children = o.has("queues") ? children(json, o, path) : List.of();
        if (o.has("queues") && children.isEmpty() && json.ok()) {
            json.problem(o.get("queues"), path + ".queues", "is empty: leave it out for a leaf queue");
        }
        return new QueueSpec(name, capacity, max, maxJobs, maxPerUser, children);
    }

    private static Capacity capacity(Json json, JsonValue e, String path, Capacity dflt) {
        if (e == null || e instanceof JsonNull) {
            return dflt;
        }
        try {
            if (e instanceof JsonNumber n) {
                return Capacity.fraction(n.decimal().doubleValue());
            }
            if (e instanceof JsonString s) {
                return Capacity.parse(s.value());
            }
            if (e instanceof JsonObject) {
                var r = JobCodec.resources(json, e, path);
                return r == null || !r.isNonNegative() ? dflt : Capacity.of(r);
            }
            json.problem(e, path, "expected \"40%\", 0.4 or resources, got " + Json.kind(e));
        } catch (InvalidRequestException ex) {
            json.problem(e, path, ex.problems().get(0).message());
        }
        return dflt;
    }
}

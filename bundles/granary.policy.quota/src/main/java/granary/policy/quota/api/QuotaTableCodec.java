package granary.policy.quota.api;

import java.io.Reader;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

import granary.api.model.InvalidRequestException;
import granary.codec.CodecException;
import granary.codec.JobCodec;
import granary.codec.json.Json;
import granary.codec.json.JsonNumber;
import granary.codec.json.JsonObject;
import granary.codec.json.JsonPath;
import granary.codec.json.JsonReader;
import granary.codec.json.JsonValue;
import granary.codec.json.JsonWriter;

/**
 * The quota table file (docs/multi-tenancy.md, "The quota table"; docs/formats.md, "Quota table"): time-slice key → group name →
 * {@code GroupId}, {@code MaxQuota}, {@code MinQuota}.
 *
 * <pre>
 * { "default": { "group1": {"GroupId":1,"MaxQuota":5000,"MinQuota":3000},
 *                "group2": {"GroupId":2,"MaxQuota":5000,"MinQuota":2000} },
 *   "0-9":     { "group1": {"GroupId":1,"MaxQuota":15000,"MinQuota":10000},
 *                "group3": {"GroupId":3,"MaxQuota":3000,"MinQuota":3000} } }
 * </pre>
 *
 * Quotas count workers (slots) as above, or — for a general cluster — are resource vectors:
 * {@code "MaxQuota": {"cpu": 40000, "mem": 163840}} (or the text {@code "cpu=40000,mem=163840"}).
 * One table uses one form. Unknown fields and keys given twice are errors. The document is strict
 * JSON ({@link JsonReader}); problems read {@code <file>:<line>:<column>: <json path>: <what is wrong>},
 * or {@code <file>: slice <s>: <field>: <what is wrong>} for rules over a whole slice.
 */
public final class QuotaTableCodec {

    private static final Set<String> GROUP_FIELDS = Set.of("GroupId", "MaxQuota", "MinQuota");

    private QuotaTableCodec() {
    }

    /**
     * Reads and validates a table file; problems name the file as given.
     *
     * @param workerSpans optional (null)
     * @throws CodecException listing every problem: the file, line and column and JSON path, or the
     *         slice and group, and the numbers
     */
    public static QuotaTable read(Path file, WorkerSpans workerSpans) {
        return table(new Json(file.toString()), JsonReader.read(file), workerSpans);
    }

    /**
     * Reads and validates a table from text already decoded.
     *
     * @param source names the input in messages, e.g. the file
     * @param workerSpans optional (null)
     * @throws CodecException as {@link #read(Path, WorkerSpans)}
     */
    public static QuotaTable read(Reader in, String source, WorkerSpans workerSpans) {
        return table(new Json(source), JsonReader.read(in, source), workerSpans);
    }

    private static QuotaTable table(Json json, JsonValue root, WorkerSpans workerSpans) {
        JsonObject doc = json.object(root, "$");
        json.throwIfProblems();
        Map<String, Map<String, GroupQuota>> raw = new LinkedHashMap<>();
        for (JsonObject.Member slice : doc.members()) {
            String path = JsonPath.member("$", slice.key());
            JsonObject groups = json.object(slice.value(), path);
            if (groups == null) {
                continue;
            }
            Map<String, GroupQuota> m = new LinkedHashMap<>();
            for (JsonObject.Member g : groups.members()) {
                GroupQuota q = group(json, g.key(), g.value(), JsonPath.member(path, g.key()));
                if (q != null) {
                    m.put(g.key(), q);
                }
            }
            raw.put(slice.key(), m);
        }
        json.throwIfProblems();
        try {
            return QuotaTable.of(raw, workerSpans);
        } catch (InvalidRequestException e) {
            json.problemsOf(e);
            json.throwIfProblems();
            throw e;
        }
    }

    /**
     * Reads one group's entry ({@code GroupId}, {@code MaxQuota}, {@code MinQuota}) at {@code path},
     * adding what is wrong to {@code json}; the format's rules only, not the table's. For tools that
     * read a document of their own with the codec's {@link Json} (the planner opens tables that break
     * the table's rules, to fix them).
     *
     * @return the entry, or null if {@code e} is not an object
     */
    public static GroupQuota group(Json json, String name, JsonValue e, String path) {
        JsonObject o = json.object(e, path);
        if (o == null) {
            return null;
        }
        json.onlyKnown(o, path, GROUP_FIELDS);
        int id = json.int32(o, "GroupId", path, null);
        Quota max = quota(json, o, "MaxQuota", path);
        Quota min = quota(json, o, "MinQuota", path);
        return new GroupQuota(name, id, min, max);
    }

    /** A count of workers (a number) or a resource vector (an object or its text). */
    private static Quota quota(Json json, JsonObject group, String field, String path) {
        JsonValue e = json.field(group, field, path, true);
        if (e == null) {
            return null;
        }
        if (e instanceof JsonNumber) {
            return Quota.workers(json.integer(e, path + "." + field));
        }
        return Quota.of(JobCodec.resources(json, e, path + "." + field));
    }

    /** Writes a table in the same format. */
    public static String write(QuotaTable table) {
        Map<String, Map<String, GroupQuota>> entries = new LinkedHashMap<>();
        for (TimeSlice s : table.slices()) {
            entries.put(s.toString(), table.groups(s));
        }
        return write(entries);
    }

    /**
     * Writes entries (slice key → group → quota, in that order) in the same format, whether or not
     * they make a valid table: a tool saves unfinished work with it.
     */
    public static String write(Map<String, Map<String, GroupQuota>> entries) {
        JsonObject.Builder doc = JsonObject.builder();
        entries.forEach((slice, groups) -> {
            JsonObject.Builder g = JsonObject.builder();
            for (GroupQuota q : groups.values()) {
                g.put(q.group(), JsonObject.builder()
                        .put("GroupId", q.groupId())
                        .put("MaxQuota", quotaJson(q.max()))
                        .put("MinQuota", quotaJson(q.min()))
                        .build());
            }
            doc.put(slice, g.build());
        });
        return JsonWriter.write(doc.build());
    }

    private static JsonValue quotaJson(Quota q) {
        return q.isWorkers() ? JsonValue.of(q.workers()) : JobCodec.resourcesJson(q.resources());
    }

    /** Parses a WorkerSpans string ({@code default:5000,0-9:15000}); null or blank gives null. */
    public static WorkerSpans workerSpans(String text) {
        return text == null || text.isBlank() ? null : WorkerSpans.parse(text);
    }
}

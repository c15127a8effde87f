package granary.policy.quota.api;

import java.io.Reader;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

import com.google.gson.GsonBuilder;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;

import granary.codec.JobCodec;
import granary.codec.CodecException;
import granary.codec.json.Json;
import granary.api.model.InvalidRequestException;
import granary.policy.quota.api.GroupQuota;
import granary.policy.quota.api.Quota;
import granary.policy.quota.api.QuotaTable;
import granary.policy.quota.api.TimeSlice;
import granary.policy.quota.api.WorkerSpans;

/**
 * The quota table file, in exactly the article's format (spec §5): time-slice key → group name →
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
 * One table uses one form. Unknown fields and keys given twice are errors.
 */
public final class QuotaTableCodec {

    private static final Set<String> GROUP_FIELDS = Set.of("GroupId", "MaxQuota", "MinQuota");

    private QuotaTableCodec() {
    }

    /**
     * Reads and validates a table.
     *
     * @param workerSpans optional (null)
     * @throws CodecException listing every problem: the file, the JSON path or slice and group, the numbers
     */
    public static QuotaTable read(Reader in, String source, WorkerSpans workerSpans) {
        Json json = new Json(source);
        JsonObject doc = json.object(json.parse(in), "$");
        json.throwIfProblems();
        Map<String, Map<String, GroupQuota>> raw = new LinkedHashMap<>();
        for (Map.Entry<String, JsonElement> slice : doc.entrySet()) {
            String path = "$." + slice.getKey();
            JsonObject groups = json.object(slice.getValue(), path);
            if (groups == null) {
                continue;
            }
            Map<String, GroupQuota> m = new LinkedHashMap<>();
            for (Map.Entry<String, JsonElement> g : groups.entrySet()) {
                GroupQuota q = group(json, g.getKey(), g.getValue(), path + "." + g.getKey());
                if (q != null) {
                    m.put(g.getKey(), q);
                }
            }
            raw.put(slice.getKey(), m);
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

    private static GroupQuota group(Json json, String name, JsonElement e, String path) {
        JsonObject o = json.object(e, path);
        if (o == null) {
            return null;
        }
        json.onlyKnown(o, path, GROUP_FIELDS);
        int id = json.int32(o, "GroupId", path, null);
        Quota max = quota(json, o.get("MaxQuota"), path + ".MaxQuota");
        Quota min = quota(json, o.get("MinQuota"), path + ".MinQuota");
        return new GroupQuota(name, id, min, max);
    }

    private static Quota quota(Json json, JsonElement e, String path) {
        if (e == null || e.isJsonNull()) {
            json.problem(path, "is missing");
            return null;
        }
        if (e.isJsonPrimitive() && e.getAsJsonPrimitive().isNumber()) {
            return Quota.workers(json.integer(e, path));
        }
        return Quota.of(JobCodec.resources(json, e, path));
    }

    /** Writes a table in the same format. */
    public static String write(QuotaTable table) {
        JsonObject doc = new JsonObject();
        for (TimeSlice s : table.slices()) {
            JsonObject groups = new JsonObject();
            for (GroupQuota q : table.groups(s).values()) {
                JsonObject g = new JsonObject();
                g.addProperty("GroupId", q.groupId());
                g.add("MaxQuota", quotaJson(q.max()));
                g.add("MinQuota", quotaJson(q.min()));
                groups.add(q.group(), g);
            }
            doc.add(s.toString(), groups);
        }
        return new GsonBuilder().setPrettyPrinting().disableHtmlEscaping().create().toJson(doc);
    }

    private static JsonElement quotaJson(Quota q) {
        return q.isWorkers() ? new com.google.gson.JsonPrimitive(q.workers()) : JobCodec.resourcesJson(q.resources());
    }

    /** Parses a WorkerSpans string ({@code default:5000,0-9:15000}); null or blank gives null. */
    public static WorkerSpans workerSpans(String text) {
        return text == null || text.isBlank() ? null : WorkerSpans.parse(text);
    }
}

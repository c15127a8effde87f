package granary.planner.table.model;

import java.util.ArrayList;
import java.util.List;
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
import granary.policy.quota.api.GroupQuota;
import granary.policy.quota.api.Quota;
import granary.policy.quota.api.QuotaTable;
import granary.policy.quota.api.QuotaTableCodec;
import granary.policy.quota.api.TimeSlice;
import granary.policy.quota.api.WorkerSpans;

/**
 * A draft to and from the quota table file (docs/multi-tenancy.md, "The quota table").
 *
 * <p>{@link QuotaTableCodec#read} only returns valid tables, but the editor must also open a table
 * whose WorkerSpans or quotas are wrong, to fix them. So this reads the document's structure with
 * the codec's own {@link JsonReader} and {@link Json} (same strict JSON, same
 * {@code file:line:column: path: what} messages) and leaves the table's rules to validation. What
 * cannot be a draft at all — not JSON, a slice key that is no hour range, a missing or unknown
 * field, a number that is not whole — is refused with every problem listed.
 *
 * <p>Writing goes through {@link QuotaTableCodec#write} whenever the table itself is valid (the
 * WorkerSpans are not part of the file). A table with problems of its own is still written, in the
 * same layout, so that unfinished work can be saved.
 */
public final class DraftJson {

    private static final Set<String> GROUP_FIELDS = Set.of("GroupId", "MaxQuota", "MinQuota");

    private DraftJson() {
    }

    /**
     * Reads a draft from the file's text.
     *
     * @param source names the input in messages (the file)
     * @param workerSpans the WorkerSpans to draw against (null: none)
     * @throws CodecException listing every problem with its line, column and JSON path
     */
    public static Draft read(String text, String source, WorkerSpans workerSpans) {
        Json json = new Json(source);
        JsonObject doc = json.object(JsonReader.read(text, source), JsonPath.ROOT);
        json.throwIfProblems();
        List<SliceRow> slices = new ArrayList<>();
        List<TimeSlice> seen = new ArrayList<>();
        for (JsonObject.Member m : doc.members()) {
            String path = JsonPath.member(JsonPath.ROOT, m.key());
            TimeSlice slice = slice(json, m, path, seen);
            JsonObject groups = json.object(m.value(), path);
            if (slice == null || groups == null) {
                continue;
            }
            List<GroupQuota> cells = new ArrayList<>();
            for (JsonObject.Member g : groups.members()) {
                GroupQuota q = cell(json, g.key(), g.value(), JsonPath.member(path, g.key()));
                if (q != null) {
                    cells.add(q);
                }
            }
            slices.add(new SliceRow(slice, cells));
        }
        json.throwIfProblems();
        return Draft.of(slices, workerSpans);
    }

    private static TimeSlice slice(Json json, JsonObject.Member m, String path, List<TimeSlice> seen) {
        try {
            TimeSlice s = TimeSlice.parse(m.key());
            if (seen.contains(s)) {
                // "0-9" and "00-9" are different keys to JSON but the same slice
                json.problem(m.keyPosition(), path, "is slice " + s + " again");
                return null;
            }
            seen.add(s);
            return s;
        } catch (InvalidRequestException e) {
            json.problem(m.keyPosition(), path, e.problems().get(0).message());
            return null;
        }
    }

    private static GroupQuota cell(Json json, String group, JsonValue v, String path) {
        JsonObject o = json.object(v, path);
        if (o == null) {
            return null;
        }
        json.onlyKnown(o, path, GROUP_FIELDS);
        int id = json.int32(o, "GroupId", path, null);
        Quota max = quota(json, o, "MaxQuota", path);
        Quota min = quota(json, o, "MinQuota", path);
        return min == null || max == null ? null : new GroupQuota(group, id, min, max);
    }

    private static Quota quota(Json json, JsonObject o, String field, String path) {
        JsonValue v = json.field(o, field, path, true);
        if (v == null) {
            return null;
        }
        if (v instanceof JsonNumber) {
            return Quota.workers(json.integer(v, JsonPath.member(path, field)));
        }
        var r = JobCodec.resources(json, v, JsonPath.member(path, field));
        return r == null ? null : Quota.of(r);
    }

    /** The draft in the file's format: by {@link QuotaTableCodec#write} if the table is valid without WorkerSpans. */
    public static String write(Draft draft) {
        try {
            return QuotaTableCodec.write(QuotaTable.of(draft.raw(), null));
        } catch (InvalidRequestException invalid) {
            return writeAsIs(draft);
        }
    }

    /** The same layout as the codec's, for a table it would refuse. */
    static String writeAsIs(Draft draft) {
        JsonObject.Builder doc = JsonObject.builder();
        for (SliceRow s : draft.slices()) {
            JsonObject.Builder groups = JsonObject.builder();
            for (GroupQuota q : s.cells()) {
                groups.put(q.group(), JsonObject.builder()
                        .put("GroupId", q.groupId())
                        .put("MaxQuota", json(q.max()))
                        .put("MinQuota", json(q.min()))
                        .build());
            }
            doc.put(s.slice().toString(), groups.build());
        }
        return JsonWriter.write(doc.build());
    }

    private static JsonValue json(Quota q) {
        return q.isWorkers() ? JsonValue.of(q.workers()) : JobCodec.resourcesJson(q.resources());
    }
}

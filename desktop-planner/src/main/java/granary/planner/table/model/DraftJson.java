package granary.planner.table.model;

import java.util.ArrayList;
import java.util.List;

import granary.api.model.InvalidRequestException;
import granary.codec.CodecException;
import granary.codec.json.Json;
import granary.codec.json.JsonObject;
import granary.codec.json.JsonPath;
import granary.codec.json.JsonReader;
import granary.codec.json.JsonValue;
import granary.policy.quota.api.GroupQuota;
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
 * <p>Writing is the codec's ({@link QuotaTableCodec#write(java.util.Map)}): the same layout for a
 * valid table and for one with problems of its own, so that unfinished work can be saved (the
 * WorkerSpans are not part of the file).
 */
public final class DraftJson {

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
        GroupQuota q = QuotaTableCodec.group(json, group, v, path);
        return q == null || q.min() == null || q.max() == null ? null : q;
    }

    /** The draft in the file's format, as the codec writes it (a table with problems too, in the same layout). */
    public static String write(Draft draft) {
        return QuotaTableCodec.write(draft.raw());
    }
}

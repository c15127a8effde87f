package granary.planner.live.model;

import java.io.IOException;
import java.io.StringReader;
import java.util.HashMap;
import java.util.Map;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParseException;
import com.google.gson.JsonParser;
import com.google.gson.stream.JsonReader;
import com.google.gson.stream.JsonToken;

/**
 * Turns the allocation stream's events (docs/api.md, "The allocation stream"; the producer is
 * {@code granary.http.EventStream}) into {@link ClusterModel} changes. An event that cannot be read —
 * bad JSON, a missing field, an unknown type — is reported to the model with its line and skipped:
 * the next one is applied as usual.
 *
 * <p>Grants, revocations and releases, the bulk of the stream, are read with a streaming
 * {@link JsonReader} (no tree); snapshots and samples, a few a second, as trees.
 */
public final class StreamDecoder implements SseReader.Listener {

    private final ClusterModel model;

    public StreamDecoder(ClusterModel model) {
        this.model = model;
    }

    @Override
    public void event(String id, String type, String data, long line) {
        model.seen(id);
        try {
            switch (type) {
                case "grant" -> decision(data, true);
                case "revoke", "release" -> decision(data, false);
                case "snapshot" -> snapshot(object(data));
                case "nodes" -> {
                    nodes(array(object(data), "nodes"));
                    model.applied();
                }
                case "groups" -> groups(array(object(data), "groups"), false);
                case "policies" -> {
                    model.policies(strings(object(data).getAsJsonObject("inEffect")));
                    model.applied();
                }
                default -> model.problem(where(line, type, id) + ": unknown event type '" + SseReader.shorten(type)
                        + "' (snapshot, grant, revoke, release, nodes, groups, policies): skipped");
            }
        } catch (JsonParseException | IOException | IllegalStateException | IllegalArgumentException | ClassCastException
                 | UnsupportedOperationException | NullPointerException e) {
            model.problem(where(line, type, id) + ": " + describe(e) + " in '" + SseReader.shorten(data) + "': skipped");
        }
    }

    @Override
    public void problem(long line, String message) {
        model.problem("line " + line + ": " + message + ": skipped");
    }

    private static String where(long line, String type, String id) {
        return "line " + line + " (event " + SseReader.shorten(type) + (id == null ? "" : ", id " + id) + ")";
    }

    private static String describe(Exception e) {
        if (e instanceof NullPointerException) {
            return "a required field is missing";
        }
        String m = e.getMessage();
        return (e instanceof JsonParseException || e instanceof IOException ? "malformed JSON: " : "") + (m == null ? e.getClass().getSimpleName() : m);
    }

    /** {@code {"unit": "job/u", "node": "n", "slots": 2, "kind": ..., "decision": ...}}. */
    private void decision(String data, boolean grant) throws IOException {
        String unit = null;
        String node = null;
        int slots = -1;
        try (JsonReader r = new JsonReader(new StringReader(data))) {
            r.beginObject();
            while (r.hasNext()) {
                switch (r.nextName()) {
                    case "unit" -> unit = r.nextString();
                    case "node" -> node = r.nextString();
                    case "slots" -> slots = r.nextInt();
                    default -> r.skipValue();
                }
            }
            r.endObject();
            if (r.peek() != JsonToken.END_DOCUMENT) {
                throw new IllegalArgumentException("text after the object");
            }
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("slots is not a whole number");
        }
        if (unit == null || node == null || slots < 0) {
            throw new IllegalArgumentException("a decision needs unit, node and slots >= 0");
        }
        if (grant) {
            model.granted(unit, node, slots);
        } else {
            model.returned(unit, node, slots);
        }
    }

    private void snapshot(JsonObject o) {
        JsonArray nodes = array(o, "nodes");
        JsonArray groups = array(o, "groups");
        // check the whole snapshot reads before the model forgets what it had
        nodes.forEach(n -> n.getAsJsonObject().get("name").getAsString());
        model.snapshotBegins();
        try {
            nodes(nodes);
            groups(groups, true);
            if (o.has("inEffect")) {
                model.policies(strings(o.getAsJsonObject("inEffect")));
            }
        } finally {
            model.snapshotEnds();
        }
    }

    private void nodes(JsonArray nodes) {
        for (JsonElement e : nodes) {
            JsonObject n = e.getAsJsonObject();
            String name = n.get("name").getAsString();
            if (n.has("removed") && n.get("removed").getAsBoolean()) {
                model.nodeRemoved(name);
                continue;
            }
            JsonObject g = n.getAsJsonObject("granted");
            JsonObject c = n.getAsJsonObject("capacity");
            model.node(name, n.get("room").getAsString(), g.get("cpu").getAsLong(), g.get("mem").getAsLong(),
                    c.get("cpu").getAsLong(), c.get("mem").getAsLong(), n.has("blacklisted") && n.get("blacklisted").getAsBoolean());
        }
    }

    private void groups(JsonArray groups, boolean inSnapshot) {
        for (JsonElement e : groups) {
            JsonObject g = e.getAsJsonObject();
            String path = g.get("path").getAsString();
            if (g.has("removed") && g.get("removed").getAsBoolean()) {
                model.groupRemoved(path);
                continue;
            }
            JsonObject used = g.getAsJsonObject("used");
            long slots = g.get("usedSlots").getAsLong();
            long cpu = used.get("cpu").getAsLong();
            long mem = used.get("mem").getAsLong();
            long units = g.get("waitingUnits").getAsLong();
            long waiting = g.get("waitingSlots").getAsLong();
            if (inSnapshot) {
                model.snapshotGroup(path, slots, cpu, mem, units, waiting);
            } else {
                model.group(path, slots, cpu, mem, units, waiting);
            }
        }
        if (!inSnapshot) {
            model.applied();
        }
    }

    private static JsonObject object(String data) {
        JsonElement e = JsonParser.parseString(data);
        if (!e.isJsonObject()) {
            throw new IllegalArgumentException("data is not a JSON object");
        }
        return e.getAsJsonObject();
    }

    private static JsonArray array(JsonObject o, String key) {
        JsonElement e = o.get(key);
        if (e == null || !e.isJsonArray()) {
            throw new IllegalArgumentException("'" + key + "' is not an array");
        }
        return e.getAsJsonArray();
    }

    private static Map<String, String> strings(JsonObject o) {
        Map<String, String> m = new HashMap<>();
        o.entrySet().forEach(e -> m.put(e.getKey(), e.getValue().getAsString()));
        return m;
    }
}

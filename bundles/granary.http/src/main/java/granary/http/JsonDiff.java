package granary.http;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import java.util.LinkedHashSet;
import java.util.Set;

/**
 * What changes between two JSON documents, member by member: {@code added}, {@code removed} and
 * {@code changed} entries with their JSON path and values. A dry run shows this against the
 * document in force (docs/api.md, "Dry runs").
 */
final class JsonDiff {

    private JsonDiff() {
    }

    static JsonArray of(JsonElement before, JsonElement after) {
        JsonArray out = new JsonArray();
        diff("$", before, after, out);
        return out;
    }

    private static void diff(String path, JsonElement a, JsonElement b, JsonArray out) {
        if (a == null && b == null) {
            return;
        }
        if (a == null) {
            out.add(change("added", path, null, b));
        } else if (b == null) {
            out.add(change("removed", path, a, null));
        } else if (a.isJsonObject() && b.isJsonObject()) {
            JsonObject x = a.getAsJsonObject();
            JsonObject y = b.getAsJsonObject();
            Set<String> keys = new LinkedHashSet<>(x.keySet());
            keys.addAll(y.keySet());
            for (String k : keys) {
                diff(path + member(k), x.get(k), y.get(k), out);
            }
        } else if (!a.equals(b)) {
            out.add(change("changed", path, a, b));
        }
    }

    /** {@code .name}, or {@code ["na me"]} for a name that is not a plain identifier (a slice "0-9"). */
    private static String member(String k) {
        return k.matches("[A-Za-z_][A-Za-z0-9_]*") ? "." + k : "[" + new com.google.gson.JsonPrimitive(k) + "]";
    }

    private static JsonObject change(String op, String path, JsonElement from, JsonElement to) {
        JsonObject o = new JsonObject();
        o.addProperty("op", op);
        o.addProperty("path", path);
        if (from != null) {
            o.add("from", from);
        }
        if (to != null) {
            o.add("to", to);
        }
        return o;
    }
}

package granary.http;

import com.google.gson.Gson;
import com.google.gson.GsonBuilder;
import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import granary.api.model.Problem;
import granary.api.model.Resources;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** JSON in and out of the API, by Gson: strict reading with the place of an error, and the shapes we write. */
public final class Json {

    private static final Gson GSON = new GsonBuilder().disableHtmlEscaping().create();

    private Json() {
    }

    public static String write(JsonElement e) {
        return GSON.toJson(e);
    }

    /**
     * Reads one JSON document with Granary's strict reader, the one files use
     * ({@link granary.codec.json.JsonReader}: RFC 8259 and nothing more, a key given twice refused,
     * echoes escaped and cut), or throws a 400 naming the line, column and JSON path of the first
     * error, in our words: no library's advice reaches a client.
     */
    public static JsonElement read(String text, String source) {
        if (text.isBlank()) {
            throw ApiException.badRequest(source + " is empty: a JSON document is expected",
                    List.of(Problem.of(source, "$", "empty")));
        }
        try {
            return gson(granary.codec.json.JsonReader.read(text, source));
        } catch (granary.codec.json.JsonSyntaxException e) {
            granary.codec.json.JsonProblem p = e.problem();
            throw ApiException.badRequest(p.toString(), List.of(p.toProblem()));
        }
    }

    /** The same value as Gson's tree, which the API's handlers read. */
    private static JsonElement gson(granary.codec.json.JsonValue v) {
        if (v instanceof granary.codec.json.JsonObject o) {
            JsonObject out = new JsonObject();
            o.members().forEach(m -> out.add(m.key(), gson(m.value())));
            return out;
        }
        if (v instanceof granary.codec.json.JsonArray a) {
            JsonArray out = new JsonArray(a.size());
            a.items().forEach(x -> out.add(gson(x)));
            return out;
        }
        if (v instanceof granary.codec.json.JsonString str) {
            return new com.google.gson.JsonPrimitive(str.value());
        }
        if (v instanceof granary.codec.json.JsonNumber n) {
            return new com.google.gson.JsonPrimitive(n.decimal());
        }
        if (v instanceof granary.codec.json.JsonBoolean b) {
            return new com.google.gson.JsonPrimitive(b.value());
        }
        return com.google.gson.JsonNull.INSTANCE;
    }

    /** The body as an object, or a 400. */
    public static JsonObject object(String text, String source) {
        JsonElement e = read(text, source);
        if (!e.isJsonObject()) {
            throw ApiException.badRequest(source + " must be a JSON object, got " + kind(e),
                    List.of(Problem.of(source, "$", "expected an object, got " + kind(e))));
        }
        return e.getAsJsonObject();
    }

    /** Refuses members not in {@code allowed}: a misspelt field must not be ignored silently. */
    public static void only(JsonObject o, String source, String... allowed) {
        List<String> ok = List.of(allowed);
        for (String k : o.keySet()) {
            if (!ok.contains(k)) {
                String shown = granary.api.model.Text.quote(k);
                String at = granary.codec.json.JsonPath.member("$", k);
                throw ApiException.badRequest(source + ": unknown field " + shown + " (known: " + String.join(", ", ok) + ")",
                        List.of(Problem.of(source, at, "unknown field " + shown + "; known: " + String.join(", ", ok))));
            }
        }
    }

    /** A required string member. */
    public static String string(JsonObject o, String name, String source) {
        JsonElement e = o.get(name);
        if (e == null || e.isJsonNull()) {
            throw ApiException.badRequest(source + ": '" + name + "' is missing", List.of(Problem.of(source, "$." + name, "missing")));
        }
        if (!e.isJsonPrimitive() || !e.getAsJsonPrimitive().isString()) {
            throw ApiException.badRequest(source + ": '" + name + "' must be a string, got " + kind(e),
                    List.of(Problem.of(source, "$." + name, "expected a string, got " + kind(e))));
        }
        return e.getAsString();
    }

    /** A required boolean member. */
    public static boolean bool(JsonObject o, String name, String source) {
        JsonElement e = o.get(name);
        if (e == null || !e.isJsonPrimitive() || !e.getAsJsonPrimitive().isBoolean()) {
            String got = e == null ? "nothing" : kind(e);
            throw ApiException.badRequest(source + ": '" + name + "' must be true or false, got " + got,
                    List.of(Problem.of(source, "$." + name, "expected true or false, got " + got)));
        }
        return e.getAsBoolean();
    }

    static String kind(JsonElement e) {
        if (e.isJsonObject()) {
            return "an object";
        }
        if (e.isJsonArray()) {
            return "an array";
        }
        if (e.isJsonNull()) {
            return "null";
        }
        var p = e.getAsJsonPrimitive();
        return p.isBoolean() ? "a boolean" : p.isNumber() ? "a number" : "a string";
    }

    /** A resource vector: {@code {"cpu": 400, "mem": 8192, "gpu": 1}} (cpu in 1/100 cores, mem in MiB). */
    public static JsonObject resources(Resources r) {
        JsonObject o = new JsonObject();
        o.addProperty("cpu", r.cpu());
        o.addProperty("mem", r.memMb());
        new TreeMap<>(r.extended()).forEach(o::addProperty);
        return o;
    }

    public static JsonObject strings(Map<String, String> m) {
        JsonObject o = new JsonObject();
        new TreeMap<>(m).forEach(o::addProperty);
        return o;
    }

    public static JsonArray array(List<String> items) {
        JsonArray a = new JsonArray();
        items.forEach(a::add);
        return a;
    }

    /** A problem as the API writes it: subject, field, message, and limit / value where known. */
    public static JsonObject problem(Problem p) {
        JsonObject o = new JsonObject();
        o.addProperty("subject", p.subject());
        if (p.field() != null) {
            o.addProperty("field", p.field());
            if (p.field().startsWith("$")) {
                o.addProperty("pointer", p.field());
            }
        }
        o.addProperty("message", p.message());
        if (p.limit() != null) {
            o.addProperty("limit", p.limit());
        }
        if (p.value() != null) {
            o.addProperty("value", p.value());
        }
        return o;
    }

    /** RFC 9457 problem JSON for {@code e}, answered for {@code instance} (the request path). */
    public static JsonObject problem(ApiException e, String instance) {
        JsonObject o = new JsonObject();
        o.addProperty("type", "/api/v1/problems/" + e.type());
        o.addProperty("title", e.title());
        o.addProperty("status", e.status());
        o.addProperty("detail", e.detail());
        o.addProperty("instance", instance);
        JsonArray errors = new JsonArray();
        e.problems().forEach(p -> errors.add(problem(p)));
        o.add("errors", errors);
        return o;
    }
}

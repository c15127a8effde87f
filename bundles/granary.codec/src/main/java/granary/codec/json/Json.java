package granary.codec.json;

import java.io.EOFException;
import java.io.IOException;
import java.io.Reader;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonNull;
import com.google.gson.JsonObject;
import com.google.gson.JsonPrimitive;
import com.google.gson.Strictness;
import com.google.gson.stream.JsonReader;
import com.google.gson.stream.JsonToken;
import com.google.gson.stream.MalformedJsonException;

import granary.api.model.InvalidRequestException;
import granary.codec.CodecException;
import granary.api.model.Problem;

/**
 * Strict reading of a JSON tree with precise errors: every accessor takes the JSON path of what it
 * reads ({@code $.units[0].slot}) and records a problem instead of throwing, so a document with
 * several mistakes reports all of them at once. Unknown fields are problems too (a misspelt field
 * silently ignored is a bug report waiting to happen).
 */
public final class Json {

    private final String source;
    private final List<Problem> problems = new ArrayList<>();

    public Json(String source) {
        this.source = source;
    }

    /**
     * Parses a whole document; a syntax error is reported with line and column. A key given twice
     * in one object is an error too (Gson would keep the last one silently).
     */
    public JsonElement parse(Reader in) {
        try {
            JsonReader reader = new JsonReader(in);
            reader.setStrictness(Strictness.STRICT);
            JsonElement e = read(reader);
            if (reader.peek() != JsonToken.END_DOCUMENT) {
                throw new CodecException(source, "$", "unexpected content after the JSON document");
            }
            return e;
        } catch (MalformedJsonException | EOFException | IllegalStateException | NumberFormatException e) {
            String msg = e.getMessage() == null ? e.toString() : e.getMessage();
            int cut = msg.indexOf("\nSee https://");
            throw new CodecException(source, "syntax", "not valid JSON: " + (cut > 0 ? msg.substring(0, cut) : msg));
        } catch (IOException e) {
            throw new CodecException(source, "syntax", "cannot read: " + e.getMessage());
        }
    }

    private JsonElement read(JsonReader r) throws IOException {
        switch (r.peek()) {
            case BEGIN_OBJECT -> {
                JsonObject o = new JsonObject();
                r.beginObject();
                while (r.hasNext()) {
                    String where = r.getPath();
                    String key = r.nextName();
                    if (o.has(key)) {
                        String pos = r.toString().replaceFirst("^JsonReader", "").trim();
                        throw new CodecException(source, where.replaceFirst("\\.[^.]*$", "") + "." + key,
                                "key '" + key + "' is given twice in the same object " + pos);
                    }
                    o.add(key, read(r));
                }
                r.endObject();
                return o;
            }
            case BEGIN_ARRAY -> {
                JsonArray a = new JsonArray();
                r.beginArray();
                while (r.hasNext()) {
                    a.add(read(r));
                }
                r.endArray();
                return a;
            }
            case STRING -> {
                return new JsonPrimitive(r.nextString());
            }
            case NUMBER -> {
                return new JsonPrimitive(new BigDecimal(r.nextString()));
            }
            case BOOLEAN -> {
                return new JsonPrimitive(r.nextBoolean());
            }
            case NULL -> {
                r.nextNull();
                return JsonNull.INSTANCE;
            }
            default -> throw new MalformedJsonException("unexpected " + r.peek() + " " + r);
        }
    }

    public void problem(String path, String message) {
        problems.add(Problem.of(source, path, message));
    }

    /** Turns an exception of the model's own validation into a problem at {@code path}. */
    public void problem(String path, InvalidRequestException e) {
        for (Problem p : e.problems()) {
            problems.add(new Problem(source, path + "." + p.field(), p.message(), p.limit(), p.value()));
        }
    }

    /** Takes over the problems of a model's validation, prefixed with the source. */
    public void problemsOf(InvalidRequestException e) {
        for (Problem p : e.problems()) {
            problems.add(new Problem(source + ": " + p.subject(), p.field(), p.message(), p.limit(), p.value()));
        }
    }

    public boolean ok() {
        return problems.isEmpty();
    }

    public void throwIfProblems() {
        if (!problems.isEmpty()) {
            throw new CodecException(problems);
        }
    }

    public JsonObject object(JsonElement e, String path) {
        if (e == null || !e.isJsonObject()) {
            problem(path, "expected an object, got " + kind(e));
            return null;
        }
        return e.getAsJsonObject();
    }

    public JsonArray array(JsonElement e, String path) {
        if (e == null || !e.isJsonArray()) {
            problem(path, "expected an array, got " + kind(e));
            return null;
        }
        return e.getAsJsonArray();
    }

    /** Records every field of {@code o} that is not in {@code known}. */
    public void onlyKnown(JsonObject o, String path, Set<String> known) {
        for (String k : o.keySet()) {
            if (!known.contains(k)) {
                problem(path + "." + k, "unknown field; known fields: " + String.join(", ", new TreeSet<>(known)));
            }
        }
    }

    public String string(JsonObject o, String field, String path, String dflt) {
        JsonElement e = o.get(field);
        if (e == null || e.isJsonNull()) {
            if (dflt == null) {
                problem(path + "." + field, "is missing");
            }
            return dflt;
        }
        if (!e.isJsonPrimitive() || !e.getAsJsonPrimitive().isString()) {
            problem(path + "." + field, "expected a string, got " + kind(e));
            return dflt;
        }
        return e.getAsString();
    }

    public long integer(JsonObject o, String field, String path, Long dflt) {
        JsonElement e = o.get(field);
        if (e == null || e.isJsonNull()) {
            if (dflt == null) {
                problem(path + "." + field, "is missing");
                return 0;
            }
            return dflt;
        }
        return integer(e, path + "." + field);
    }

    public long integer(JsonElement e, String path) {
        if (e.isJsonPrimitive() && e.getAsJsonPrimitive().isNumber()) {
            String text = e.getAsJsonPrimitive().getAsString();
            try {
                return Long.parseLong(text);
            } catch (NumberFormatException ex) {
                problem(path, "expected a whole number, got " + text);
                return 0;
            }
        }
        problem(path, "expected a whole number, got " + kind(e));
        return 0;
    }

    public int int32(JsonObject o, String field, String path, Integer dflt) {
        long v = integer(o, field, path, dflt == null ? null : (long) dflt);
        if (v > Integer.MAX_VALUE || v < Integer.MIN_VALUE) {
            problem(path + "." + field, "out of range: " + v);
            return 0;
        }
        return (int) v;
    }

    public boolean bool(JsonObject o, String field, String path, boolean dflt) {
        JsonElement e = o.get(field);
        if (e == null || e.isJsonNull()) {
            return dflt;
        }
        if (!e.isJsonPrimitive() || !e.getAsJsonPrimitive().isBoolean()) {
            problem(path + "." + field, "expected true or false, got " + kind(e));
            return dflt;
        }
        return e.getAsBoolean();
    }

    public static String kind(JsonElement e) {
        if (e == null || e.isJsonNull()) {
            return "nothing";
        }
        if (e.isJsonObject()) {
            return "an object";
        }
        if (e.isJsonArray()) {
            return "an array";
        }
        JsonPrimitive p = e.getAsJsonPrimitive();
        return p.isString() ? "the string \"" + p.getAsString() + "\"" : p.isBoolean() ? p.getAsString() : "the number " + p.getAsString();
    }

    public static Map.Entry<String, JsonElement> entry(String k, JsonElement v) {
        return Map.entry(k, v);
    }
}

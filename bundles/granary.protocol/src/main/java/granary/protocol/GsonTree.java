package granary.protocol;

import com.google.gson.Strictness;
import com.google.gson.stream.JsonToken;
import granary.api.model.Problem;
import granary.api.model.Text;
import granary.codec.json.JsonArray;
import granary.codec.json.JsonBoolean;
import granary.codec.json.JsonLimits;
import granary.codec.json.JsonNull;
import granary.codec.json.JsonNumber;
import granary.codec.json.JsonObject;
import granary.codec.json.JsonPath;
import granary.codec.json.JsonPosition;
import granary.codec.json.JsonProblem;
import granary.codec.json.JsonString;
import granary.codec.json.JsonValue;
import java.io.EOFException;
import java.io.IOException;
import java.io.StringReader;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The wire's JSON syntax layer: Gson's streaming reader and writer in {@link Strictness#STRICT}
 * mode, between UTF-8 bytes and the {@link JsonValue} tree that {@link MessageReader} reads and
 * {@link MessageWriter} builds.
 *
 * <p>Reading refuses bytes that are not UTF-8, anything strict Gson refuses (comments, single
 * quotes, unquoted names, {@code NaN}, trailing commas, leading zeros, unescaped control characters,
 * bad escapes), content after the document, a key given twice in one object and anything beyond
 * the {@link JsonLimits} (depth, string and number length). Each refusal is a
 * {@link ProtocolException} with one problem: the source with the line and column Gson reports, the
 * JSON path of the value (or object, or array) being read, in {@link JsonPath}'s notation, and a
 * message {@code not valid JSON: <what is wrong>}. Values read carry {@link JsonPosition#NONE}:
 * Gson does not tell where a value starts.
 */
final class GsonTree {

    private static final Pattern WHERE = Pattern.compile(" at line (\\d+) column (\\d+)");

    /** What was being read when Gson stopped; decides the words for the end of the input. */
    private enum Inside { VALUE, OBJECT, ARRAY, AFTER }

    private final String source;
    private final String text;
    private final JsonLimits limits;
    private final com.google.gson.stream.JsonReader reader;
    private int depth;
    private String path = JsonPath.ROOT;
    private Inside inside = Inside.VALUE;

    private GsonTree(String source, String text, JsonLimits limits) {
        this.source = source;
        this.text = text;
        this.limits = limits;
        this.reader = new com.google.gson.stream.JsonReader(new StringReader(text));
        this.reader.setStrictness(Strictness.STRICT);
    }

    /** Reads one document from UTF-8 bytes (a leading byte order mark is skipped). */
    static JsonValue read(byte[] bytes, String source, JsonLimits limits) {
        if (bytes.length > limits.maxBytes()) {
            throw refusal(source, new JsonPosition(1, 1), JsonPath.ROOT,
                    "not valid JSON: the input is larger than the limit of " + limits.maxBytes() + " bytes");
        }
        String text = utf8(bytes, source);
        if (text.startsWith("\uFEFF")) {
            text = text.substring(1);
        }
        GsonTree t = new GsonTree(source, text, limits);
        try {
            JsonValue v = t.value(JsonPath.ROOT);
            t.path = JsonPath.ROOT;
            t.inside = Inside.AFTER;
            if (t.reader.peek() != JsonToken.END_DOCUMENT) {
                throw t.error("unexpected content after the JSON document");
            }
            return v;
        } catch (IOException e) {
            throw t.translate(e);
        }
    }

    /** The tree as compact JSON (no whitespace), written by Gson; numbers keep their text. */
    static String write(JsonValue v) {
        StringWriter out = new StringWriter();
        try (com.google.gson.stream.JsonWriter w = new com.google.gson.stream.JsonWriter(out)) {
            w.setHtmlSafe(false);
            w.setStrictness(Strictness.STRICT);
            w.setSerializeNulls(true);
            write(v, w);
        } catch (IOException e) {
            throw new UncheckedIOException(e); // a StringWriter does not fail
        }
        return out.toString();
    }

    private static void write(JsonValue v, com.google.gson.stream.JsonWriter w) throws IOException {
        if (v instanceof JsonObject o) {
            w.beginObject();
            for (JsonObject.Member m : o.members()) {
                w.name(m.key());
                write(m.value(), w);
            }
            w.endObject();
        } else if (v instanceof JsonArray a) {
            w.beginArray();
            for (JsonValue x : a.items()) {
                write(x, w);
            }
            w.endArray();
        } else if (v instanceof JsonString s) {
            w.value(s.value());
        } else if (v instanceof JsonNumber n) {
            w.jsonValue(n.text());
        } else if (v instanceof JsonBoolean b) {
            w.value(b.value());
        } else {
            w.nullValue();
        }
    }

    private JsonValue value(String at) throws IOException {
        path = at;
        inside = Inside.VALUE;
        JsonToken token = reader.peek();
        switch (token) {
            case BEGIN_OBJECT:
                return object(at);
            case BEGIN_ARRAY:
                return array(at);
            case STRING:
                return new JsonString(string(reader.nextString()), JsonPosition.NONE);
            case NUMBER: {
                String n = reader.nextString();
                if (n.length() > limits.maxNumberChars()) {
                    throw error("a number is longer than the limit of " + limits.maxNumberChars() + " characters");
                }
                return new JsonNumber(n, JsonPosition.NONE);
            }
            case BOOLEAN:
                return new JsonBoolean(reader.nextBoolean(), JsonPosition.NONE);
            case NULL:
                reader.nextNull();
                return new JsonNull(JsonPosition.NONE);
            default:
                throw error("expected a value (an object, array, string, number, true, false or null)");
        }
    }

    private JsonObject object(String at) throws IOException {
        enter(at);
        reader.beginObject();
        List<JsonObject.Member> members = new ArrayList<>();
        Set<String> keys = new HashSet<>();
        while (true) {
            path = at;
            inside = Inside.OBJECT;
            if (!reader.hasNext()) {
                break;
            }
            String key = string(reader.nextName());
            String member = JsonPath.member(at, key);
            if (!keys.add(key)) {
                throw refusal(source, where(reader.toString()), member,
                        "key '" + Text.escape(key) + "' is given twice in the same object");
            }
            members.add(new JsonObject.Member(key, JsonPosition.NONE, value(member)));
        }
        reader.endObject();
        depth--;
        return new JsonObject(members, JsonPosition.NONE);
    }

    private JsonArray array(String at) throws IOException {
        enter(at);
        reader.beginArray();
        List<JsonValue> items = new ArrayList<>();
        while (true) {
            path = at;
            inside = Inside.ARRAY;
            if (!reader.hasNext()) {
                break;
            }
            items.add(value(JsonPath.item(at, items.size())));
        }
        reader.endArray();
        depth--;
        return new JsonArray(items, JsonPosition.NONE);
    }

    private void enter(String at) {
        if (++depth > limits.maxDepth()) {
            throw error("nested deeper than the limit of " + limits.maxDepth() + " levels");
        }
    }

    private String string(String s) {
        if (s.length() > limits.maxStringChars()) {
            throw error("a string is longer than the limit of " + limits.maxStringChars() + " characters");
        }
        return s;
    }

    private ProtocolException error(String message) {
        return refusal(source, where(reader.toString()), path, "not valid JSON: " + message);
    }

    /** A Gson refusal in our words, at Gson's line and column and the path being read. */
    private ProtocolException translate(IOException e) {
        String m = String.valueOf(e.getMessage());
        JsonPosition at = where(m);
        return refusal(source, at, path, "not valid JSON: " + explain(e, m, at));
    }

    private String explain(IOException e, String m, JsonPosition at) {
        if (e instanceof EOFException) {
            return switch (inside) {
                case OBJECT -> "the document ends inside an object";
                case ARRAY -> "the document ends inside an array";
                case AFTER -> "unexpected content after the JSON document";
                case VALUE -> path.equals(JsonPath.ROOT) ? "the document is empty; expected a value"
                        : "the document ends where a value was expected";
            };
        }
        if (inside == Inside.AFTER) {
            return "unexpected content after the JSON document";
        }
        if (m.startsWith("Unterminated string")) {
            return "the document ends inside a string";
        }
        if (m.startsWith("Unterminated object")) {
            return "expected ',' or '}'";
        }
        if (m.startsWith("Unterminated array")) {
            return "expected ',' or ']'";
        }
        if (m.startsWith("Expected ':'")) {
            return "expected ':' after the key";
        }
        if (m.startsWith("Unescaped control characters")) {
            return "a control character in a string; write it escaped (\\n, \\t, \\u0000 ...)";
        }
        if (m.startsWith("Invalid escape sequence") || m.startsWith("Malformed Unicode escape")) {
            return "bad escape; use \\\" \\\\ \\/ \\b \\f \\n \\r \\t or \\uXXXX";
        }
        if (m.startsWith("Expected name")) {
            return "expected a key in double quotes";
        }
        if (m.startsWith("Expected value")) {
            return "expected a value (an object, array, string, number, true, false or null)";
        }
        // Strictness refusals ("Use JsonReader.setStrictness(Strictness.LENIENT) ...") do not say what
        // was refused; the text at Gson's place does.
        int i = offset(at);
        char consumed = i >= 1 && i - 1 < text.length() ? text.charAt(i - 1) : '\0';
        char next = i >= 0 && i < text.length() ? text.charAt(i) : '\0';
        if (consumed == '\'' || next == '\'') {
            return "strings need double quotes, not single quotes";
        }
        if (consumed == '/' || consumed == '#') {
            return "comments are not allowed in JSON";
        }
        if (consumed == ']' || consumed == '}' || consumed == ',' && inside == Inside.ARRAY) {
            return "expected a value after ',' (no trailing commas)";
        }
        if (consumed == ';' || consumed == '=') {
            return inside == Inside.OBJECT ? "expected ':' after the key" : "expected ',' between values";
        }
        if (inside == Inside.OBJECT) {
            return "expected a key in double quotes";
        }
        String word = word(i);
        if (word.equals("NaN") || word.startsWith("Infinity") || word.startsWith("-Infinity")) {
            return "'" + Text.escape(word) + "' is not a JSON value (JSON has no NaN or Infinity)";
        }
        if (!word.isEmpty() && (word.charAt(0) == '-' || word.charAt(0) == '+' || word.charAt(0) == '.'
                || Character.isDigit(word.charAt(0)))) {
            if (word.length() > limits.maxNumberChars()) {
                return "a number is longer than the limit of " + limits.maxNumberChars() + " characters";
            }
            return "'" + Text.escape(word) + "' is not a JSON number (no '+', no leading zeros, a digit before and after '.')";
        }
        if (!word.isEmpty()) {
            return "'" + Text.escape(word) + "' is not a JSON value; strings need double quotes";
        }
        return "not allowed in strict JSON";
    }

    /** The unquoted word starting at {@code i}, cut at 41 characters. */
    private String word(int i) {
        if (i < 0 || i >= text.length()) {
            return "";
        }
        int end = i;
        while (end < text.length() && end - i <= 40 && "{}[]:,\"' \t\r\n".indexOf(text.charAt(end)) < 0) {
            end++;
        }
        return text.substring(i, end);
    }

    /** The offset in the text of Gson's (1-based) line and column, -1 if unknown. */
    private int offset(JsonPosition at) {
        if (!at.known()) {
            return -1;
        }
        int lineStart = 0;
        for (int line = 1; line < at.line(); line++) {
            int nl = text.indexOf('\n', lineStart);
            if (nl < 0) {
                return -1;
            }
            lineStart = nl + 1;
        }
        return lineStart + at.column() - 1;
    }

    /** Line and column from Gson's text ({@code ... at line 1 column 225 path $.message}). */
    private static JsonPosition where(String gson) {
        Matcher m = WHERE.matcher(gson);
        return m.find() ? new JsonPosition(Integer.parseInt(m.group(1)), Integer.parseInt(m.group(2))) : JsonPosition.NONE;
    }

    private static ProtocolException refusal(String source, JsonPosition at, String path, String message) {
        Problem p = new JsonProblem(source, at, path, message).toProblem();
        return new ProtocolException(List.of(p));
    }

    /** Decodes UTF-8 with the codec's decoder, refusing malformed bytes with their offset, line and column. */
    private static String utf8(byte[] bytes, String source) {
        try {
            return granary.codec.json.JsonReader.utf8(bytes, source, "");
        } catch (granary.codec.json.JsonSyntaxException ex) {
            JsonProblem p = ex.problem();
            throw refusal(source, p.at(), p.path(), "not valid JSON: " + p.message());
        }
    }
}

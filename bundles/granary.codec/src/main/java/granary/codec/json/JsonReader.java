package granary.codec.json;

import java.io.IOException;
import java.io.InputStream;
import java.io.Reader;
import java.nio.charset.CharacterCodingException;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import granary.api.model.Text;

/**
 * Granary's strict JSON reader (RFC 8259 and nothing more). It reads UTF-8 bytes (a leading byte
 * order mark is skipped), refuses anything JSON does not allow — comments, single quotes, trailing
 * commas, {@code NaN}, {@code +1}, leading zeros, raw control characters in strings, lone
 * surrogates, content after the document — and refuses a key given twice in one object. Every value
 * keeps where it starts.
 *
 * <p>Errors are {@link JsonSyntaxException}s whose message is
 * {@code <source>:<line>:<column>: <json path>: not valid JSON: <what is wrong>}, e.g.
 * {@code jobs.json:3:17: $.units[0]: not valid JSON: expected ',' or '}'}; the JSON path is the
 * value being read when the error was found. Input that is not UTF-8 gives
 * {@code <source>:<line>:<column>: $: not UTF-8 at byte <n> (0x<hex>)}. Inputs beyond the
 * {@link JsonLimits} are refused with the limit named. Text echoed from the input is escaped and cut
 * ({@link Text}).
 */
public final class JsonReader {

    private final String source;
    private final String text;
    private final JsonLimits limits;
    private int pos;
    private int line = 1;
    private int lineStart;
    private int depth;
    /**
     * The path of the value being read, as segments: a member's key, or null for an item whose index
     * is in {@link #items}. Kept as a stack and written out only when an error names it, so reading
     * allocates no path.
     */
    private String[] keys = new String[16];
    private int[] items = new int[16];
    private int segments;

    private JsonReader(String source, String text, int start, JsonLimits limits) {
        this.source = source;
        this.text = text;
        this.limits = limits;
        this.pos = start;
        this.lineStart = start;
    }

    /** Reads a file; the source in messages is the path as given. */
    public static JsonValue read(Path file) {
        return read(file, file.toString(), JsonLimits.DEFAULT);
    }

    /**
     * Reads a file, naming it {@code source} in messages. A missing or unreadable file is a
     * {@link granary.codec.CodecException} naming it too.
     */
    public static JsonValue read(Path file, String source, JsonLimits limits) {
        try (InputStream in = Files.newInputStream(file)) {
            return read(in, source, limits);
        } catch (NoSuchFileException e) {
            throw new JsonSyntaxException(new JsonProblem(source, JsonPosition.NONE, JsonPath.ROOT,
                    "no such file (looked for " + file.toAbsolutePath() + ")"));
        } catch (IOException e) {
            throw new JsonSyntaxException(new JsonProblem(source, JsonPosition.NONE, JsonPath.ROOT,
                    "cannot read the file: " + e.getClass().getSimpleName()));
        }
    }

    /** Reads a stream to its end (at most {@link JsonLimits#maxBytes} bytes). */
    public static JsonValue read(InputStream in, String source, JsonLimits limits) throws IOException {
        byte[] bytes = in.readNBytes((int) Math.min(Integer.MAX_VALUE - 16, limits.maxBytes() + 1));
        return read(bytes, source, limits);
    }

    /**
     * Reads a document from characters already decoded (a request body, a test). A reader that
     * decodes strictly and meets bytes that are not UTF-8 gives a problem saying so.
     */
    public static JsonValue read(Reader in, String source) {
        StringBuilder sb = new StringBuilder();
        char[] buf = new char[8192];
        try {
            for (int n = in.read(buf); n >= 0; n = in.read(buf)) {
                sb.append(buf, 0, n);
                if (sb.length() > JsonLimits.DEFAULT.maxBytes()) {
                    throw new JsonSyntaxException(new JsonProblem(source, new JsonPosition(1, 1), JsonPath.ROOT,
                            "the input is larger than the limit of " + JsonLimits.DEFAULT.maxBytes() + " bytes"));
                }
            }
        } catch (CharacterCodingException e) {
            throw new JsonSyntaxException(new JsonProblem(source, JsonPosition.NONE, JsonPath.ROOT,
                    "not UTF-8 (after " + sb.length() + " characters); save the file as UTF-8"));
        } catch (IOException e) {
            throw new JsonSyntaxException(new JsonProblem(source, JsonPosition.NONE, JsonPath.ROOT,
                    "cannot read: " + e.getClass().getSimpleName()));
        }
        return read(sb.toString(), source);
    }

    /** Reads UTF-8 bytes. */
    public static JsonValue read(byte[] bytes, String source, JsonLimits limits) {
        if (bytes.length > limits.maxBytes()) {
            throw new JsonSyntaxException(new JsonProblem(source, new JsonPosition(1, 1), JsonPath.ROOT,
                    "the input is larger than the limit of " + limits.maxBytes() + " bytes"));
        }
        return read(utf8(bytes, source), source, limits);
    }

    /** Reads a document already decoded, e.g. a string in a test or a request body. */
    public static JsonValue read(String text, String source) {
        return read(text, source, JsonLimits.DEFAULT);
    }

    public static JsonValue read(String text, String source, JsonLimits limits) {
        int start = text.startsWith("\uFEFF") ? 1 : 0;
        JsonReader r = new JsonReader(source, text, start, limits);
        r.skipSpace();
        if (r.pos >= text.length()) {
            throw r.error("the document is empty; expected a value");
        }
        JsonValue v = r.value();
        r.skipSpace();
        if (r.pos < text.length()) {
            throw r.error("unexpected content after the JSON document");
        }
        return v;
    }

    /**
     * Decodes UTF-8 (keeping a byte order mark), refusing malformed bytes with a
     * {@link JsonSyntaxException} that gives their offset, line and column.
     */
    public static String utf8(byte[] bytes, String source) {
        return utf8(bytes, source, "; save the file as UTF-8");
    }

    /**
     * As {@link #utf8(byte[], String)}, with {@code advice} after the refusal's words (empty: none);
     * the wire, which has no file to save, uses this.
     */
    public static String utf8(byte[] bytes, String source, String advice) {
        int ascii = 0;
        while (ascii < bytes.length && bytes[ascii] >= 0) {
            ascii++;
        }
        if (ascii == bytes.length) {
            return new String(bytes, StandardCharsets.ISO_8859_1);   // all ASCII (the wire, mostly): valid UTF-8, one copy
        }
        CharsetDecoder d = StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT).onUnmappableCharacter(CodingErrorAction.REPORT);
        ByteBuffer in = ByteBuffer.wrap(bytes);
        CharBuffer out = CharBuffer.allocate((int) Math.min(Integer.MAX_VALUE - 16, (long) bytes.length + 1));
        CoderResult r = d.decode(in, out, true);
        if (!r.isError()) {
            r = d.flush(out);
        }
        if (r.isError()) {
            int at = in.position();
            int line = 1;
            int lineStart = 0;
            for (int i = 0; i < at; i++) {
                if (bytes[i] == '\n') {
                    line++;
                    lineStart = i + 1;
                }
            }
            int column = new String(bytes, lineStart, at - lineStart, StandardCharsets.UTF_8).length() + 1;
            throw new JsonSyntaxException(new JsonProblem(source, new JsonPosition(line, column), JsonPath.ROOT,
                    String.format("not UTF-8 at byte %d (0x%02X)", at, bytes[at] & 0xff) + advice));
        }
        out.flip();
        return out.toString();
    }

    private JsonValue value() {
        skipSpace();
        if (pos >= text.length()) {
            throw error("the document ends where a value was expected");
        }
        JsonPosition at = here();
        char c = text.charAt(pos);
        switch (c) {
            case '{':
                return object(at);
            case '[':
                return array(at);
            case '"':
                return new JsonString(string(), at);
            default:
                break;
        }
        if (c == '-' || c >= '0' && c <= '9') {
            return number(at);
        }
        return word(at);
    }

    private JsonObject object(JsonPosition at) {
        enter();
        pos++;
        List<JsonObject.Member> members = new ArrayList<>();
        Set<String> many = null;   // the keys, once there are too many to look through one by one
        skipSpace();
        if (peek() == '}') {
            pos++;
            depth--;
            return JsonObject.read(members, at);
        }
        while (true) {
            skipSpace();
            if (peek() != '"') {
                String mistake = notJson(peek());
                throw error(pos >= text.length() ? "the document ends inside an object"
                        : mistake != null ? mistake
                        : members.isEmpty() ? "expected a key in double quotes" : "expected a key in double quotes after ',' (no trailing commas)");
            }
            JsonPosition keyAt = here();
            String key = string();
            push(key, 0);
            if (many == null && members.size() >= JsonObject.FEW) {
                many = new HashSet<>();
                for (JsonObject.Member m : members) {
                    many.add(m.key());
                }
            }
            if (many != null ? !many.add(key) : JsonObject.among(members, key) >= 0) {
                throw new JsonSyntaxException(new JsonProblem(source, keyAt, path(),
                        "key '" + Text.escape(key) + "' is given twice in the same object"));
            }
            skipSpace();
            if (peek() != ':') {
                throw error("expected ':' after the key");
            }
            pos++;
            members.add(new JsonObject.Member(key, keyAt, value()));
            segments--;
            skipSpace();
            char c = peek();
            if (c == '}') {
                pos++;
                depth--;
                return JsonObject.read(members, at);
            }
            if (c != ',') {
                throw error(pos >= text.length() ? "the document ends inside an object" : "expected ',' or '}'");
            }
            pos++;
        }
    }

    private JsonArray array(JsonPosition at) {
        enter();
        pos++;
        List<JsonValue> list = new ArrayList<>();
        skipSpace();
        if (peek() == ']') {
            pos++;
            depth--;
            return new JsonArray(list, at);
        }
        while (true) {
            skipSpace();
            if (peek() == ']' && !list.isEmpty()) {
                throw error("expected a value after ',' (no trailing commas)");
            }
            push(null, list.size());
            list.add(value());
            segments--;
            skipSpace();
            char c = peek();
            if (c == ']') {
                pos++;
                depth--;
                return new JsonArray(list, at);
            }
            if (c != ',') {
                throw error(pos >= text.length() ? "the document ends inside an array" : "expected ',' or ']'");
            }
            pos++;
        }
    }

    /** Enters a member ({@code key}) or an item ({@code key} null, its {@code index}) of the value being read. */
    private void push(String key, int index) {
        if (segments == keys.length) {
            keys = Arrays.copyOf(keys, segments * 2);
            items = Arrays.copyOf(items, segments * 2);
        }
        keys[segments] = key;
        items[segments] = index;
        segments++;
    }

    /** The JSON path of the value being read ({@link JsonPath}). */
    private String path() {
        String p = JsonPath.ROOT;
        for (int i = 0; i < segments; i++) {
            p = keys[i] == null ? JsonPath.item(p, items[i]) : JsonPath.member(p, keys[i]);
        }
        return p;
    }

    private void enter() {
        if (++depth > limits.maxDepth()) {
            throw error("nested deeper than the limit of " + limits.maxDepth() + " levels");
        }
    }

    private String string() {
        int start = pos + 1;
        int end = Math.min(text.length(), start + limits.maxStringChars());
        for (int i = start; i < end; i++) {   // most strings: no escape, nothing to refuse — one copy
            char c = text.charAt(i);
            if (c == '"') {
                pos = i + 1;
                return text.substring(start, i);
            }
            if (c == '\\' || c < 0x20) {
                break;
            }
        }
        StringBuilder sb = new StringBuilder();
        pos++;
        while (true) {
            if (pos >= text.length()) {
                throw error("the document ends inside a string");
            }
            char c = text.charAt(pos);
            if (c == '"') {
                pos++;
                return sb.toString();
            }
            if (c == '\n' || c == '\r') {
                throw error("a string is not closed before the end of the line (write a line break as \\n)");
            }
            if (c < 0x20) {
                throw error(String.format("control character U+%04X in a string; write it as \\u%04x", (int) c, (int) c));
            }
            if (sb.length() >= limits.maxStringChars()) {
                throw error("a string is longer than the limit of " + limits.maxStringChars() + " characters");
            }
            pos++;
            if (c != '\\') {
                sb.append(c);
                continue;
            }
            escape(sb);
        }
    }

    private void escape(StringBuilder sb) {
        char e = peek();
        switch (e) {
            case '"', '\\', '/' -> sb.append(e);
            case 'b' -> sb.append('\b');
            case 'f' -> sb.append('\f');
            case 'n' -> sb.append('\n');
            case 'r' -> sb.append('\r');
            case 't' -> sb.append('\t');
            case 'u' -> {
                pos -= 1;
                char u = hex4();
                if (Character.isHighSurrogate(u)) {
                    if (!text.startsWith("\\u", pos + 1) || !Character.isLowSurrogate((char) hex4At(pos + 3))) {
                        pos -= 5;
                        throw error(String.format("\\u%04x is half of a surrogate pair, and the other half"
                                + " (\\udc00 to \\udfff) does not follow", (int) u));
                    }
                    pos++;
                    sb.append(u).append(hex4());
                } else if (Character.isLowSurrogate(u)) {
                    pos -= 5;
                    throw error(String.format("\\u%04x is the second half of a surrogate pair without a first"
                            + " half (\\ud800 to \\udbff) before it", (int) u));
                } else {
                    sb.append(u);
                }
            }
            default -> {
                pos--;
                throw error(pos + 1 >= text.length() ? "the document ends inside a string"
                        : "bad escape '\\" + Text.escape(String.valueOf(e)) + "'; use \\\" \\\\ \\/ \\b \\f \\n \\r \\t or \\uXXXX");
            }
        }
        pos++;
    }

    /** At {@code pos} is the backslash of a {@code \\uXXXX}; reads it and moves past its last digit. */
    private char hex4() {
        int v = hex4At(pos + 2);
        if (v < 0) {
            throw error("bad escape: \\u must be followed by four hex digits");
        }
        pos += 5;
        return (char) v;
    }

    private int hex4At(int p) {
        if (p + 4 > text.length()) {
            return -1;
        }
        int v = 0;
        for (int i = p; i < p + 4; i++) {
            char c = text.charAt(i);
            int d = c < 0x80 ? Character.digit(c, 16) : -1;
            if (d < 0) {
                return -1;
            }
            v = v * 16 + d;
        }
        return v;
    }

    private JsonNumber number(JsonPosition at) {
        int start = pos;
        if (peek() == '-') {
            pos++;
            if (Character.isLetter(peek())) { // -Infinity
                pos = start + 1;
                while (pos < text.length() && pos - start <= 40 && Character.isLetterOrDigit(text.charAt(pos))) {
                    pos++;
                }
                String w = text.substring(start, pos);
                pos = start;
                throw error("'" + Text.escape(w) + "' is not a JSON value (JSON has no NaN or Infinity)");
            }
        }
        if (peek() == '0' && pos + 1 < text.length() && Character.isDigit(text.charAt(pos + 1))) {
            throw error("a number must not start with 0 (leading zeros are not allowed)");
        }
        digits("expected a digit");
        if (peek() == '.') {
            pos++;
            digits("expected a digit after '.'");
        }
        if (peek() == 'e' || peek() == 'E') {
            pos++;
            if (peek() == '+' || peek() == '-') {
                pos++;
            }
            digits("expected a digit in the exponent");
        }
        if (pos - start > limits.maxNumberChars()) {
            pos = start;
            throw error("a number is longer than the limit of " + limits.maxNumberChars() + " characters");
        }
        return new JsonNumber(text.substring(start, pos), at);
    }

    private void digits(String otherwise) {
        int start = pos;
        while (pos < text.length() && text.charAt(pos) >= '0' && text.charAt(pos) <= '9') {
            pos++;
        }
        if (pos == start) {
            throw error(otherwise);
        }
    }

    private JsonValue word(JsonPosition at) {
        int start = pos;
        while (pos < text.length() && pos - start <= 40 && Character.isLetterOrDigit(text.charAt(pos))) {
            pos++;
        }
        String w = text.substring(start, pos);
        switch (w) {
            case "true":
                return new JsonBoolean(true, at);
            case "false":
                return new JsonBoolean(false, at);
            case "null":
                return new JsonNull(at);
            default:
                break;
        }
        pos = start;
        char c = text.charAt(pos);
        String mistake = notJson(c);
        if (w.isEmpty()) {
            throw error(mistake != null ? mistake
                    : c == '+' ? "a number must not start with '+'"
                    : c == '.' ? "a number must start with a digit"
                    : "expected a value (an object, array, string, number, true, false or null), got '"
                            + Text.escape(String.valueOf(c)) + "'");
        }
        throw error("'" + Text.escape(w) + "' is not a JSON value"
                + (w.equals("NaN") || w.startsWith("Infinity") ? " (JSON has no NaN or Infinity)" : "; strings need double quotes"));
    }

    /** What a character that starts no JSON token is, when it is a common mistake; null otherwise. */
    private static String notJson(char c) {
        return c == '\'' ? "strings need double quotes, not single quotes"
                : c == '/' || c == '#' ? "comments are not allowed in JSON"
                : null;
    }

    private void skipSpace() {
        while (pos < text.length()) {
            char c = text.charAt(pos);
            if (c == '\n') {
                line++;
                lineStart = pos + 1;
            } else if (c != ' ' && c != '\t' && c != '\r') {
                return;
            }
            pos++;
        }
    }

    private char peek() {
        return pos < text.length() ? text.charAt(pos) : '\0';
    }

    private JsonPosition here() {
        return new JsonPosition(line, pos - lineStart + 1);
    }

    private JsonSyntaxException error(String message) {
        return new JsonSyntaxException(new JsonProblem(source, here(), path(), "not valid JSON: " + message));
    }
}

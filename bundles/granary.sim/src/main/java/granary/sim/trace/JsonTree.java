package granary.sim.trace;

import java.math.BigDecimal;
import java.util.HashMap;
import java.util.Map;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonNull;
import com.google.gson.JsonObject;
import com.google.gson.JsonPrimitive;

/**
 * A strict JSON parser that remembers where every value starts (line and column, 1-based), keyed
 * by its JSON path ({@code $.jobs[3].units[0].slot.cpu}), so that a problem found later — by this
 * reader or by {@link granary.codec.JobCodec} — points at the place in the file. Syntax errors name
 * the line and column. Keys given twice in one object are errors.
 */
final class JsonTree {

    private final String file;
    private final String text;
    private final Map<String, long[]> positions = new HashMap<>();
    private int pos;
    private long line = 1;
    private int lineStart;
    private JsonElement root;

    private JsonTree(String file, String text) {
        this.file = file;
        this.text = text;
    }

    static JsonTree parse(String file, String text) {
        JsonTree t = new JsonTree(file, text);
        t.root = t.value("$");
        t.skipSpace();
        if (t.pos < t.text.length()) {
            throw t.error("unexpected content after the JSON document");
        }
        return t;
    }

    JsonElement root() {
        return root;
    }

    /** The position of the value at {@code path}, or of its nearest enclosing value. */
    TraceException.Problem problem(String path, String message) {
        String p = path;
        while (!positions.containsKey(p) && p.length() > 1) {
            int cut = Math.max(p.lastIndexOf('.'), p.lastIndexOf('['));
            p = cut > 0 ? p.substring(0, cut) : "$";
        }
        long[] at = positions.getOrDefault(p, new long[] {1, 1});
        return new TraceException.Problem(file, at[0], (int) at[1], path + ": " + message);
    }

    private JsonElement value(String path) {
        skipSpace();
        positions.put(path, new long[] {line, pos - lineStart + 1});
        if (pos >= text.length()) {
            throw error("unexpected end of the document, expected a value");
        }
        char c = text.charAt(pos);
        return switch (c) {
            case '{' -> object(path);
            case '[' -> array(path);
            case '"' -> new JsonPrimitive(string());
            case 't', 'f', 'n' -> literal();
            default -> number();
        };
    }

    private JsonObject object(String path) {
        JsonObject o = new JsonObject();
        pos++;
        skipSpace();
        if (peek() == '}') {
            pos++;
            return o;
        }
        while (true) {
            skipSpace();
            if (peek() != '"') {
                throw error("expected a key in double quotes");
            }
            int keyLine = (int) line;
            int keyCol = pos - lineStart + 1;
            String key = string();
            if (o.has(key)) {
                throw new TraceException(file, keyLine, keyCol, path + "." + key + ": key '" + key + "' is given twice in the same object");
            }
            skipSpace();
            expect(':');
            o.add(key, value(path + "." + key));
            skipSpace();
            char c = peek();
            pos++;
            if (c == '}') {
                return o;
            }
            if (c != ',') {
                pos--;
                throw error("expected ',' or '}'");
            }
        }
    }

    private JsonArray array(String path) {
        JsonArray a = new JsonArray();
        pos++;
        skipSpace();
        if (peek() == ']') {
            pos++;
            return a;
        }
        while (true) {
            a.add(value(path + "[" + a.size() + "]"));
            skipSpace();
            char c = peek();
            pos++;
            if (c == ']') {
                return a;
            }
            if (c != ',') {
                pos--;
                throw error("expected ',' or ']'");
            }
        }
    }

    private String string() {
        StringBuilder sb = new StringBuilder();
        pos++;
        while (true) {
            if (pos >= text.length() || text.charAt(pos) == '\n') {
                throw error("a string is not closed");
            }
            char c = text.charAt(pos++);
            if (c == '"') {
                return sb.toString();
            }
            if (c != '\\') {
                sb.append(c);
                continue;
            }
            char e = pos < text.length() ? text.charAt(pos++) : ' ';
            switch (e) {
                case '"', '\\', '/' -> sb.append(e);
                case 'b' -> sb.append('\b');
                case 'f' -> sb.append('\f');
                case 'n' -> sb.append('\n');
                case 'r' -> sb.append('\r');
                case 't' -> sb.append('\t');
                case 'u' -> {
                    if (pos + 4 > text.length()) {
                        throw error("bad \\u escape");
                    }
                    try {
                        sb.append((char) Integer.parseInt(text.substring(pos, pos + 4), 16));
                    } catch (NumberFormatException ex) {
                        throw error("bad \\u escape");
                    }
                    pos += 4;
                }
                default -> throw error("bad escape \\" + e);
            }
        }
    }

    private JsonElement literal() {
        for (String word : new String[] {"true", "false", "null"}) {
            if (text.startsWith(word, pos)) {
                pos += word.length();
                return word.equals("null") ? JsonNull.INSTANCE : new JsonPrimitive(Boolean.parseBoolean(word));
            }
        }
        throw error("expected a value (an object, array, string, number, true, false or null)");
    }

    private JsonElement number() {
        int start = pos;
        while (pos < text.length() && "+-0123456789.eE".indexOf(text.charAt(pos)) >= 0) {
            pos++;
        }
        String n = text.substring(start, pos);
        if (n.isEmpty() || !n.matches("-?(0|[1-9][0-9]*)(\\.[0-9]+)?([eE][+-]?[0-9]+)?")) {
            pos = start;
            throw error(n.isEmpty() ? "expected a value (an object, array, string, number, true, false or null)"
                    : "'" + n + "' is not a JSON number");
        }
        return new JsonPrimitive(new BigDecimal(n));
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

    private void expect(char c) {
        if (peek() != c) {
            throw error("expected '" + c + "'");
        }
        pos++;
    }

    private TraceException error(String message) {
        return new TraceException(file, line, pos - lineStart + 1, "not valid JSON: " + message);
    }
}

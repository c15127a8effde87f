package granary.codec.json;

/**
 * Writes a {@link JsonValue} as indented JSON (two spaces) for files people read, or compact (no
 * whitespace) for the wire; members in their order. Strings are escaped so that the output is
 * plain JSON that {@link JsonReader} reads back to the same values.
 */
public final class JsonWriter {

    private JsonWriter() {
    }

    public static String write(JsonValue v) {
        StringBuilder sb = new StringBuilder();
        write(v, sb, "");
        return sb.toString();
    }

    /** The same JSON without any whitespace between tokens. */
    public static String compact(JsonValue v) {
        StringBuilder sb = new StringBuilder();
        write(v, sb, null);
        return sb.toString();
    }

    /** {@code indent} null: compact. */
    private static void write(JsonValue v, StringBuilder sb, String indent) {
        if (indent == null && (v instanceof JsonObject || v instanceof JsonArray)) {
            compactContainer(v, sb);
            return;
        }
        if (v instanceof JsonObject o) {
            if (o.size() == 0) {
                sb.append("{}");
                return;
            }
            sb.append("{\n");
            String inner = indent + "  ";
            for (int i = 0; i < o.size(); i++) {
                JsonObject.Member m = o.members().get(i);
                sb.append(inner);
                string(m.key(), sb);
                sb.append(": ");
                write(m.value(), sb, inner);
                sb.append(i + 1 < o.size() ? ",\n" : "\n");
            }
            sb.append(indent).append('}');
        } else if (v instanceof JsonArray a) {
            if (a.size() == 0) {
                sb.append("[]");
                return;
            }
            sb.append("[\n");
            String inner = indent + "  ";
            for (int i = 0; i < a.size(); i++) {
                sb.append(inner);
                write(a.get(i), sb, inner);
                sb.append(i + 1 < a.size() ? ",\n" : "\n");
            }
            sb.append(indent).append(']');
        } else if (v instanceof JsonString s) {
            string(s.value(), sb);
        } else if (v instanceof JsonNumber n) {
            sb.append(n.text());
        } else if (v instanceof JsonBoolean b) {
            sb.append(b.value());
        } else {
            sb.append("null");
        }
    }

    private static void compactContainer(JsonValue v, StringBuilder sb) {
        if (v instanceof JsonObject o) {
            sb.append('{');
            for (int i = 0; i < o.size(); i++) {
                JsonObject.Member m = o.members().get(i);
                if (i > 0) {
                    sb.append(',');
                }
                string(m.key(), sb);
                sb.append(':');
                write(m.value(), sb, null);
            }
            sb.append('}');
        } else {
            JsonArray a = (JsonArray) v;
            sb.append('[');
            for (int i = 0; i < a.size(); i++) {
                if (i > 0) {
                    sb.append(',');
                }
                write(a.get(i), sb, null);
            }
            sb.append(']');
        }
    }

    private static void string(String s, StringBuilder sb) {
        sb.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                case '\n' -> sb.append("\\n");
                case '\r' -> sb.append("\\r");
                case '\t' -> sb.append("\\t");
                default -> {
                    if (c < 0x20 || c == 0x7f || c >= 0x202a && c <= 0x202e || c >= 0x2066 && c <= 0x2069
                            || c == 0x2028 || c == 0x2029) {
                        sb.append(String.format("\\u%04x", (int) c));
                    } else {
                        sb.append(c);
                    }
                }
            }
        }
        sb.append('"');
    }
}

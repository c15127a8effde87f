package granary.api.model;

/**
 * Makes text taken from an input safe to echo in a message. A value read from a file or a request
 * may hold newlines, terminal escapes (ANSI {@code ESC [}), NUL or bidirectional overrides that
 * would rewrite what an operator sees, and it may be megabytes long; a message repeats it once per
 * problem. So every echoed value goes through {@link #quote} or {@link #escape}: control
 * characters, line and paragraph separators, DEL and the bidi controls U+202A–U+202E and
 * U+2066–U+2069 are written as escapes ({@code \n}, {@code \t}, {@code \u001B}, ...), and the value
 * is cut after {@value #MAX_CHARS} characters, with a marker giving its full length.
 */
public final class Text {

    /** Characters of a value that are echoed before it is cut. */
    public static final int MAX_CHARS = 200;

    private Text() {
    }

    /**
     * The value in double quotes, escaped and cut: {@code "abc"}, {@code "a\nb"},
     * {@code "aaaa…" (12288 chars)}; {@code null} gives {@code null}.
     */
    public static String quote(String s) {
        if (s == null) {
            return "null";
        }
        String body = escape(s.length() > MAX_CHARS ? cut(s) : s).replace("\"", "\\\"");
        return '"' + body + (s.length() > MAX_CHARS ? "…\" (" + s.length() + " chars)" : "\"");
    }

    /**
     * The value escaped and cut, without quotes, for messages that already delimit it
     * ({@code 'abc'}, {@code entry 'x:y'}): {@code "aaaa… (12288 chars)"} when it is long.
     */
    public static String escape(String s) {
        if (s == null) {
            return "null";
        }
        boolean longer = s.length() > MAX_CHARS;
        String t = longer ? cut(s) : s;
        StringBuilder sb = null;
        for (int i = 0; i < t.length(); i++) {
            char c = t.charAt(i);
            String e = escapeOf(c);
            if (e != null && sb == null) {
                sb = new StringBuilder(t.length() + 16).append(t, 0, i);
            }
            if (sb != null) {
                sb.append(e != null ? e : String.valueOf(c));
            }
        }
        String out = sb == null ? t : sb.toString();
        return longer ? out + "… (" + s.length() + " chars)" : out;
    }

    /** The first {@link #MAX_CHARS} characters, not splitting a surrogate pair. */
    private static String cut(String s) {
        int end = MAX_CHARS;
        if (Character.isHighSurrogate(s.charAt(end - 1))) {
            end--;
        }
        return s.substring(0, end);
    }

    private static String escapeOf(char c) {
        switch (c) {
            case '\n': return "\\n";
            case '\r': return "\\r";
            case '\t': return "\\t";
            case '\\': return "\\\\";
            default:
                break;
        }
        boolean unsafe = c < 0x20 || c == 0x7f || c >= 0x80 && c < 0xa0
                || c >= 0x202a && c <= 0x202e || c >= 0x2066 && c <= 0x2069
                || c == 0x2028 || c == 0x2029 || c == 0x200e || c == 0x200f || c == 0x061c;
        return unsafe ? String.format("\\u%04X", (int) c) : null;
    }
}

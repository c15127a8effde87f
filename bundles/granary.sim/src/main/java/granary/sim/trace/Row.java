package granary.sim.trace;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;

/**
 * One data line split into fields, each with the column (1-based character position) where it
 * starts, and typed accessors whose errors name the line, the column, the field and the value.
 * Fields are separated by commas (CSV, with optional double quotes) or by whitespace (SWF).
 */
public final class Row {

    private final String file;
    private final long line;
    private final String text;
    private final List<String> fields;
    private final List<Integer> columns;
    private final String[] names;

    private Row(String file, long line, String text, List<String> fields, List<Integer> columns, String[] names) {
        this.file = file;
        this.line = line;
        this.text = text;
        this.fields = fields;
        this.columns = columns;
        this.names = names;
    }

    /** Splits a CSV line; quoted fields may hold commas, {@code ""} is a quote. */
    public static Row csv(String file, long line, String text, String[] names) {
        List<String> f = new ArrayList<>();
        List<Integer> c = new ArrayList<>();
        int i = 0;
        int n = text.length();
        while (true) {
            c.add(i + 1);
            StringBuilder sb = new StringBuilder();
            if (i < n && text.charAt(i) == '"') {
                i++;
                while (i < n && !(text.charAt(i) == '"' && (i + 1 >= n || text.charAt(i + 1) != '"'))) {
                    if (text.charAt(i) == '"') {
                        i++;
                    }
                    sb.append(text.charAt(i++));
                }
                if (i >= n) {
                    throw new TraceException(file, line, c.get(c.size() - 1), "a quoted field is not closed");
                }
                i++;
            }
            while (i < n && text.charAt(i) != ',') {
                sb.append(text.charAt(i++));
            }
            f.add(sb.toString());
            if (i >= n) {
                break;
            }
            i++;   // the comma
        }
        return new Row(file, line, text, f, c, names);
    }

    /** Splits on runs of spaces and tabs (SWF). */
    public static Row whitespace(String file, long line, String text, String[] names) {
        List<String> f = new ArrayList<>();
        List<Integer> c = new ArrayList<>();
        int i = 0;
        int n = text.length();
        while (i < n) {
            while (i < n && Character.isWhitespace(text.charAt(i))) {
                i++;
            }
            if (i >= n) {
                break;
            }
            int start = i;
            while (i < n && !Character.isWhitespace(text.charAt(i))) {
                i++;
            }
            f.add(text.substring(start, i));
            c.add(start + 1);
        }
        return new Row(file, line, text, f, c, names);
    }

    public int size() {
        return fields.size();
    }

    public long line() {
        return line;
    }

    /** {@code file:line}. */
    public String where() {
        return file + ":" + line;
    }

    public String file() {
        return file;
    }

    /** Checks the field count; the error points at the end of the line. */
    public Row expect(int count) {
        if (fields.size() != count) {
            throw error(fields.size() < count ? text.length() + 1 : columns.get(count),
                    "expected " + count + " fields (" + String.join(", ", names) + "), got " + fields.size());
        }
        return this;
    }

    /** The raw text of field {@code i} (0-based), trimmed. */
    public String text(int i) {
        return fields.get(i).trim();
    }

    public boolean empty(int i) {
        return text(i).isEmpty();
    }

    /** A whole number; {@code 12.0} is accepted as 12. */
    public long integer(int i) {
        String t = text(i);
        try {
            return Long.parseLong(t);
        } catch (NumberFormatException e) {
            try {
                BigDecimal d = new BigDecimal(t);
                if (d.stripTrailingZeros().scale() <= 0) {
                    return d.longValueExact();
                }
            } catch (NumberFormatException | ArithmeticException ignored) {
                // reported below
            }
            throw bad(i, "expected a whole number, got '" + t + "'");
        }
    }

    /** A decimal number. */
    public double decimal(int i) {
        String t = text(i);
        try {
            double d = Double.parseDouble(t);
            if (Double.isNaN(d) || Double.isInfinite(d) || t.endsWith("d") || t.endsWith("f") || t.endsWith("D") || t.endsWith("F")) {
                throw new NumberFormatException();
            }
            return d;
        } catch (NumberFormatException e) {
            throw bad(i, "expected a number, got '" + t + "'");
        }
    }

    /** An error about field {@code i}: {@code file:line:column: field N (name): message}. */
    public TraceException bad(int i, String message) {
        String name = names != null && i < names.length ? " (" + names[i] + ")" : "";
        return error(columns.get(Math.min(i, columns.size() - 1)), "field " + (i + 1) + name + ": " + message);
    }

    /** An error about the line as a whole. */
    public TraceException error(int column, String message) {
        return new TraceException(file, line, column, message);
    }

    /** The column where field {@code i} starts. */
    public int column(int i) {
        return columns.get(i);
    }
}

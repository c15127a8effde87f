package granary.sim.trace;

import java.util.Map;
import java.util.TreeMap;

import granary.api.model.InvalidRequestException;
import granary.api.model.Options;

/**
 * The mapping options of one reader ({@code --trace-option key=value}), checked against the names
 * the reader documents: an unknown name is an error that lists the known ones.
 */
public final class TraceOptions {

    private final String subject;
    private final Map<String, String> values;
    private final Options options;

    /** @param known option name → description */
    public TraceOptions(String format, Map<String, String> values, Map<String, String> known) {
        this.subject = "trace " + format;
        this.values = new TreeMap<>(values);
        this.options = new Options(subject, values, known.keySet());
    }

    public String text(String name, String dflt) {
        return options.text(name, dflt).trim();
    }

    public long number(String name, long dflt) {
        return options.number(name, dflt);
    }

    public boolean flag(String name, boolean dflt) {
        return options.flag(name, dflt);
    }

    public double decimal(String name, double dflt) {
        String v = values.get(name);
        if (v == null) {
            return dflt;
        }
        try {
            return Double.parseDouble(v.trim());
        } catch (NumberFormatException e) {
            throw new InvalidRequestException(subject, name, "'" + v + "' is not a number");
        }
    }

    /** One of the given words (case-insensitive), returned in lower case. */
    public String choice(String name, String dflt, String... allowed) {
        String v = text(name, dflt).toLowerCase();
        for (String a : allowed) {
            if (a.equalsIgnoreCase(v)) {
                return a;
            }
        }
        throw new InvalidRequestException(subject, name, "'" + v + "' is not one of " + String.join(", ", allowed));
    }

    /** A problem with an option's value. */
    public InvalidRequestException bad(String name, String message) {
        return new InvalidRequestException(subject, name, message);
    }

    /** The options as given, for the results. */
    public Map<String, String> given() {
        return values;
    }

    /** {@code badRows}: true to skip (and count) bad rows, false (the default) to fail on them. */
    public boolean skipBadRows() {
        return "skip".equals(choice("badRows", "fail", "fail", "skip"));
    }

    /** {@code limit}: how many data rows to read at most; 0 (the default) reads all. */
    public long limit() {
        long n = number("limit", 0);
        if (n < 0) {
            throw bad("limit", "must not be negative, got " + n);
        }
        return n == 0 ? Long.MAX_VALUE : n;
    }
}

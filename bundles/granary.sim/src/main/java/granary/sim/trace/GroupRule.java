package granary.sim.trace;

import java.util.Map;
import java.util.TreeMap;
import java.util.function.UnaryOperator;

import granary.api.model.InvalidRequestException;
import granary.api.model.Names;

/**
 * Which group (the queue or funded group a policy knows it by) a replayed job goes to, option {@code group}:
 * <ul>
 *   <li>{@code const:NAME} — every job in group NAME (default {@code const:default});</li>
 *   <li>{@code hash:N} — jobs spread over N groups {@code g0 .. g<N-1>} by their job id
 *       (String.hashCode, the same on every JVM);</li>
 *   <li>a column of the trace, e.g. {@code user} for SWF or {@code qos} for the GPU trace — the
 *       group is the column's value with a prefix ({@code user-4}, {@code qos-LS}).</li>
 * </ul>
 */
public final class GroupRule {

    private final String constant;
    private final int buckets;
    private final String column;
    private final String prefix;

    private GroupRule(String constant, int buckets, String column, String prefix) {
        this.constant = constant;
        this.buckets = buckets;
        this.column = column;
        this.prefix = prefix;
    }

    /**
     * @param columns the columns this trace offers: name → prefix of the group name
     */
    public static GroupRule parse(String format, String text, Map<String, String> columns) {
        String subject = "trace " + format;
        String t = text.trim();
        if (t.startsWith("const:")) {
            String name = t.substring(6).trim();
            if (!Names.isValid(name)) {
                throw new InvalidRequestException(subject, "group", "'" + name + "' is not a valid group name: " + Names.RULE);
            }
            return new GroupRule(name, 0, null, null);
        }
        if (t.startsWith("hash:")) {
            try {
                int n = Integer.parseInt(t.substring(5).trim());
                if (n >= 1) {
                    return new GroupRule(null, n, null, null);
                }
            } catch (NumberFormatException e) {
                // reported below
            }
            throw new InvalidRequestException(subject, "group", "'" + t + "': hash:N needs a whole number N >= 1");
        }
        if (columns.containsKey(t)) {
            return new GroupRule(null, 0, t, columns.get(t));
        }
        throw new InvalidRequestException(subject, "group", "'" + t + "' is not const:NAME, hash:N"
                + (columns.isEmpty() ? "" : " or one of the columns " + String.join(", ", new TreeMap<>(columns).keySet())));
    }

    /** The rule's column, or null. */
    public String column() {
        return column;
    }

    /**
     * @param jobKey the job's id (for hash)
     * @param value  reads a column's value (for column rules)
     */
    public String group(String jobKey, UnaryOperator<String> value) {
        if (constant != null) {
            return constant;
        }
        if (buckets > 0) {
            return "g" + Math.floorMod(jobKey.hashCode(), buckets);
        }
        return prefix + sanitize(value.apply(column));
    }

    /** A valid name from arbitrary text: every other character becomes '_'. */
    public static String sanitize(String s) {
        StringBuilder sb = new StringBuilder(s.length());
        for (int i = 0; i < s.length() && sb.length() < 150; i++) {
            char c = s.charAt(i);
            sb.append(Character.isLetterOrDigit(c) || c == '.' || c == '_' || c == '-' || c == ':' || c == '@' ? c : '_');
        }
        return sb.length() == 0 ? "_" : sb.toString();
    }
}

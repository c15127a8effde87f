package granary.api.model;

import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/** Reads text options (of a policy provider, a command line) with errors that name the option. */
public final class Options {

    private final String subject;
    private final Map<String, String> values;

    /**
     * @param subject names the owner in errors, e.g. {@code policy quota}
     * @param known   the option names accepted; any other is an error listing these
     */
    public Options(String subject, Map<String, String> values, Set<String> known) {
        this.subject = subject;
        this.values = values;
        for (String k : values.keySet()) {
            if (!known.contains(k)) {
                throw new InvalidRequestException(subject, k, "unknown option; known: " + String.join(", ", new TreeSet<>(known)));
            }
        }
    }

    public String text(String name, String dflt) {
        return values.getOrDefault(name, dflt);
    }

    public long number(String name, long dflt) {
        String v = values.get(name);
        if (v == null) {
            return dflt;
        }
        try {
            return Long.parseLong(v.trim());
        } catch (NumberFormatException e) {
            throw new InvalidRequestException(subject, name, "'" + Text.escape(v) + "' is not a whole number");
        }
    }

    public boolean flag(String name, boolean dflt) {
        String v = values.get(name);
        if (v == null) {
            return dflt;
        }
        if (v.equalsIgnoreCase("true") || v.equalsIgnoreCase("false")) {
            return Boolean.parseBoolean(v);
        }
        throw new InvalidRequestException(subject, name, "'" + Text.escape(v) + "' is neither true nor false");
    }

    public <E extends Enum<E>> E choice(String name, Class<E> type, E dflt) {
        String v = values.get(name);
        if (v == null) {
            return dflt;
        }
        try {
            return Enum.valueOf(type, v.trim().toUpperCase());
        } catch (IllegalArgumentException e) {
            Set<String> names = new TreeSet<>();
            for (E c : type.getEnumConstants()) {
                names.add(c.name());
            }
            throw new InvalidRequestException(subject, name, "'" + Text.escape(v) + "' is not one of " + String.join(", ", names));
        }
    }
}

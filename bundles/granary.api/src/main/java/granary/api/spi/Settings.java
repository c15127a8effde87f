package granary.api.spi;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/** The parsed, checked options of one policy instance: what its factory builds it from. */
public final class Settings {

    private final String subject;
    private final Map<String, Object> values;

    Settings(String subject, Map<String, Object> values) {
        this.subject = subject;
        this.values = Collections.unmodifiableMap(new LinkedHashMap<>(values));
    }

    /** The value of a declared option (its default when not given). */
    public <T> T get(OptionSpec<T> option) {
        if (!values.containsKey(option.name())) {
            throw new IllegalArgumentException(subject + " declares no option " + option.name());
        }
        return option.javaType().cast(values.get(option.name()));
    }

    /**
     * Reads what an option names (a file, typically) with {@code reader}; a problem the reader
     * reports is re-worded to name the option too, so that an operator sees which setting pointed at
     * the bad input: {@code policy quota: tableFile: quota.json:3:9: $.default.g.GroupId: ...}.
     */
    public <T, R> R read(OptionSpec<T> option, java.util.function.Function<T, R> reader) {
        try {
            return reader.apply(get(option));
        } catch (granary.api.model.InvalidRequestException e) {
            // the policy's own problems (e.g. about another option) stay as they are
            throw new granary.api.model.InvalidRequestException(e.problems().stream()
                    .map(p -> subject.equals(p.subject()) ? p
                            : granary.api.model.Problem.of(subject, option.name(), p.toString()))
                    .toList());
        }
    }

    /** Names the policy in errors, e.g. {@code policy quota}. */
    public String subject() {
        return subject;
    }

    /** Every option as text, in declaration order (for status and usage). */
    public Map<String, Object> values() {
        return values;
    }
}

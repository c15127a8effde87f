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

    /** Names the policy in errors, e.g. {@code policy quota}. */
    public String subject() {
        return subject;
    }

    /** Every option as text, in declaration order (for status and usage). */
    public Map<String, Object> values() {
        return values;
    }
}

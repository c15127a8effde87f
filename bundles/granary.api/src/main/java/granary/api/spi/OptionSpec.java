package granary.api.spi;

import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;
import java.util.stream.Collectors;

import granary.api.model.InvalidRequestException;

/**
 * One option of a policy, declared once in its {@link PolicyDeclaration}: name, type, default and
 * description. Everything else follows from it: the runtime's configuration (Config Admin PID
 * {@code granary.policy.<name>}) and its metatype description, the {@code name:key=value} options of
 * the simulator and other class-path users, and the parsing with errors that name the option.
 *
 * @param <T> the value's Java type: {@link String}, {@link Boolean}, {@link Long} or an enum
 */
public final class OptionSpec<T> {

    /** The kinds of value; the metatype type follows from it. */
    public enum Type { TEXT, FLAG, NUMBER, CHOICE }

    /** Checks a parsed value; throws {@link IllegalArgumentException} with what is wrong. */
    @FunctionalInterface
    public interface Check<T> {
        void check(T value);
    }

    private final String name;
    private final Type type;
    private final Class<T> javaType;
    private final T dflt;
    private final String description;
    private final Function<String, T> parser;
    private final List<String> choices;
    private final Check<T> check;
    private final String commandLine;

    private OptionSpec(String name, Type type, Class<T> javaType, T dflt, String description, Function<String, T> parser,
                       List<String> choices, Check<T> check, String commandLine) {
        if (name == null || !name.matches("[a-z][A-Za-z0-9]*")) {
            throw new IllegalArgumentException("an option name is a lower camel case word, got '" + name + "'");
        }
        this.name = name;
        this.type = type;
        this.javaType = javaType;
        this.dflt = Objects.requireNonNull(dflt, "default of option " + name);
        this.description = Objects.requireNonNull(description, "description of option " + name);
        this.parser = parser;
        this.choices = List.copyOf(choices);
        this.check = check;
        this.commandLine = commandLine;
    }

    /** A text option; empty text is a value like any other. */
    public static OptionSpec<String> text(String name, String dflt, String description) {
        return new OptionSpec<>(name, Type.TEXT, String.class, dflt, description, s -> s, List.of(), v -> { }, null);
    }

    /** A true / false option. */
    public static OptionSpec<Boolean> flag(String name, boolean dflt, String description) {
        return new OptionSpec<>(name, Type.FLAG, Boolean.class, dflt, description, s -> {
            if (s.equalsIgnoreCase("true") || s.equalsIgnoreCase("false")) {
                return Boolean.parseBoolean(s);
            }
            throw new IllegalArgumentException("'" + granary.api.model.Text.escape(s) + "' is neither true nor false");
        }, List.of(), v -> { }, null);
    }

    /** A whole number between {@code min} and {@code max}. */
    public static OptionSpec<Long> number(String name, long dflt, long min, long max, String description) {
        Check<Long> range = v -> {
            if (v < min || v > max) {
                throw new IllegalArgumentException((max == Long.MAX_VALUE ? "must be " + min + " or more"
                        : "must be between " + min + " and " + max) + ", got " + v);
            }
        };
        return new OptionSpec<>(name, Type.NUMBER, Long.class, dflt, description, s -> {
            try {
                return Long.parseLong(s.trim());
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("'" + granary.api.model.Text.escape(s) + "' is not a whole number");
            }
        }, List.of(), range, null);
    }

    /** One of an enum's constants, by name (case does not matter). */
    public static <E extends Enum<E>> OptionSpec<E> choice(String name, Class<E> type, E dflt, String description) {
        List<String> names = Arrays.stream(type.getEnumConstants()).map(Enum::name).sorted().collect(Collectors.toList());
        return new OptionSpec<>(name, Type.CHOICE, type, dflt, description, s -> {
            for (E c : type.getEnumConstants()) {
                if (c.name().equalsIgnoreCase(s.trim())) {
                    return c;
                }
            }
            throw new IllegalArgumentException("'" + granary.api.model.Text.escape(s) + "' is not one of " + String.join(", ", names));
        }, names, v -> { }, null);
    }

    /** The same option with one more check of its values (e.g. that a time zone exists). */
    public OptionSpec<T> checkedBy(Check<T> more) {
        Check<T> first = check;
        return new OptionSpec<>(name, type, javaType, dflt, description, parser, choices, v -> {
            first.check(v);
            more.check(v);
        }, commandLine);
    }

    /**
     * The same option, also settable with {@code --<flag> VALUE} on the simulator's command line
     * (e.g. the quota policy's table file as {@code --quota FILE}).
     */
    public OptionSpec<T> commandLine(String flag) {
        return new OptionSpec<>(name, type, javaType, dflt, description, parser, choices, check, flag);
    }

    public String name() {
        return name;
    }

    public Type type() {
        return type;
    }

    public Class<T> javaType() {
        return javaType;
    }

    public T defaultValue() {
        return dflt;
    }

    public String description() {
        return description;
    }

    /** The valid values of a {@link Type#CHOICE} option, else empty. */
    public List<String> choices() {
        return choices;
    }

    /** The simulator's {@code --flag} for this option, or null. */
    public String commandLineFlag() {
        return commandLine;
    }

    /**
     * Reads a value as configuration gives it: null is the default; text is parsed; a value of the
     * option's type (Config Admin hands over Boolean and Long) or a number for a number option is
     * taken as it is. Every value is checked.
     *
     * @param subject names the owner in errors, e.g. {@code policy quota}
     * @throws InvalidRequestException naming the subject and the option, with what is wrong
     */
    public T read(Object raw, String subject) {
        T value;
        try {
            if (raw == null) {
                value = dflt;
            } else if (javaType.isInstance(raw)) {
                value = javaType.cast(raw);
            } else if (type == Type.NUMBER && (raw instanceof Integer || raw instanceof Short || raw instanceof Byte)) {
                value = javaType.cast(((Number) raw).longValue());
            } else if (raw instanceof String s) {
                value = parser.apply(s);
            } else {
                throw new IllegalArgumentException("expected " + describeType() + ", got a " + raw.getClass().getSimpleName());
            }
            check.check(value);
        } catch (IllegalArgumentException e) {
            throw new InvalidRequestException(subject, name, e.getMessage());
        }
        return value;
    }

    /** The value as text, the way {@link #read} parses it back. */
    public String text(Object value) {
        return value instanceof Enum<?> e ? e.name() : String.valueOf(value);
    }

    private String describeType() {
        return switch (type) {
            case TEXT -> "text";
            case FLAG -> "true or false";
            case NUMBER -> "a whole number";
            case CHOICE -> "one of " + String.join(", ", choices);
        };
    }

    @Override
    public String toString() {
        return name + " (" + describeType() + ", default " + text(dflt) + ")";
    }
}

package granary.codec.json;

import java.math.BigDecimal;

/**
 * A number with its text as written ({@code 12.50}, {@code 1e3}); {@link JsonReader} has checked
 * that the text is a JSON number, so {@link #decimal} does not fail on read values.
 */
public record JsonNumber(String text, JsonPosition position) implements JsonValue {

    public BigDecimal decimal() {
        return new BigDecimal(text);
    }

    /** The value if it is a whole number that fits a long ({@code 5}, {@code 5.0}, {@code 5e2}), else null. */
    public Long wholeOrNull() {
        try {
            return decimal().longValueExact();
        } catch (ArithmeticException e) {
            return null;
        }
    }
}

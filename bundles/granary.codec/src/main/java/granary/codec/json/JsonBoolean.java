package granary.codec.json;

/** {@code true} or {@code false}. */
public record JsonBoolean(boolean value, JsonPosition position) implements JsonValue {
}

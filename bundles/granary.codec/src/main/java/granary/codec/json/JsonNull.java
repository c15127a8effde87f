package granary.codec.json;

/** {@code null}. */
public record JsonNull(JsonPosition position) implements JsonValue {
}

package granary.codec.json;

/** A string value, unescaped. */
public record JsonString(String value, JsonPosition position) implements JsonValue {
}

package granary.codec.json;

import granary.api.model.Text;

/**
 * A JSON value as read by {@link JsonReader}, with the place where it starts. Objects keep their
 * members in document order with each member's place; numbers keep their text, so that nothing is
 * rounded before a field decides what kind of number it needs. Values are equal when their content
 * and their positions are; to compare content alone, compare what {@link JsonWriter} writes.
 */
public sealed interface JsonValue permits JsonObject, JsonArray, JsonString, JsonNumber, JsonBoolean, JsonNull {

    /** Where the value starts; {@link JsonPosition#NONE} for a value built in code. */
    JsonPosition position();

    /**
     * What the value is, for messages: {@code an object}, {@code an array}, {@code the string "x"}
     * (escaped and cut by {@link Text#quote}), {@code the number 5}, {@code true}, {@code null}.
     */
    default String describe() {
        if (this instanceof JsonString s) {
            return "the string " + Text.quote(s.value());
        }
        if (this instanceof JsonNumber n) {
            return "the number " + Text.escape(n.text());
        }
        if (this instanceof JsonBoolean b) {
            return String.valueOf(b.value());
        }
        return this instanceof JsonObject ? "an object" : this instanceof JsonArray ? "an array" : "null";
    }

    static JsonString of(String s) {
        return new JsonString(s, JsonPosition.NONE);
    }

    static JsonNumber of(long n) {
        return new JsonNumber(Long.toString(n), JsonPosition.NONE);
    }

    static JsonBoolean of(boolean b) {
        return new JsonBoolean(b, JsonPosition.NONE);
    }
}

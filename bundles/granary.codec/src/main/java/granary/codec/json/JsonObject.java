package granary.codec.json;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * An object: its members in document order, each with the place of its key. Keys are unique
 * ({@link JsonReader} refuses a key given twice).
 */
public final class JsonObject implements JsonValue {

    /** One member; {@code keyPosition} is where its key starts. */
    public record Member(String key, JsonPosition keyPosition, JsonValue value) {
    }

    private final List<Member> members;
    private final Map<String, JsonValue> byKey;
    private final JsonPosition position;

    public JsonObject(List<Member> members, JsonPosition position) {
        this.members = List.copyOf(members);
        Map<String, JsonValue> m = new LinkedHashMap<>();
        for (Member x : this.members) {
            if (m.put(x.key(), x.value()) != null) {
                throw new IllegalArgumentException("key " + granary.api.model.Text.quote(x.key()) + " is given twice");
            }
        }
        this.byKey = Collections.unmodifiableMap(m);
        this.position = position;
    }

    @Override
    public JsonPosition position() {
        return position;
    }

    public List<Member> members() {
        return members;
    }

    /** The value of {@code key}, or null if there is no such member. */
    public JsonValue get(String key) {
        return byKey.get(key);
    }

    public boolean has(String key) {
        return byKey.containsKey(key);
    }

    public int size() {
        return members.size();
    }

    /** Builds an object in code (for writing), members in the order they are put. */
    public static Builder builder() {
        return new Builder();
    }

    /** Equal members in the same order, and the same position (like every {@link JsonValue}). */
    @Override
    public boolean equals(Object o) {
        return o instanceof JsonObject j && j.members.equals(members) && j.position.equals(position);
    }

    @Override
    public int hashCode() {
        return members.hashCode() * 31 + position.hashCode();
    }

    @Override
    public String toString() {
        return JsonWriter.write(this);
    }

    /** Collects members for {@link #builder()}. */
    public static final class Builder {
        private final List<Member> members = new ArrayList<>();

        public Builder put(String key, JsonValue v) {
            members.add(new Member(key, JsonPosition.NONE, v));
            return this;
        }

        public Builder put(String key, String v) {
            return put(key, JsonValue.of(v));
        }

        public Builder put(String key, long v) {
            return put(key, JsonValue.of(v));
        }

        public Builder put(String key, boolean v) {
            return put(key, JsonValue.of(v));
        }

        public JsonObject build() {
            return new JsonObject(members, JsonPosition.NONE);
        }
    }
}

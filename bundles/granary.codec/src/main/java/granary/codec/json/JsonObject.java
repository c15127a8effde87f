package granary.codec.json;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
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

    /** Objects of up to this many members are looked up member by member, with no map. */
    static final int FEW = 12;

    private final List<Member> members;
    /** By key, for objects of more than {@link #FEW} members; null for the others. */
    private final Map<String, JsonValue> byKey;
    private final JsonPosition position;

    public JsonObject(List<Member> members, JsonPosition position) {
        this(List.copyOf(members), position, true);
    }

    private JsonObject(List<Member> members, JsonPosition position, boolean check) {
        this.members = members;
        this.position = position;
        if (members.size() > FEW) {
            Map<String, JsonValue> m = new HashMap<>(members.size() * 2);
            for (Member x : members) {
                if (m.put(x.key(), x.value()) != null) {
                    throw new IllegalArgumentException("key " + granary.api.model.Text.quote(x.key()) + " is given twice");
                }
            }
            this.byKey = m;
        } else {
            this.byKey = null;
            for (int i = 0; check && i < members.size(); i++) {
                if (among(members.subList(0, i), members.get(i).key()) >= 0) {
                    throw new IllegalArgumentException("key " + granary.api.model.Text.quote(members.get(i).key()) + " is given twice");
                }
            }
        }
    }

    /**
     * An object as {@link JsonReader} reads it: {@code members} (keys unique, checked by the reader)
     * taken as they are, not copied.
     */
    static JsonObject read(List<Member> members, JsonPosition position) {
        return new JsonObject(Collections.unmodifiableList(members), position, false);
    }

    /** Where {@code key} is among {@code members}, looked at one by one, or -1. */
    static int among(List<Member> members, String key) {
        for (int i = 0; i < members.size(); i++) {
            if (members.get(i).key().equals(key)) {
                return i;
            }
        }
        return -1;
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
        if (byKey != null) {
            return byKey.get(key);
        }
        int i = among(members, key);
        return i < 0 ? null : members.get(i).value();
    }

    public boolean has(String key) {
        return byKey != null ? byKey.containsKey(key) : among(members, key) >= 0;
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

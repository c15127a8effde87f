package granary.codec.json;

import java.util.List;

/** An array; {@code items} is unmodifiable. */
public record JsonArray(List<JsonValue> items, JsonPosition position) implements JsonValue {

    public JsonArray {
        items = List.copyOf(items);
    }

    public int size() {
        return items.size();
    }

    public JsonValue get(int i) {
        return items.get(i);
    }
}

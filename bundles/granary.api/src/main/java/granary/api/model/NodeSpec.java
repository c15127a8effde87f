package granary.api.model;

import java.util.Map;
import java.util.TreeMap;

/**
 * A machine as it joins the cluster (docs/model.md, "Nodes, rooms and labels"): a unique name, the room (engine room, rack) it
 * stands in, its capacity, and its labels.
 *
 * @throws InvalidRequestException naming the field if a name is invalid or a capacity negative
 */
public record NodeSpec(String name, String room, Resources capacity, Map<String, String> labels) {

    public NodeSpec {
        labels = labels == null ? Map.of() : Map.copyOf(new TreeMap<>(labels));
        Checks c = new Checks("node " + name).name("name", name).name("room", room).nonNegative("capacity", capacity).bounded("capacity", capacity);
        labels.forEach((k, v) -> c.check(Names.isValid(k) && Names.isValid(v), "labels." + k,
                "label '" + Text.escape(k + "=" + v) + "' is not valid: " + Names.RULE));
        c.done();
    }

    public NodeSpec(String name, String room, Resources capacity) {
        this(name, room, capacity, Map.of());
    }
}

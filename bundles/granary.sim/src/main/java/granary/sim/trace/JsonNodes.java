package granary.sim.trace;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import granary.api.model.InvalidRequestException;
import granary.api.model.NodeSpec;
import granary.api.model.Resources;
import granary.api.model.Text;
import granary.codec.json.Json;
import granary.codec.json.JsonArray;
import granary.codec.json.JsonNumber;
import granary.codec.json.JsonObject;
import granary.codec.json.JsonPath;
import granary.codec.json.JsonString;
import granary.codec.json.JsonValue;

/**
 * Nodes in JSON (a cluster file, or the {@code nodes} of a workload file). Each entry is one node
 * or, with {@code count}, that many alike:
 * <pre>
 * {"name": "big-1", "room": "r1", "capacity": {"cpu": 9600, "mem": 524288, "gpu": 8}, "labels": {"disk": "ssd"}}
 * {"count": 100, "prefix": "r2-n", "room": "r2", "capacity": "cpu=6400,mem=262144"}
 * </pre>
 * {@code room} defaults to {@code r0}; without {@code prefix} nodes of a count are named
 * {@code <room>-n<index>} with the index zero-padded.
 */
final class JsonNodes {

    private static final Set<String> FIELDS = Set.of("name", "count", "prefix", "room", "capacity", "labels");

    private JsonNodes() {
    }

    static List<NodeSpec> read(Json f, JsonValue e, String path) {
        List<NodeSpec> nodes = new ArrayList<>();
        JsonArray a = f.array(e, path);
        Set<String> names = new HashSet<>();
        for (int i = 0; a != null && i < a.size(); i++) {
            String p = JsonPath.item(path, i);
            JsonObject o = f.object(a.get(i), p);
            if (o == null) {
                continue;
            }
            f.onlyKnown(o, p, FIELDS);
            String room = f.string(o, "room", p, "r0");
            Resources cap = resources(f, f.field(o, "capacity", p, true), p + ".capacity");
            Map<String, String> labels = f.labels(o, "labels", p);
            long count = f.integer(o, "count", p, 0L);
            String name = f.string(o, "name", p, count > 0 ? "" : null);
            String prefix = f.string(o, "prefix", p, room + "-n");
            if (count < 0 || count > 10_000_000 || count > 0 && !name.isEmpty()) {
                f.problem(o.get("count"), p + ".count", count > 0 ? "give either name or count, not both"
                        : "must be between 1 and 10000000, got " + count);
                continue;
            }
            if (cap == null) {
                continue;
            }
            int width = Long.toString(Math.max(1, count - 1)).length();
            for (long k = 0; k < Math.max(1, count); k++) {
                String n = count > 0 ? prefix + String.format("%0" + width + "d", k) : name;
                try {
                    NodeSpec s = new NodeSpec(n, room, cap, labels);
                    if (!names.add(n)) {
                        f.problem(o, p, "node name '" + Text.escape(n) + "' is used twice");
                        break;
                    }
                    nodes.add(s);
                } catch (InvalidRequestException ex) {
                    f.problem(o, p, ex.getMessage());
                    break;
                }
            }
        }
        return nodes;
    }

    /** {@code {"cpu": 9600, "mem": 524288, "gpu": 8}} or {@code "cpu=9600,mem=524288,gpu=8"}; amounts not below 0. */
    private static Resources resources(Json f, JsonValue e, String path) {
        if (e == null) {
            return null;
        }
        if (e instanceof JsonString s) {
            try {
                return Resources.parse(s.value());
            } catch (IllegalArgumentException ex) {
                f.problem(e, path, ex.getMessage());
                return null;
            }
        }
        JsonObject o = f.object(e, path);
        if (o == null) {
            return null;
        }
        long cpu = 0;
        long mem = 0;
        Map<String, Long> ext = new TreeMap<>();
        for (JsonObject.Member m : o.members()) {
            Long v = m.value() instanceof JsonNumber n ? n.wholeOrNull() : null;
            if (v == null || v < 0) {
                f.problem(m.value(), JsonPath.member(path, m.key()), "expected a whole number not below 0, got " + Json.kind(m.value()));
                continue;
            }
            switch (m.key()) {
                case "cpu" -> cpu = v;
                case "mem", "memMb" -> mem = v;
                default -> ext.put(m.key(), v);
            }
        }
        try {
            return Resources.of(cpu, mem, ext);
        } catch (IllegalArgumentException ex) {
            f.problem(e, path, ex.getMessage());
            return null;
        }
    }
}

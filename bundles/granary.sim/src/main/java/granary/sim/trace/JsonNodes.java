package granary.sim.trace;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import granary.api.model.InvalidRequestException;
import granary.api.model.NodeSpec;
import granary.api.model.Resources;
import granary.api.model.Text;
import granary.codec.JobCodec;
import granary.codec.json.Json;
import granary.codec.json.JsonArray;
import granary.codec.json.JsonObject;
import granary.codec.json.JsonPath;
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
            // the job format's resource vector: {"cpu": 9600, "mem": 524288, "gpu": 8} or "cpu=9600,mem=524288,gpu=8"
            int problems = f.count();
            Resources cap = JobCodec.resources(f, f.field(o, "capacity", p, true), p + ".capacity");
            if (f.count() > problems) {
                cap = null;   // said once, where it is wrong
            }
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
}

package granary.testkit;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import granary.api.model.NodeSpec;
import granary.api.model.Resources;

/**
 * Builders for clusters: nodes with a room, labels and a capacity. A "slot" here is the tests' usual
 * one-core slot of 100 cpu and 100 MiB ({@link Jobs#slots(int)}).
 */
public final class Clusters {

    /** Room of nodes built without one. */
    public static final String ROOM = "r1";

    private Clusters() {
    }

    /** A node builder, in room {@value #ROOM}, with no capacity until one is given. */
    public static NodeBuilder node(String name) {
        return new NodeBuilder(name);
    }

    /** A node of {@code cpu} and {@code mem} (MiB) in {@code room}. */
    public static NodeSpec node(String name, String room, long cpu, long mem) {
        return new NodeSpec(name, room, Resources.of(cpu, mem));
    }

    /** {@code count} equal nodes {@code prefix0}, {@code prefix1}, ... in {@code room}. */
    public static List<NodeSpec> nodes(String prefix, String room, int count, long cpu, long mem) {
        List<NodeSpec> out = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            out.add(node(prefix + i, room, cpu, mem));
        }
        return out;
    }

    /** {@code count} nodes n0, n1, ... in room {@value #ROOM}, each with room for {@code slots} one-core slots. */
    public static List<NodeSpec> slotNodes(int count, int slots) {
        return nodes("n", ROOM, count, 100L * slots, 100L * slots);
    }

    /** A node under construction. */
    public static final class NodeBuilder {
        private final String name;
        private String room = ROOM;
        private long cpu;
        private long mem;
        private final Map<String, String> labels = new TreeMap<>();

        private NodeBuilder(String name) {
            this.name = name;
        }

        public NodeBuilder room(String r) {
            this.room = r;
            return this;
        }

        public NodeBuilder capacity(long cpuMilli, long memMb) {
            this.cpu = cpuMilli;
            this.mem = memMb;
            return this;
        }

        /** Room for {@code n} one-core slots. */
        public NodeBuilder slots(int n) {
            return capacity(100L * n, 100L * n);
        }

        public NodeBuilder label(String key, String value) {
            labels.put(key, value);
            return this;
        }

        public NodeSpec build() {
            return new NodeSpec(name, room, Resources.of(cpu, mem), labels);
        }
    }
}

package granary.demo;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import granary.api.model.NodeSpec;
import granary.api.model.Resources;

/** The demo cluster: rooms {@code r1..rN}, each with nodes {@code r<i>-n001..}, all of one size. */
public final class DemoCluster {

    /** The label every demo node carries, so an operator can tell them from real ones. */
    public static final String LABEL = "granary.demo";

    private DemoCluster() {
    }

    /** The nodes, room by room. */
    public static List<NodeSpec> nodes(DemoSettings s) {
        Resources size = Resources.of(s.nodeCpu(), s.nodeMemMb());
        String format = "r%d-n%0" + Math.max(3, Integer.toString(s.nodesPerRoom()).length()) + "d";
        List<NodeSpec> nodes = new ArrayList<>(s.nodeCount());
        for (int r = 1; r <= s.rooms(); r++) {
            for (int n = 1; n <= s.nodesPerRoom(); n++) {
                nodes.add(new NodeSpec(String.format(format, r, n), "r" + r, size, Map.of(LABEL, "true")));
            }
        }
        return nodes;
    }
}

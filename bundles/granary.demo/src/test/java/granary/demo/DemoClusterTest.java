package granary.demo;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import granary.api.model.NodeSpec;
import granary.api.model.Resources;

import org.junit.jupiter.api.Test;

class DemoClusterTest {

    @Test
    void fourRoomsOfFiftyNodesByDefault() {
        List<NodeSpec> nodes = DemoCluster.nodes(DemoSettings.DEFAULTS);
        assertEquals(200, nodes.size());
        assertEquals(200, nodes.stream().map(NodeSpec::name).distinct().count());
        Map<String, Long> perRoom = nodes.stream().collect(Collectors.groupingBy(NodeSpec::room, Collectors.counting()));
        assertEquals(Map.of("r1", 50L, "r2", 50L, "r3", 50L, "r4", 50L), perRoom);
        assertEquals(Set.of(Resources.of(6400, 262_144)), nodes.stream().map(NodeSpec::capacity).collect(Collectors.toSet()));
        assertEquals("r1-n001", nodes.get(0).name());
        assertEquals("r4-n050", nodes.get(199).name());
        assertEquals("true", nodes.get(0).labels().get(DemoCluster.LABEL));
    }

    @Test
    void namesWidenForLargeRooms() {
        DemoSettings big = new DemoSettings(1, 1200, 100, 100, 1, 1, 1, 1, 1, List.of("g"), 1, "d");
        List<NodeSpec> nodes = DemoCluster.nodes(big);
        assertEquals("r1-n0001", nodes.get(0).name());
        assertEquals("r1-n1200", nodes.get(1199).name());
    }
}

package granary.sim.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import granary.api.model.InvalidRequestException;
import granary.api.model.NodeSpec;
import granary.api.model.Resources;
import granary.sim.trace.TraceException;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** --cluster: alike nodes over rooms, a cluster file, the GPU trace's node list; errors by name. */
class ClusterSpecTest {

    @TempDir
    Path dir;

    @Test
    void alikeNodesAreSpreadOverRooms() {
        List<NodeSpec> nodes = ClusterSpec.parse(List.of("nodes=10,cpu=6400,mem=262144,gpu=8,rooms=3,label.disk=ssd"), false);
        assertEquals(10, nodes.size());
        assertEquals(new NodeSpec("r0-n0", "r0", Resources.of(6400, 262144, Map.of("gpu", 8L)), Map.of("disk", "ssd")), nodes.get(0));
        assertEquals(List.of(4L, 3L, 3L), List.of("r0", "r1", "r2").stream()
                .map(r -> nodes.stream().filter(n -> n.room().equals(r)).count()).toList());
        assertEquals("r2-n9", nodes.get(9).name());
    }

    @Test
    void partsAreJoinedAndNamesMustDiffer() throws IOException {
        Path file = dir.resolve("c.json");
        Files.writeString(file, "{\"nodes\": [{\"count\": 2, \"room\": \"big\", \"capacity\": \"cpu=9600,mem=524288\"}]}");
        List<NodeSpec> nodes = ClusterSpec.parse(List.of("nodes=2,cpu=100,mem=1", "file:" + file), false);
        assertEquals(List.of("r0-n0", "r0-n1", "big-n0", "big-n1"), nodes.stream().map(NodeSpec::name).toList());
        InvalidRequestException e = assertThrows(InvalidRequestException.class,
                () -> ClusterSpec.parse(List.of("nodes=2,cpu=100", "nodes=3,cpu=100"), false));
        assertEquals("--cluster nodes=3,cpu=100: name: node 'r0-n0' is named twice; give the parts different rooms or prefixes", e.getMessage());
        assertEquals(5, ClusterSpec.parse(List.of("nodes=2,cpu=100", "nodes=3,cpu=100,prefix=b"), false).size());
    }

    @Test
    void badSpecsAreRefusedByName() throws IOException {
        assertEquals("--cluster cpu=100: nodes: is missing: nodes=N",
                assertThrows(InvalidRequestException.class, () -> ClusterSpec.parse(List.of("cpu=100"), false)).getMessage());
        assertEquals("--cluster nodes=x,cpu=1: nodes: 'x' is not a whole number >= 0",
                assertThrows(InvalidRequestException.class, () -> ClusterSpec.parse(List.of("nodes=x,cpu=1"), false)).getMessage());
        assertEquals("--cluster nodes=2: cpu: a node needs some capacity, e.g. cpu=6400,mem=262144",
                assertThrows(InvalidRequestException.class, () -> ClusterSpec.parse(List.of("nodes=2"), false)).getMessage());
        assertEquals("--cluster nodes=2,rooms=3,cpu=1: rooms: must be 1..2, got 3",
                assertThrows(InvalidRequestException.class, () -> ClusterSpec.parse(List.of("nodes=2,rooms=3,cpu=1"), false)).getMessage());
        Path file = dir.resolve("bad.json");
        Files.writeString(file, "{\"nodes\": [{\"count\": 2, \"capacity\": {\"cpu\": -1}}]}");
        assertEquals("bad.json:1:45: $.nodes[0].capacity.cpu: must not be negative, got -1",
                assertThrows(TraceException.class, () -> ClusterSpec.parse(List.of("file:" + file), false)).getMessage());
        assertThrows(TraceException.class, () -> ClusterSpec.parse(List.of("file:" + dir.resolve("none.json")), false));
    }
}

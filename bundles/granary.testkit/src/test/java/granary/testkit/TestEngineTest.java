package granary.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Map;

import granary.api.model.NodeSpec;

import org.junit.jupiter.api.Test;

/** The harness and the builders, on a scenario table: arrival order on two nodes of four slots. */
class TestEngineTest {

    @Test
    void grantsInArrivalOrderAndCountsWaitingWork() {
        TestEngine e = TestEngine.of(new ArrivalOrder()).nodes(Clusters.slotNodes(2, 4));
        Table t = Table.parse("""
                | job | group | slots | priority | granted | waiting |
                | a   | -     | 3     | 0        | 3       | 0       |
                | b   | g1    | 4     | 0        | 4       | 0       |
                | c   | g1    | 2     | 0        | 1       | 1       |
                | d   | -     | 2     | 0        | 0       | 2       |
                """);
        for (Table.Row r : t.rows()) {
            e.clock.advance(Clocks.SECOND);
            e.submit(Jobs.job(r.text("job")).group(r.text("group", null))
                    .unit(Jobs.unit("u", 100, 100, r.integer("slots")).priority(r.integer("priority")).build()).build());
        }
        for (Table.Row r : t.rows()) {
            String unit = r.text("job") + "/u";
            assertEquals(r.integer("granted"), e.granted(unit), r.toString());
            assertEquals(r.integer("waiting"), e.unit(unit).remaining(), r.toString());
        }
        assertEquals(2, e.waitingUnits());
        assertEquals(3, e.waitingSlots());
        assertEquals(8, e.grantedSlots());
        assertEquals(8, e.grants().stream().mapToInt(g -> g.slots()).sum());
        assertEquals(Map.of("default", 3L, "g1", 5L), e.usedSlots());
        assertEquals("arrival", e.inEffect("unit-order"));

        e.finish("a/u");   // 3 free slots: c takes 1, d takes 2
        assertEquals(2, e.granted("c/u"));
        assertEquals(2, e.granted("d/u"));
        assertEquals(0, e.waitingSlots());
        assertEquals(List.of(), e.revocations());
    }

    @Test
    void countsGrantsPerJobOverItsUnitsAndReleasesSlotsNodeByNode() {
        TestEngine e = TestEngine.of(new ArrivalOrder()).nodes(Clusters.slotNodes(2, 2));
        e.submit("a", Jobs.slots(3));
        e.request("a", Jobs.unit("extra", 100, 100, 1).build());
        assertEquals(4, e.grantedToJob("a"));
        assertEquals(Map.of("n0", 2, "n1", 1), e.placement("a/u"));
        e.releaseSlots("a/u", 2);   // n0 first
        assertEquals(Map.of("n1", 1), e.placement("a/u"));
        assertEquals(2, e.grantedToJob("a"));
        assertEquals(Map.of("a/extra@n1", 1, "a/u@n0", 2, "a/u@n1", 1), e.netFromLog());   // releases are inputs, not in the log
    }

    @Test
    void buildsNodesWithRoomsLabelsAndCapacity() {
        NodeSpec n = Clusters.node("g0").room("r2").slots(8).label("gpu", "a100").build();
        assertEquals("r2", n.room());
        assertEquals(800, n.capacity().cpu());
        assertEquals(Map.of("gpu", "a100"), n.labels());
        assertEquals(List.of("x0", "x1"), Clusters.nodes("x", "r1", 2, 1, 1).stream().map(NodeSpec::name).toList());
        assertEquals(Clocks.MIDNIGHT + Clocks.HOUR, Clocks.at("2026-11-02T01:00:00Z").millis());
    }
}

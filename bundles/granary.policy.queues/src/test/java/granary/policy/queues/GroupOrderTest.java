package granary.policy.queues;

import static granary.testkit.Jobs.slots;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;

import granary.api.spi.GroupView;

import org.junit.jupiter.api.Test;

/**
 * docs/multi-tenancy.md, "Queues by full path" group order on the real engine: which waiting queue a freed node goes to. Nodes of 100
 * cpu take one slot of 100 cpu each, so every release frees exactly one slot and one decision.
 */
class GroupOrderTest {

    /** a 75% (p0 50%, p1 50%), b 25% (q 100%): on 8 nodes a is guaranteed 600 cpu, a.p0 300, b 200. */
    static final String TREE = """
            {"queues": {
              "a": {"capacity": "75%", "queues": {"p0": {"capacity": "50%"}, "p1": {"capacity": "50%"}}},
              "b": {"capacity": "25%", "queues": {"q": {"capacity": "100%"}}}
            }}
            """;

    private static List<String> order(Bench b) {
        List<GroupView> groups = new ArrayList<>(b.view().groups());
        groups.sort((x, y) -> b.queues.compare(x, y, b.view()));
        return groups.stream().map(GroupView::name).toList();
    }

    private static String anyNode(Bench b, String unit) {
        return b.unit(unit).allocations().keySet().iterator().next();
    }

    @Test
    void theSubtreeFurthestBelowItsGuaranteeIsServedFirst() {
        Bench b = new Bench(Bench.tree(TREE)).nodes(8, 100, 1000);
        b.submit("j1", "root.a.p1", slots(6));
        b.submit("j2", "root.b.q", slots(1));
        b.submit("j3", "root.a.p0", slots(2));   // gets the last free node, 1 slot waits
        b.submit("j4", "root.b.q", slots(2));    // waits
        assertEquals(1, b.granted("j3/u"));
        // a uses 700 of its 600 guaranteed, b 100 of 200: b first, although leaf a.p0 alone
        // (100 of 300) is further below its own guarantee than b.q — the order is hierarchical
        assertEquals(List.of("root.b.q", "root.a.p0", "root.a.p1"), order(b));

        b.release("j1/u", anyNode(b, "j1/u"));
        assertEquals(1, b.granted("j4/u"));
        assertEquals(1, b.granted("j3/u"));

        b.release("j1/u", anyNode(b, "j1/u"));   // now a: 500 of 600, b: 200 of 200
        assertEquals(2, b.granted("j3/u"));
        assertEquals(1, b.granted("j4/u"));
    }

    @Test
    void aQueueWithoutAGuaranteeComesLast() {
        Bench b = new Bench(Bench.tree("{\"queues\": {\"a\": {\"capacity\": \"100%\"}, \"z\": {}}}")).nodes(2, 100, 1000);
        b.submit("j1", "root.a", slots(2));
        b.submit("j2", "root.z", slots(1));
        b.submit("j3", "root.a", slots(1));
        b.release("j1/u", anyNode(b, "j1/u"));
        assertEquals(1, b.granted("j3/u"));   // root.a at 50% of its guarantee still beats root.z with none
        assertEquals(0, b.granted("j2/u"));
        b.release("j1/u", anyNode(b, "j1/u"));
        assertEquals(1, b.granted("j2/u"));   // nothing else waits
    }

    /** a 80%, b 20% on 6 nodes: a holds 400 cpu (of 480 guaranteed), b 200 (of 120). */
    private static Bench unequalGuarantees(boolean drf) {
        Bench b = new Bench(Bench.tree("{\"drf\": " + drf + ", \"queues\": {\"a\": {\"capacity\": \"80%\"}, "
                + "\"b\": {\"capacity\": \"20%\"}}}")).nodes(6, 100, 1000);
        b.submit("j1", "root.a", slots(4));
        b.submit("j2", "root.b", slots(2));
        b.submit("j3", "root.a", slots(1));
        b.submit("j4", "root.b", slots(1));
        b.release("j1/u", anyNode(b, "j1/u"));
        return b;
    }

    @Test
    void byGuaranteeShareTheQueueBelowItsGuaranteeWins() {
        Bench b = unequalGuarantees(false);   // a: 300/480 = 0.63, b: 200/120 = 1.67
        assertEquals(1, b.granted("j3/u"));
        assertEquals(0, b.granted("j4/u"));
        assertEquals("guarantee-share", b.queues.status().get("order"));
    }

    @Test
    void byDrfTheSiblingWithTheSmallerDominantShareWins() {
        Bench b = unequalGuarantees(true);   // a: 300/600 = 0.5, b: 200/600 = 0.33
        assertEquals(0, b.granted("j3/u"));
        assertEquals(1, b.granted("j4/u"));
        assertEquals("drf", b.queues.status().get("order"));
    }

    @Test
    void groupsOutsideTheTreeComeLastHungriestFirst() {
        Bench b = new Bench(new QueuesPolicy()).nodes(4, 100, 1000);
        b.submit("j1", "x", slots(2));
        b.submit("j2", "y", slots(1));
        b.submit("j3", "w", slots(1));
        assertEquals(List.of("w", "y", "x"), order(b));   // w and y hold as much: by name
    }
}

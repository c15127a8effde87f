package granary.policy.queues;

import static granary.testkit.Jobs.slots;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import granary.api.model.InvalidRequestException;
import granary.api.event.Receipt;
import granary.api.model.Resources;
import granary.api.event.PolicyReconfigured;
import granary.policy.queues.api.QueueTree;

import org.junit.jupiter.api.Test;

/** A new tree between two decisions; a refusal keeps the old; the reports. */
class ReconfigureTest {

    private static final String TREE = """
            {"queues": {"a": {"capacity": "50%", "maxRunningJobs": 5,
                              "queues": {"p0": {"capacity": "20%", "maxCapacity": "MAX"}, "p1": {"capacity": "50%"}}},
                        "b": {"capacity": "50%"}}}
            """;

    private static QueueTree tree(String p0Max) {
        return Bench.tree(TREE.replace("MAX", p0Max));
    }

    @Test
    void aNewTreeAppliesAtOnce() {
        Bench b = new Bench(tree("25%")).nodes(4, 1000, 10_000);
        b.submit("j", "root.a.p0", slots(30));
        assertEquals(10, b.granted("j/u"));
        Receipt r = b.handle(new PolicyReconfigured(QueuesPolicy.NAME, tree("50%")));
        assertEquals(List.of("queues: queue tree 5 queues, 3 leaves -> 5 queues, 3 leaves"), r.notes());
        assertEquals(20, b.granted("j/u"));   // the engine looked at every node again
    }

    @Test
    void badSettingsAreRefusedAndTheTreeInForceStays() {
        Bench b = new Bench(tree("25%")).nodes(4, 1000, 10_000);
        QueueTree before = b.queues.tree();
        b.submit("j", "root.a.p0", slots(30));
        String state = b.fingerprint();
        for (Object bad : new Object[] {"queues.json", null, 42}) {
            InvalidRequestException e = assertThrows(InvalidRequestException.class,
                    () -> b.handle(new PolicyReconfigured(QueuesPolicy.NAME, bad)));
            assertTrue(e.getMessage().contains("policy queues: settings: expected a queue tree "
                    + "(granary.policy.queues.api.QueueTree), got "), e.getMessage());
        }
        assertSame(before, b.queues.tree());
        assertEquals(state, b.fingerprint());
        b.submit("k", "root.a.p0", slots(1));
        assertEquals(QueueReasons.QUOTA, b.reason("k/u").code());   // the old maximum still holds
    }

    @Test
    void aLowerRunningLimitStopsNoRunningJob() {
        Bench b = new Bench(tree("100%")).nodes(4, 1000, 10_000);
        b.submit("j1", "root.a.p0", slots(2));
        b.submit("j2", "root.a.p1", slots(2));
        b.handle(new PolicyReconfigured(QueuesPolicy.NAME, Bench.tree(TREE.replace("MAX", "100%")
                .replace("\"maxRunningJobs\": 5", "\"maxRunningJobs\": 1"))));
        assertEquals(2, b.granted("j1/u"));
        assertEquals(2, b.granted("j2/u"));
        b.submit("j3", "root.a.p0", slots(1));
        assertEquals("MAX_RUNNING queue root.a: max running jobs 1 reached (2 running)", b.reason("j3/u").toString());
    }

    @Test
    void groupsOutsideANewTreeAreNamedAndKeepTheirJobs() {
        Bench b = new Bench(new QueuesPolicy()).nodes(4, 1000, 10_000);
        b.submit("old", "batch", slots(2));
        Receipt r = b.handle(new PolicyReconfigured(QueuesPolicy.NAME, tree("25%")));
        assertEquals(List.of("queues: queue tree (none) -> 5 queues, 3 leaves",
                "queues: groups with jobs that are not leaves of the new tree (unlimited, served last; move their jobs): batch"),
                r.notes());
        assertEquals(2, b.granted("old/u"));
        assertThrows(InvalidRequestException.class, () -> b.submit("new", "batch", slots(1)));   // no fallback
        QueueRow last = b.queues.queues(b.view()).get(5);
        assertEquals(new QueueRow("batch", 0, true, Resources.ZERO, Resources.of(4000, 40_000), Resources.of(200, 200),
                1, 0, 1, 0), last);
    }

    @Test
    void reportsGiveOneRowPerQueueByFullPathRootFirst() {
        Bench b = new Bench(tree("25%")).nodes(4, 1000, 10_000);
        b.submit("j1", "root.a.p0", slots(12));
        b.submit("j2", "root.a.p1", slots(2));
        b.submit("j3", "root.b", slots(5));
        List<QueueRow> rows = b.queues.queues(b.view());
        assertEquals(List.of(
                new QueueRow("root", 0, false, Resources.of(4000, 40_000), Resources.of(4000, 40_000),
                        Resources.of(1700, 1700), 3, 0, 3, 2),
                new QueueRow("root.a", 1, false, Resources.of(2000, 20_000), Resources.of(4000, 40_000),
                        Resources.of(1200, 1200), 2, 5, 2, 2),
                new QueueRow("root.a.p0", 2, true, Resources.of(400, 4000), Resources.of(1000, 10_000),
                        Resources.of(1000, 1000), 1, 0, 1, 2),
                new QueueRow("root.a.p1", 2, true, Resources.of(1000, 10_000), Resources.of(4000, 40_000),
                        Resources.of(200, 200), 1, 0, 1, 0),
                new QueueRow("root.b", 1, true, Resources.of(2000, 20_000), Resources.of(4000, 40_000),
                        Resources.of(500, 500), 1, 0, 1, 0)), rows);
        assertEquals("5 queues, 3 leaves", b.queues.status().get("tree"));
        assertSame(b.queues, b.view().policy(QueuesPolicy.NAME));
    }
}

package granary.policy.queues;

import static granary.testkit.Jobs.slots;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;

import granary.api.model.InvalidRequestException;
import granary.api.event.JobMoved;
import granary.policy.queues.api.QueueTree;
import granary.api.spi.GroupView;
import granary.api.spi.JobView;

import org.junit.jupiter.api.Test;

/** docs/multi-tenancy.md, "Queues by full path": a queue's identity is its full path; short names only where unique; the fallback. */
class QueuePathsTest {

    static final String TREE = """
            {
              "fallback": "root.default",
              "queues": {
                "a": {"capacity": "60%", "queues": {"p0": {"capacity": "70%"}, "p1": {"capacity": "30%"}}},
                "b": {"capacity": "30%", "queues": {"p0": {"capacity": "100%"}}},
                "default": {"capacity": "10%"}
              }
            }
            """;

    private static Bench bench(String json) {
        return new Bench(Bench.tree(json)).nodes(4, 400, 4096);
    }

    @Test
    void leavesOfTheSameNameUnderTwoParentsAreTwoQueues() {
        Bench b = bench(TREE);
        b.submit("ja", "root.a.p0", slots(2));
        b.submit("jb", "b.p0", slots(3));
        assertEquals("root.a.p0", b.group("ja"));
        assertEquals("root.b.p0", b.group("jb"));
        assertEquals(Map.of("root.a.p0", 2L, "root.b.p0", 3L), b.usedSlots());
    }

    @Test
    void anAmbiguousShortNameIsRefusedWithTheCandidatePaths() {
        Bench b = bench(TREE);
        String before = b.fingerprint();
        InvalidRequestException e = assertThrows(InvalidRequestException.class, () -> b.submit("j", "p0", slots(1)));
        assertTrue(e.getMessage().contains("queue name 'p0' is ambiguous: root.a.p0, root.b.p0; use the full path"),
                e.getMessage());
        assertNull(b.view().job("j"));
        assertEquals(before, b.fingerprint());
    }

    @Test
    void aUniqueShortNameAndAPathBelowRootResolveToTheFullPath() {
        Bench b = bench(TREE);
        b.submit("j1", "p1", slots(1));
        b.submit("j2", "a.p0", slots(1));
        assertEquals("root.a.p1", b.group("j1"));
        assertEquals("root.a.p0", b.group("j2"));
    }

    @Test
    void anUnknownQueueGoesToTheFallback() {
        Bench b = bench(TREE);
        b.submit("j1", "nosuch", slots(1));
        b.submit("j2", "root.a.p9", slots(1));
        b.submit("j3", (String) null, slots(1));   // a job naming no group names "default", a leaf here
        assertEquals("root.default", b.group("j1"));
        assertEquals("root.default", b.group("j2"));
        assertEquals("root.default", b.group("j3"));
    }

    @Test
    void withoutAFallbackAnUnknownQueueIsRefused() {
        Bench b = bench(TREE.replace("\"fallback\": \"root.default\",", ""));
        InvalidRequestException e = assertThrows(InvalidRequestException.class, () -> b.submit("j", "nosuch", slots(1)));
        assertTrue(e.getMessage().contains("unknown queue 'nosuch' and no fallback queue is configured; leaves: "
                + "root.a.p0, root.a.p1, root.b.p0, root.default"), e.getMessage());
        assertNull(b.view().job("j"));
    }

    @Test
    void jobsGoToLeavesOnly() {
        Bench b = bench(TREE);
        for (String inner : List.of("root.a", "a", "root")) {
            InvalidRequestException e = assertThrows(InvalidRequestException.class, () -> b.submit("j", inner, slots(1)));
            assertTrue(e.getMessage().contains("is not a leaf; jobs go to its leaves"), inner + ": " + e.getMessage());
        }
        assertTrue(b.view().jobs().isEmpty());
    }

    @Test
    void aJobMovesByFullPathOrUniqueShortNameAndNotByAnAmbiguousOne() {
        Bench b = bench(TREE);
        b.submit("j", "root.a.p0", slots(2));
        b.handle(new JobMoved("j", "root.b.p0"));
        assertEquals("root.b.p0", b.group("j"));
        assertEquals(Map.of("root.b.p0", 2L), b.usedSlots());
        b.handle(new JobMoved("j", "p1"));
        assertEquals("root.a.p1", b.group("j"));
        String before = b.fingerprint();
        InvalidRequestException e = assertThrows(InvalidRequestException.class, () -> b.handle(new JobMoved("j", "p0")));
        assertTrue(e.getMessage().contains("ambiguous: root.a.p0, root.b.p0"), e.getMessage());
        assertEquals(before, b.fingerprint());
    }

    @Test
    void everyGroupTheEngineReportsIsAFullPath() {
        Bench b = bench(TREE);
        QueueTree tree = b.queues.tree();
        String[] names = {"root.a.p0", "a.p1", "p1", "b.p0", "default", "nosuch", "root.b.p0"};
        for (int i = 0; i < names.length; i++) {
            b.submit("j" + i, names[i], slots(1));
        }
        b.handle(new JobMoved("j0", "p1"));
        for (JobView j : b.view().jobs()) {
            assertTrue(tree.leaves().contains(j.group()), j.id() + " in " + j.group());
            j.units().forEach(u -> assertEquals(j.group(), u.group()));
        }
        for (GroupView g : b.view().groups()) {
            assertTrue(tree.leaves().contains(g.name()), g.name());
        }
        assertEquals(b.view().resolveGroup("p1"), "root.a.p1");
    }

    @Test
    void withoutATreeNamesAreTakenAsTheyAre() {
        Bench b = new Bench(new QueuesPolicy()).nodes(2, 400, 4096);
        b.submit("j1", "anything", slots(1));
        b.submit("j2", "p0", slots(1));
        assertEquals("anything", b.group("j1"));
        assertEquals("p0", b.group("j2"));
        assertEquals("queues", b.view().status().policies().get("group-resolver"));
        assertNull(b.queues.tree());
        assertEquals(Map.of("tree", "none (names as given, no limits)"), b.queues.status());
    }
}

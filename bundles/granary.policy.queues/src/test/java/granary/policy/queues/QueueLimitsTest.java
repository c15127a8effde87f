package granary.policy.queues;

import static granary.testkit.Jobs.slots;
import static org.junit.jupiter.api.Assertions.assertEquals;

import granary.api.model.UnitId;
import granary.api.event.JobCancelled;
import granary.api.event.UnitDesireChanged;
import granary.api.spi.Reason;

import org.junit.jupiter.api.Test;

/**
 * docs/multi-tenancy.md, "Queues by full path" limits on the real engine: maximum capacity of a leaf and of its ancestors, most running
 * jobs per queue (leaf or ancestor) and per user. Cluster: 4 nodes of 1000 cpu, 10000 MiB; slots of
 * 100 cpu, 100 MiB, so cpu binds.
 */
class QueueLimitsTest {

    private static Bench bench(String queues) {
        return new Bench(Bench.tree("{\"queues\": " + queues + "}")).nodes(4, 1000, 10_000);
    }

    @Test
    void aLeafMaximumCapsItsGrants() {
        Bench b = bench("""
                {"a": {"capacity": "50%", "queues": {"p0": {"capacity": "20%", "maxCapacity": "25%"}, "p1": {}}},
                 "b": {"capacity": "50%"}}
                """);
        b.submit("j1", "root.a.p0", slots(20));
        assertEquals(10, b.granted("j1/u"));   // 25% of 4000 cpu
        Reason partial = b.reason("j1/u");
        assertEquals(QueueReasons.QUOTA, partial.code());
        assertEquals("queue root.a.p0", partial.subject());
        assertEquals("max cpu=1000,mem=10000 leaves room for 10 of 20 slots (used cpu=0,mem=0)", partial.message());
        b.submit("j2", "root.a.p0", slots(1));
        assertEquals(0, b.granted("j2/u"));
        assertEquals("QUOTA queue root.a.p0: max cpu=1000,mem=10000 reached (used cpu=1000,mem=1000)",
                b.reason("j2/u").toString());
        assertEquals(1000, b.reason("j2/u").limit());
        assertEquals(1000, b.reason("j2/u").value());
        b.submit("j3", "root.a.p1", slots(5));
        assertEquals(5, b.granted("j3/u"));   // the sibling is not held by p0's maximum
    }

    @Test
    void anAncestorMaximumCapsTheSumOfItsLeaves() {
        Bench b = bench("""
                {"a": {"capacity": "50%", "maxCapacity": "50%", "queues": {"p0": {"capacity": "50%"}, "p1": {"capacity": "50%"}}},
                 "b": {"capacity": "50%"}}
                """);
        b.submit("j1", "root.a.p0", slots(15));
        b.submit("j2", "root.a.p1", slots(15));
        b.submit("j3", "root.b", slots(10));
        assertEquals(15, b.granted("j1/u"));
        assertEquals(5, b.granted("j2/u"));   // root.a: 2000 cpu for p0 and p1 together
        assertEquals(10, b.granted("j3/u"));
        assertEquals("queue root.a", b.reason("j2/u").subject());
        assertEquals("max cpu=2000,mem=20000 leaves room for 5 of 15 slots (used cpu=1500,mem=1500)",
                b.reason("j2/u").message());

        String node = b.unit("j3/u").allocations().keySet().iterator().next();
        b.release("j3/u", node);   // room on a node, none in root.a: p1 still waits
        assertEquals(5, b.granted("j2/u"));

        node = b.unit("j1/u").allocations().keySet().iterator().next();
        b.release("j1/u", node);   // j1 is done with a slot: root.a has room for one, p1 gets it
        assertEquals(14, b.granted("j1/u"));
        assertEquals(6, b.granted("j2/u"));
        assertEquals(20, b.groupView("root.a.p0").usedSlots() + b.groupView("root.a.p1").usedSlots());
    }

    @Test
    void maxRunningJobsOfALeafHoldsBackNewJobsOnly() {
        Bench b = bench("{\"a\": {\"queues\": {\"p0\": {\"maxRunningJobs\": 2}, \"p1\": {}}}}");
        b.submit("j1", "root.a.p0", slots(2));
        b.submit("j2", "root.a.p0", slots(2));
        b.submit("j3", "root.a.p0", slots(2));
        assertEquals(2, b.granted("j1/u"));
        assertEquals(2, b.granted("j2/u"));
        assertEquals(0, b.granted("j3/u"));
        Reason r = b.reason("j3/u");
        assertEquals("MAX_RUNNING queue root.a.p0: max running jobs 2 reached (2 running)", r.toString());
        assertEquals(2, r.limit());
        assertEquals(2, r.value());

        b.handle(new UnitDesireChanged(UnitId.parse("j1/u"), 6));   // a running job may grow
        assertEquals(6, b.granted("j1/u"));
        assertEquals(0, b.granted("j3/u"));

        b.finish("j2/u");   // j2 ends: j3 starts
        assertEquals(null, b.view().job("j2"));
        assertEquals(2, b.granted("j3/u"));
        assertEquals(2, b.groupView("root.a.p0").runningJobs());
    }

    @Test
    void maxRunningJobsOfAnAncestorCountsAllItsLeaves() {
        Bench b = bench("{\"a\": {\"maxRunningJobs\": 2, \"queues\": {\"p0\": {}, \"p1\": {}}}, \"b\": {}}");
        b.submit("j1", "root.a.p0", slots(1));
        b.submit("j2", "root.a.p1", slots(1));
        b.submit("j3", "root.a.p1", slots(1));
        b.submit("j4", "root.b", slots(1));
        assertEquals(0, b.granted("j3/u"));
        assertEquals(1, b.granted("j4/u"));
        assertEquals("MAX_RUNNING queue root.a: max running jobs 2 reached (2 running)", b.reason("j3/u").toString());
        b.handle(new JobCancelled("j1"));
        assertEquals(1, b.granted("j3/u"));
    }

    @Test
    void maxRunningJobsPerUserHoldsBackThatUserOnly() {
        Bench b = bench("{\"a\": {\"queues\": {\"p0\": {\"maxRunningJobsPerUser\": 1}}}}");
        b.submit("j1", "root.a.p0", "alice", slots(1));
        b.submit("j2", "root.a.p0", "alice", slots(1));
        b.submit("j3", "root.a.p0", "bob", slots(1));
        assertEquals(1, b.granted("j1/u"));
        assertEquals(0, b.granted("j2/u"));
        assertEquals(1, b.granted("j3/u"));
        assertEquals("MAX_RUNNING queue root.a.p0: max running jobs per user 1 reached (user alice: 1 running)",
                b.reason("j2/u").toString());
        b.finish("j1/u");
        assertEquals(1, b.granted("j2/u"));
        assertEquals(1, b.groupView("root.a.p0").runningJobs("alice"));
    }

    @Test
    void aGroupWhoseJobsMayNotStartIsSkippedWhole() {
        Bench b = bench("{\"a\": {\"maxRunningJobs\": 1, \"queues\": {\"p0\": {}, \"p1\": {}}}}");
        b.submit("j1", "root.a.p0", slots(1));
        b.submit("j2", "root.a.p1", slots(1));
        QueuesPolicy q = b.queues;
        var verdict = q.admitGroup(b.groupView("root.a.p1"), b.view());
        assertEquals(QueueReasons.MAX_RUNNING, verdict.reason().code());
        assertEquals(false, verdict.allowed());
        assertEquals(true, q.admitGroup(b.groupView("root.a.p0"), b.view()).allowed());   // j1 runs there
    }

    @Test
    void aQueueWithNoRoomLeftInAnyResourceIsSkippedWhole() {
        Bench b = bench("{\"a\": {\"maxCapacity\": {\"cpu\": 200, \"mem\": 200}, \"queues\": {\"p0\": {}}}, \"b\": {}}");
        b.submit("j1", "root.a.p0", slots(3));
        assertEquals(2, b.granted("j1/u"));
        var verdict = b.queues.admitGroup(b.groupView("root.a.p0"), b.view());
        assertEquals(false, verdict.allowed());
        assertEquals("QUOTA queue root.a: max cpu=200,mem=200 reached (used cpu=200,mem=200)", verdict.reason().toString());
        b.submit("j2", "root.b", slots(1));
        assertEquals(true, b.queues.admitGroup(b.groupView("root.b"), b.view()).allowed());
    }
}

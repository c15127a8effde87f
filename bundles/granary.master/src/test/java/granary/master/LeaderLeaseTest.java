package granary.master;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import granary.api.event.NodeCapacityChanged;
import granary.api.model.JobSpec;
import granary.api.model.Resources;
import granary.api.model.UnitId;
import granary.api.model.UnitSpec;
import granary.ha.Lease;
import granary.protocol.Ack;
import granary.protocol.Envelope;
import granary.protocol.Register;
import granary.protocol.Request;
import granary.protocol.Role;
import granary.protocol.Sender;
import granary.protocol.WireCodec;
import granary.protocol.link.Reply;
import granary.protocol.link.SyncLink;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The master's hook for the leader's lease (docs/ha.md, "The lease"): a real engine and master,
 * and the lease of granary.ha on a clock the test moves (2 s session, 500 ms margin). Without the
 * lease the master takes no message, changes nothing, and no cap or hint leaves it, not even one
 * the engine decided after the lease lapsed.
 */
class LeaderLeaseTest {

    private static final long SECOND = 1_000_000_000L;
    private static final UnitId J0 = new UnitId("j0", "tasks");
    private static final UnitId J1 = new UnitId("j1", "tasks");

    private final AtomicLong now = new AtomicLong(5 * SECOND);
    private final WireCodec codec = new WireCodec(Role.AGENT);
    private MasterHarness h;

    @AfterEach
    void close() {
        if (h != null) {
            h.close();
        }
    }

    private static LeaderLease of(Lease lease) {
        return new LeaderLease() {
            @Override
            public boolean held() {
                return lease.held();
            }

            @Override
            public String why() {
                return lease.why();
            }
        };
    }

    private Lease lease(LongSupplier clock) {
        Lease l = new Lease("127.0.0.1:2181", Duration.ofSeconds(2), Duration.ofMillis(500), clock);
        l.renewed(clock.getAsLong());
        return l;
    }

    private MasterHarness master(Lease lease) throws Exception {
        return new MasterHarness(MasterOptions.defaults().withIncarnation(77).withManualTicks().withLease(of(lease)));
    }

    private static Register register(String node, long cpu) {
        return new Register(node, "r1", Map.of(), Resources.of(cpu, 1024), "http://127.0.0.1:9/" + node);
    }

    private static JobSpec job(String id) {
        return JobSpec.of(id, "default", UnitSpec.builder("tasks").slot(100, 100).desired(1).build());
    }

    private String token(Role role, String id) {
        return "Bearer " + h.tokens.issue(new Sender(role, id));
    }

    private Ack ack(Reply r) {
        return (Ack) codec.decode(r.body(), "test").message();
    }

    @Test
    void withoutTheLeaseAMessageIsRefusedWith503AndChangesNothing() throws Exception {
        Lease lease = lease(now::get);
        h = master(lease);
        now.addAndGet(3 * SECOND); // no renewal for longer than the session timeout: the lease lapsed
        byte[] body = codec.encode(Envelope.of(new Sender(Role.AGENT, "n1"), 1, 1, register("n1", 300)));

        Reply r = h.master.post(token(Role.AGENT, "n1"), body, "127.0.0.1:5555");

        assertEquals(503, r.status());
        String problem = ack(r).problems().get(0).message();
        assertTrue(problem.contains("is not the leader (it does not hold the leadership lease: the leadership lease lapsed")
                && problem.contains("ZooKeeper at 127.0.0.1:2181 has not answered for 3000 ms"), problem);
        assertEquals(0, (int) h.live.<Integer>query(v -> v.cluster().nodes().size()), "no node was added");
        assertTrue(h.master.agents().isEmpty(), "no agent was recorded");
        Reply poll = h.master.poll(token(Role.AGENT, "n1"), 0, 1_000, 1, "127.0.0.1:5555").get(10, TimeUnit.SECONDS);
        assertEquals(503, poll.status(), "a poll is refused too");
    }

    @Test
    void aParkedPollIsNotAnsweredWithACapOrHintTheEngineDecidedAfterTheLeaseLapsed() throws Exception {
        Lease lease = lease(now::get);
        h = master(lease);
        SyncLink agent = h.link(Role.AGENT, "n1", 1);
        SyncLink jm = h.link(Role.JOB_MASTER, "jm1", 1);
        assertFalse(agent.send(register("n1", 100)).isRefusal());
        assertFalse(jm.send(new Request(true, List.of(job("j0"), job("j1")), List.of(), List.of(), List.of())).isRefusal());
        assertEquals(1, (int) h.live.<Integer>query(v -> v.unit(J0).granted()), "j0 fills n1; j1 waits");
        CompletableFuture<Reply> agentPoll = park(Role.AGENT, "n1");
        CompletableFuture<Reply> jmPoll = park(Role.JOB_MASTER, "jm1");

        now.addAndGet(3 * SECOND); // the leader stood still past the session timeout
        // ... and the engine decides: room for j1 on n1 (an input that is not a message, so not refused)
        h.live.submit(new NodeCapacityChanged("n1", Resources.of(200, 2048)));

        assertEquals(1, (int) h.live.<Integer>query(v -> v.unit(J1).granted()), "the engine granted j1 on n1");
        Reply toAgent = agentPoll.get(10, TimeUnit.SECONDS);
        Reply toJobMaster = jmPoll.get(10, TimeUnit.SECONDS);
        assertEquals(503, toAgent.status(), "the grant of j1 did not leave as a cap");
        assertEquals(503, toJobMaster.status(), "nor as a hint");
        assertTrue(ack(toAgent).problems().get(0).message().contains("does not hold the leadership lease"));
    }

    @Test
    void aPauseBetweenTheFirstCheckAndTheAnswerIsCaughtByTheSecond() throws Exception {
        AtomicReference<LongSupplier> clock = new AtomicReference<>(() -> 5 * SECOND);
        Lease lease = lease(() -> clock.get().getAsLong()); // renewed at 5 s: valid until 6.5 s
        h = master(lease);
        // The clock stands still for the first check of the message and has jumped by the next: a
        // pause while the master applied it (manual ticks: nothing else reads the lease meanwhile).
        AtomicInteger reads = new AtomicInteger();
        clock.set(() -> reads.getAndIncrement() == 0 ? 5 * SECOND : 8 * SECOND);
        byte[] body = codec.encode(Envelope.of(new Sender(Role.AGENT, "n2"), 1, 1, register("n2", 300)));

        Reply r = h.master.post(token(Role.AGENT, "n2"), body, "127.0.0.1:5555");

        assertEquals(503, r.status(), "applied during the pause, but not acknowledged: this master steps down and forgets it");
        assertTrue(reads.get() >= 2, "the lease was read again after the message was applied");
    }

    @Test
    void withoutTheLeaseTheMasterDeclaresNobodyLost() throws Exception {
        Lease lease = lease(now::get);
        h = master(lease);
        assertFalse(h.link(Role.AGENT, "n1", 1).send(register("n1", 300)).isRefusal());
        now.addAndGet(3 * SECOND);
        h.clock.advance(Duration.ofMinutes(5).toMillis()); // far past the agent timeout (30 s)

        h.master.tick();

        assertEquals("live", h.master.agents().get(0).state(), "a master that may not decide declares no agent lost");
        assertEquals(1, (int) h.live.<Integer>query(v -> v.cluster().nodes().size()));
    }

    /**
     * A poll of {@code id}'s inbox parked at the master: every envelope due before is acknowledged
     * first. A poll is taken in a turn of the master's loop, after the call returns; the next call
     * through the loop (the list of agents) runs after that turn, so a poll not answered by then is
     * parked, not merely not yet looked at (without it an envelope due before the lease lapsed could
     * be answered after, and the test passed or failed by the threads' timing).
     */
    private CompletableFuture<Reply> park(Role role, String id) throws Exception {
        for (int i = 0; i < 20; i++) {
            CompletableFuture<Reply> p = h.master.poll(token(role, id), Long.MAX_VALUE / 2, 10_000, 1, "test");
            h.master.agents(); // after the poll's turn
            if (!p.isDone()) {
                return p;
            }
            assertEquals(200, p.get().status(), "an envelope that was due: acknowledged by the next poll");
        }
        throw new AssertionError(role + " " + id + ": the master had news for 20 polls in a row");
    }
}

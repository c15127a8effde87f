package granary.master;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import granary.api.model.JobSpec;
import granary.api.model.Resources;
import granary.api.model.UnitId;
import granary.api.model.UnitSpec;
import granary.protocol.Ack;
import granary.protocol.Cap;
import granary.protocol.Envelope;
import granary.protocol.Heartbeat;
import granary.protocol.Hint;
import granary.protocol.link.PlanPass;
import granary.protocol.Register;
import granary.protocol.Request;
import granary.protocol.Role;
import granary.protocol.Sender;
import granary.protocol.WireCodec;
import granary.protocol.link.LinkException;
import granary.protocol.link.Paths;
import granary.protocol.link.SyncLink;
import granary.testkit.LiveEngine;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The master's protocol side over real HTTP on loopback, with a real engine behind it. */
class ProtocolMasterTest {

    private static final UnitId TASKS = new UnitId("j1", "tasks");
    private final MasterHarness h;
    private final WireCodec codec = new WireCodec(Role.AGENT);
    private final HttpClient http = HttpClient.newHttpClient();

    ProtocolMasterTest() throws Exception {
        h = new MasterHarness();
    }

    @AfterEach
    void close() {
        h.close();
    }

    private static Register register(String node, long cpu) {
        return new Register(node, "r1", Map.of(), Resources.of(cpu, 1024), "http://127.0.0.1:9/" + node);
    }

    private static JobSpec job(String id, int slots) {
        return JobSpec.of(id, "default", UnitSpec.builder("tasks").slot(100, 100).desired(slots).build());
    }

    private static Request full(JobSpec... jobs) {
        return new Request(true, List.of(jobs), List.of(), List.of(), List.of());
    }

    private static <T> T poll(SyncLink link, Class<T> type) {
        for (int i = 0; i < 20; i++) {
            Optional<Envelope> e = link.poll(500);
            if (e.isPresent()) {
                return type.cast(e.get().message());
            }
        }
        throw new AssertionError("no " + type.getSimpleName() + " within 10 s");
    }

    @Test
    void grantsBecomeCapsForTheAgentAndHintsForTheJobMaster() {
        SyncLink agent = h.link(Role.AGENT, "n1", 1);
        assertFalse(agent.send(register("n1", 300)).isRefusal());
        Cap first = poll(agent, Cap.class);
        assertTrue(first.grants().isEmpty(), "the full cap of an empty node is empty: " + first);
        assertEquals(1, (int) h.live.<Integer>query(v -> v.cluster().nodes().size()));

        SyncLink jm = h.link(Role.JOB_MASTER, "jm1", 1);
        assertFalse(jm.send(full(job("j1", 5))).isRefusal());
        Cap cap = poll(agent, Cap.class);
        // the cap carries the slot's size and kind, for a master that restarts (docs/recovery.md)
        assertEquals(List.of(new Cap.Grant("jm1", TASKS, 3, granary.protocol.link.Tokens.key(h.tokens.issue(new Sender(Role.JOB_MASTER, "jm1"))),
                Resources.of(100, 100), false)), cap.grants());
        Hint hint = poll(jm, Hint.class);
        assertEquals(List.of(new Hint.Placement(TASKS, "n1", 3, "http://127.0.0.1:9/n1")), hint.placements());

        // A worker exits: its slot is released (desired 5 → 4), and the slot goes to the waiting rest.
        assertFalse(agent.send(new Heartbeat(List.of(), List.of(new Heartbeat.Exit(TASKS, 0, 0)), null)).isRefusal());
        Hint after = poll(jm, Hint.class);
        assertEquals(List.of(new Hint.Exit(TASKS, "n1", 0, 0)), after.exits());
        assertEquals(4, (int) h.live.<Integer>query(v -> v.unit(TASKS).desired()));
        assertEquals(3, (int) h.live.<Integer>query(v -> v.unit(TASKS).granted()), "the freed slot went to the unit's waiting rest");
        assertTrue(h.master.deliveryLatency()[0] > 0);

        // what monitors read (MasterMonitor): the peers, the recovery state, the delivery latency
        MasterMonitor monitor = h.master;
        assertEquals(List.of("n1"), monitor.agents().stream().map(PeerStatus::id).toList());
        assertEquals("live", monitor.agents().get(0).state());
        assertEquals(List.of("jm1"), monitor.jobMasters().stream().map(PeerStatus::id).toList());
        assertEquals(RecoveryState.SERVING, monitor.recoveryState(), "a master without a recovery window serves at once");
        DeliveryStats d = monitor.deliveryStats();
        assertEquals(h.master.deliveryLatency()[0], d.count());
        assertTrue(d.sumMillis() >= 0 && d.p50Millis() >= 0 && d.p99Millis() >= d.p50Millis(), d.toString());
    }

    /**
     * An agent that says its node is unhealthy gets no new work there while its workers run on; the
     * master shows why, and what the node uses; healthy again, it takes work again. An exit its
     * memory limit ended reaches the job master with the limit and the peak (docs/agent.md).
     */
    @Test
    void anUnhealthyNodeGetsNoNewWorkAndUsageAndOutOfMemoryArePassedOn() throws Exception {
        SyncLink agent = h.link(Role.AGENT, "n1", 1);
        assertFalse(agent.send(register("n1", 300)).isRefusal());
        poll(agent, Cap.class);
        SyncLink jm = h.link(Role.JOB_MASTER, "jm1", 1);
        assertFalse(jm.send(full(job("j1", 2))).isRefusal());
        assertEquals(2, poll(agent, Cap.class).grants().get(0).slots());
        poll(jm, Hint.class);

        Heartbeat.Usage usage = new Heartbeat.Usage(Resources.of(150, 700), List.of());
        Heartbeat sick = new Heartbeat(List.of(), List.of(new Heartbeat.Exit(TASKS, 0, 137, false, new Heartbeat.Oom(100, 180))),
                null, List.of(), usage, new Heartbeat.Health(false, "3 launches failed in a row: logs/ is not a directory"));
        assertFalse(agent.send(sick).isRefusal());
        PeerStatus s = h.master.agents().get(0);
        assertEquals("3 launches failed in a row: logs/ is not a directory", s.unhealthy());
        assertEquals(Resources.of(150, 700), s.used());
        assertTrue(s.line().contains("used=cpu=150,mem=700") && s.line().contains("health=unhealthy"), s.line());
        assertTrue(h.live.<Boolean>query(v -> v.cluster().node("n1").blacklisted()), "no new work on it");
        Hint told = poll(jm, Hint.class);
        assertEquals(new Heartbeat.Oom(100, 180), told.exits().get(0).oom(), told.toString());

        // the unit still wants 1 more slot (its job master asks again): not on the unhealthy node
        assertFalse(jm.send(new Request(false, List.of(), List.of(new Request.Desire(TASKS, 2)), List.of(), List.of())).isRefusal());
        assertEquals(1, (int) h.live.<Integer>query(v -> v.cluster().node("n1").slotsOf(TASKS)));
        assertFalse(agent.send(new Heartbeat(List.of(), List.of(), null, List.of(), usage, Heartbeat.Health.OK)).isRefusal());
        assertEquals("", h.master.agents().get(0).unhealthy());
        assertEquals(2, (int) h.live.<Integer>query(v -> v.cluster().node("n1").slotsOf(TASKS)), "healthy: it takes work again");
    }

    /**
     * Messages that arrive while the loop is busy wait together and are applied in one turn, each
     * answered on its own, with one engine cycle for all (docs/architecture.md, "The master's loop").
     */
    @Test
    void messagesThatWaitTogetherAreAppliedInOneTurn() throws Exception {
        List<SyncLink> agents = new java.util.ArrayList<>();
        for (int i = 1; i <= 3; i++) {
            SyncLink a = h.link(Role.AGENT, "n" + i, 1);
            assertFalse(a.send(register("n" + i, 100)).isRefusal());
            agents.add(a);
        }
        SyncLink jm = h.link(Role.JOB_MASTER, "jm1", 1);
        assertFalse(jm.send(full(job("j1", 4))).isRefusal());
        assertEquals(3, (int) h.live.<Integer>query(v -> v.unit(TASKS).granted()), "one slot per node, one waits");
        MasterMonitor.Batches before = h.master.batches();

        java.util.concurrent.CountDownLatch hold = holdLoop();
        java.util.concurrent.ExecutorService senders = java.util.concurrent.Executors.newFixedThreadPool(3);
        try {
            List<java.util.concurrent.Future<granary.protocol.Ack>> acks = new java.util.ArrayList<>();
            for (SyncLink a : agents) {
                acks.add(senders.submit(() -> a.send(new Heartbeat(List.of(), List.of(new Heartbeat.Exit(TASKS, 0, 0)), null))));
            }
            granary.testkit.LiveEngine.await("three heartbeats waiting", () -> h.master.waiting() == 3, h.master::waiting,
                    java.time.Duration.ofSeconds(10));
            hold.countDown();
            for (java.util.concurrent.Future<granary.protocol.Ack> f : acks) {
                assertFalse(f.get(10, java.util.concurrent.TimeUnit.SECONDS).isRefusal());
            }
        } finally {
            hold.countDown();
            senders.shutdownNow();
        }
        MasterMonitor.Batches after = h.master.batches();
        assertEquals(1, after.turns() - before.turns(), "one turn");
        assertEquals(3, after.messages() - before.messages(), "of three messages");
        // the three released slots: one is granted again to the task that waited, in that one cycle
        assertEquals(1, (int) h.live.<Integer>query(v -> v.unit(TASKS).granted()));
    }

    /**
     * A node an operator took out stays out when its agent says it is unhealthy and then healthy
     * again: the master puts back only what it took out for the node's health.
     */
    @Test
    void healthComingBackDoesNotLiftAnOperatorsBlacklist() {
        SyncLink agent = h.link(Role.AGENT, "n1", 1);
        assertFalse(agent.send(register("n1", 300)).isRefusal());
        poll(agent, Cap.class);
        h.live.submit(new granary.api.event.NodeBlacklisted("n1", true)); // the operator's
        Heartbeat.Health sick = new Heartbeat.Health(false, "ERROR disk /data is read-only");
        assertFalse(agent.send(new Heartbeat(List.of(), List.of(), null, List.of(), null, sick)).isRefusal());
        assertEquals("ERROR disk /data is read-only", h.master.agents().get(0).unhealthy());
        assertFalse(agent.send(new Heartbeat(List.of(), List.of(), null, List.of(), null, Heartbeat.Health.OK)).isRefusal());
        assertEquals("", h.master.agents().get(0).unhealthy());
        assertTrue(h.live.<Boolean>query(v -> v.cluster().node("n1").blacklisted()), "the operator's blacklist holds");
    }

    /**
     * A job master keeps its unit off a node (docs/agent.md, "Blacklisting a node for one job"): a
     * desire with {@code avoid} takes effect before its count, so the slot it asks for again goes
     * elsewhere; its full request after a restart says the same with the unit's blacklist; an empty
     * set lifts it.
     */
    @Test
    void aJobMasterKeepsItsUnitOffANode() {
        SyncLink a1 = h.link(Role.AGENT, "n1", 1);
        assertFalse(a1.send(register("n1", 300)).isRefusal());
        SyncLink a2 = h.link(Role.AGENT, "n2", 1);
        assertFalse(a2.send(register("n2", 300)).isRefusal());
        SyncLink jm = h.link(Role.JOB_MASTER, "jm1", 1);
        assertFalse(jm.send(full(job("j1", 3))).isRefusal());
        assertEquals(3, (int) h.live.<Integer>query(v -> v.unit(TASKS).granted()));
        int onN1 = h.live.<Integer>query(v -> v.cluster().node("n1").slotsOf(TASKS));
        assertTrue(onN1 > 0, "something runs on n1 to begin with");

        assertFalse(jm.send(new Request(false, List.of(), List.of(new Request.Desire(TASKS, 6, Set.of("n1"))), List.of(), List.of()))
                .isRefusal());
        assertEquals(Set.of("n1"), h.live.<Set<String>>query(v -> v.unit(TASKS).spec().blacklist()));
        assertEquals(onN1, (int) h.live.<Integer>query(v -> v.cluster().node("n1").slotsOf(TASKS)), "what it holds on n1 stays, nothing new");
        assertEquals(3, (int) h.live.<Integer>query(v -> v.cluster().node("n2").slotsOf(TASKS)), "n2 is full of it");
        assertEquals(onN1 + 3, (int) h.live.<Integer>query(v -> v.unit(TASKS).granted()), "n1's free slots are not its");

        SyncLink again = h.link(Role.JOB_MASTER, "jm1", 2);
        JobSpec said = job("j1", 6);
        JobSpec lifted = new JobSpec("j1", said.group(), said.user(), 0, false, List.of(said.units().get(0).withBlacklist(Set.of())));
        assertFalse(again.send(full(lifted)).isRefusal(), "a restarted job master's full request lifts it");
        assertEquals(Set.of(), h.live.<Set<String>>query(v -> v.unit(TASKS).spec().blacklist()));
    }

    /**
     * A heartbeat is applied in one turn of the master's loop, on the engine's thread: its release
     * goes to the engine at once, without a wait for another thread. A release the engine refuses —
     * its slots were taken meanwhile by an event that has no output, so the master's mirror still
     * counted them — is reconciled from the engine's counts in the same turn, and the exit is taken.
     */
    @Test
    void aRefusedReleaseIsReconciledInTheSameTurn() throws Exception {
        SyncLink agent = h.link(Role.AGENT, "n1", 1);
        assertFalse(agent.send(register("n1", 300)).isRefusal());
        poll(agent, Cap.class);
        SyncLink jm = h.link(Role.JOB_MASTER, "jm1", 1);
        assertFalse(jm.send(full(job("j1", 3))).isRefusal());
        assertEquals(3, poll(agent, Cap.class).grants().get(0).slots());

        // the unit's three slots are released behind the master's back (a release has no output
        // event: the master's mirror still says 3); the master's release of the exit's slot then
        // finds none, and is refused
        h.live.loop.submit(new granary.api.event.GrantReleased(TASKS, "n1", 3)).get(10, java.util.concurrent.TimeUnit.SECONDS);
        assertEquals(3, h.master.agents().get(0).slots(), "the mirror does not know yet");
        assertFalse(agent.send(new Heartbeat(List.of(), List.of(new Heartbeat.Exit(TASKS, 0, 0)), null)).isRefusal());
        assertEquals(0, h.master.agents().get(0).slots(), "reconciled when the ack left");
        assertEquals(0, (int) h.live.<Integer>query(v -> v.cluster().node("n1").slotsOf(TASKS)));
        assertEquals(0, poll(agent, Cap.class).grants().stream().mapToInt(Cap.Grant::slots).sum(), "and the agent's next cap says so");
    }

    /**
     * The hint that places a job master's slots on a node carries a plan pass for that node's agent,
     * sealed with that agent's key and no other, for the job master's living incarnation; halfway
     * through its life the master sends a new one (docs/security.md, "Plan passes").
     */
    @Test
    void planPassesComeWithTheHintsAndAreRenewedHalfwayThroughTheirLife() throws Exception {
        try (MasterHarness m = new MasterHarness(MasterOptions.defaults().withIncarnation(78)
                .withTimeouts(Duration.ofHours(1), Duration.ofHours(1)))) {
            // the agent's token expires (docs/security.md, "Tokens"): its passes are sealed with that token's key
            String agentToken = m.tokens.issue("agent/n1", m.clock.millis(), System.currentTimeMillis() + 3_600_000);
            SyncLink agent = m.link(Role.AGENT, "n1", 1, agentToken);
            assertFalse(agent.send(register("n1", 300)).isRefusal());
            poll(agent, Cap.class);
            SyncLink jm = m.link(Role.JOB_MASTER, "jm1", 1);
            assertFalse(jm.send(full(job("j1", 5))).isRefusal());
            Hint first = poll(jm, Hint.class);
            assertEquals(1, first.passes().size(), first.toString());
            assertEquals("n1", first.passes().get(0).node());
            String key = granary.protocol.link.Tokens.key(m.tokens.issue(new Sender(Role.JOB_MASTER, "jm1")));
            assertNull(PlanPass.verify(m.tokens.agentKey("n1"), first.passes().get(0).pass()), "not the key of another token");
            PlanPass.Claims claims = PlanPass.verify(granary.protocol.link.Tokens.keyOf(agentToken), first.passes().get(0).pass());
            assertEquals(new PlanPass.Claims("jm1", 1, "n1", key, m.clock.millis() + Delivery.PASS_MILLIS), claims);
            assertNull(PlanPass.verify(m.tokens.agentKey("n2"), first.passes().get(0).pass()), "no other agent can check it");
            assertNull(PlanPass.verify(granary.protocol.link.Tokens.keyOf(m.tokens.issue("agent/n2", m.clock.millis(), 0)),
                    first.passes().get(0).pass()), "no other agent can check it");
            assertNull(m.tokens.verify(first.passes().get(0).pass()), "it is no token at the master");

            m.clock.advance(Delivery.PASS_MILLIS / 2 + 1);
            m.master.tick();
            Hint renewed = poll(jm, Hint.class);
            assertEquals(List.of(), renewed.placements(), "nothing moved: only the pass is new");
            PlanPass.Claims again = PlanPass.verify(granary.protocol.link.Tokens.keyOf(agentToken), renewed.passes().get(0).pass());
            assertEquals(m.clock.millis() + Delivery.PASS_MILLIS, again.expiresAt());

            // a new incarnation of the job master gets passes of its own: the old life's speak for the old life only
            SyncLink reborn = m.link(Role.JOB_MASTER, "jm1", 2);
            assertFalse(reborn.send(full(job("j1", 5))).isRefusal());
            Hint next = poll(reborn, Hint.class);
            PlanPass.Claims life2 = PlanPass.verify(granary.protocol.link.Tokens.keyOf(agentToken), next.passes().get(0).pass());
            assertEquals(2, life2.incarnation(), next.toString());
        }
    }

    /**
     * An agent that restarts on another port: the job master holding slots there is told the new
     * address (same slots), or its plans would go on to the old one (docs/recovery.md, "Exits that
     * never arrive").
     */
    @Test
    void anAgentBackAtAnotherAddressIsAnnouncedToTheJobMastersHoldingSlotsThere() {
        SyncLink agent = h.link(Role.AGENT, "n1", 1);
        assertFalse(agent.send(register("n1", 300)).isRefusal());
        poll(agent, Cap.class);
        SyncLink jm = h.link(Role.JOB_MASTER, "jm1", 1);
        assertFalse(jm.send(full(job("j1", 5))).isRefusal());
        assertEquals(List.of(new Hint.Placement(TASKS, "n1", 3, "http://127.0.0.1:9/n1")), poll(jm, Hint.class).placements());

        SyncLink again = h.link(Role.AGENT, "n1", 2);
        Register moved = new Register("n1", "r1", Map.of(), Resources.of(300, 1024), "http://127.0.0.1:10/n1");
        assertFalse(again.send(moved).isRefusal());
        assertEquals(List.of(new Hint.Placement(TASKS, "n1", 3, "http://127.0.0.1:10/n1")), poll(jm, Hint.class).placements());
    }

    @Test
    void aMasterThatStartsEmptyShowsItsRecoveryWindowUntilItServes() {
        granary.testkit.LiveEngine live = new granary.testkit.LiveEngine(List.of("fifo"), List.of("fifo"),
                new granary.policy.fifo.FifoPolicy());
        granary.api.model.ManualClock clock = new granary.api.model.ManualClock(1_000_000);
        ProtocolMaster m = new ProtocolMaster(live.loop, h.tokens, MasterOptions.defaults().withManualTicks(), clock,
                granary.recovery.Recovery.of(new granary.recovery.RecoveryOptions(Duration.ofSeconds(60), Duration.ofSeconds(2))));
        try {
            assertEquals(RecoveryState.WINDOW_OPEN, m.recoveryState());
            assertEquals(new DeliveryStats(0, 0, -1, -1), m.deliveryStats());
            assertNull(m.lastRebuild(), "no rebuild before the window closes");
            clock.advance(61_000);
            m.tick(); // the window is due: the master rebuilds (from nothing) and serves
            assertEquals(RecoveryState.SERVING, m.recoveryState());
            MasterMonitor.Rebuilt rebuilt = m.lastRebuild();
            assertEquals(1_061_000, rebuilt.closedAtMillis(), "closed by the tick at the window's end");
            assertEquals(0, rebuilt.adoptions());
            assertTrue(rebuilt.nanos() > 0, rebuilt::toString);
        } finally {
            m.close();
            live.close();
        }
    }

    /**
     * A message whose request was answered at the edge while it waited for its turn (its time passed:
     * 503, and the peer sends it again) is not applied when its turn comes: under overload, applying
     * messages nobody waits for any more crowded out the ones peers still waited for, and a master at
     * 20,000 agents answered none in time (docs/protocol.md, "Overload"). The message sent again is applied.
     */
    @Test
    void aMessageAnsweredAtTheEdgeWhileItWaitedIsNotApplied() throws Exception {
        SyncLink agent = h.link(Role.AGENT, "n1", 1);
        assertFalse(agent.send(register("n1", 300)).isRefusal());
        String jmToken = h.tokens.issue(new Sender(Role.JOB_MASTER, "jm1"));
        byte[] body = codec.encode(Envelope.of(new Sender(Role.JOB_MASTER, "jm1"), 1, 1, full(job("j1", 2))));
        MasterMonitor.Batches before = h.master.batches();
        java.util.concurrent.CountDownLatch hold = holdLoop();
        java.util.concurrent.CompletableFuture<granary.protocol.link.Reply> late;
        try {
            late = h.master.postAsync("Bearer " + jmToken, body, "test");
            LiveEngine.await("the message waiting", () -> h.master.waiting() == 1, h.master::waiting, Duration.ofSeconds(10));
            late.cancel(false);   // what the edge does when the post's time passes
        } finally {
            hold.countDown();
        }
        MasterMonitor.Batches after = h.master.batches();   // a turn after the one that skipped it
        assertEquals(1, after.expired() - before.expired(), "skipped");
        assertEquals(0, after.messages() - before.messages(), "nothing applied");
        assertEquals(0, (int) h.live.<Integer>query(v -> v.jobs().size()), "the job master's request was not applied");
        assertEquals(200, post(jmToken, body).statusCode(), "sent again");
        assertEquals(1, (int) h.live.<Integer>query(v -> v.jobs().size()));
    }

    /**
     * More messages than a turn applies wait for the next turn, queued behind what waits on the loop
     * (a poll, a tick, an operator's call): the turns follow each other, none runs inside the one
     * before. Run inside it, a loop whose inbox never emptied went deeper with every turn until its
     * stack overflowed (1,000 agents with work: 21,284 StackOverflowErrors, nothing answered).
     */
    @Test
    void aFullInboxIsAppliedInTurnsThatLetTheLoopDoOtherWorkBetween() throws Exception {
        int agents = ProtocolMaster.MAX_BATCH * 3;
        List<String> tokens = registerAgents(agents);
        java.util.concurrent.CountDownLatch hold = holdLoop();
        List<java.util.concurrent.CompletableFuture<granary.protocol.link.Reply>> acks = new java.util.ArrayList<>();
        java.util.concurrent.CompletableFuture<Integer> between;
        try {
            for (int i = 0; i < agents; i++) {
                byte[] hb = codec.encode(Envelope.of(new Sender(Role.AGENT, "n" + i), 1, 2, new Heartbeat(List.of(), List.of(), null)));
                acks.add(h.master.postAsync(tokens.get(i), hb, "test"));
            }
            LiveEngine.await("every heartbeat waiting", () -> h.master.waiting() == agents, h.master::waiting, Duration.ofSeconds(10));
            between = h.live.loop.query(v -> h.master.waiting());   // queued behind the first turn
        } finally {
            hold.countDown();
        }
        assertEquals(agents - ProtocolMaster.MAX_BATCH, (int) between.get(10, java.util.concurrent.TimeUnit.SECONDS),
                "the loop did other work after the first turn, before the next");
        for (java.util.concurrent.CompletableFuture<granary.protocol.link.Reply> a : acks) {
            assertEquals(200, a.get(10, java.util.concurrent.TimeUnit.SECONDS).status());
        }
    }

    /**
     * An agent whose heartbeat reached the master is not silent, even while the heartbeat waits for
     * its turn: a timeout judged while messages wait counts them as heard when they arrived (issue 23:
     * at 20,000 agents a restarted master, too busy to apply heartbeats in time, declared live agents
     * lost, and their offline slots ran again elsewhere).
     */
    @Test
    void anAgentWhoseHeartbeatWaitsForItsTurnIsNotDeclaredLost() throws Exception {
        int agents = ProtocolMaster.MAX_BATCH * 3;
        List<String> tokens = registerAgents(agents);
        h.clock.advance(25_000); // the agent timeout is 30 s
        java.util.concurrent.CountDownLatch hold = holdLoop();
        List<java.util.concurrent.CompletableFuture<granary.protocol.link.Reply>> acks = new java.util.ArrayList<>();
        Thread expiry = new Thread(h.master::expire, "expiry");
        try {
            for (int i = 0; i < agents; i++) {
                byte[] hb = codec.encode(Envelope.of(new Sender(Role.AGENT, "n" + i), 1, 2, new Heartbeat(List.of(), List.of(), null)));
                acks.add(h.master.postAsync(tokens.get(i), hb, "test"));
            }
            LiveEngine.await("every heartbeat waiting", () -> h.master.waiting() == agents, h.master::waiting, Duration.ofSeconds(10));
            h.clock.advance(10_000); // 35 s after the registrations, 10 s after the heartbeats arrived
            expiry.start();          // its turn is queued behind the first turn of heartbeats, before the next
            LiveEngine.await("the timeouts' turn queued", () -> expiry.getState() == Thread.State.TIMED_WAITING,
                    expiry::getState, Duration.ofSeconds(10));
        } finally {
            hold.countDown();
        }
        expiry.join(10_000);
        for (java.util.concurrent.CompletableFuture<granary.protocol.link.Reply> a : acks) {
            assertEquals(200, a.get(10, java.util.concurrent.TimeUnit.SECONDS).status());
        }
        List<String> lost = h.master.agents().stream().filter(p -> !p.state().equals("live")).map(PeerStatus::id).toList();
        assertEquals(List.of(), lost, "no agent whose heartbeat had arrived is lost");
        assertEquals(agents, (int) h.live.<Integer>query(v -> v.cluster().nodes().size()), "every node still in the cluster");
    }

    @Test
    void aDuplicatedEnvelopeIsAppliedOnce() throws Exception {
        SyncLink agent = h.link(Role.AGENT, "n1", 1);
        agent.send(register("n1", 300));
        String jmToken = h.tokens.issue(new Sender(Role.JOB_MASTER, "jm1"));
        byte[] body = codec.encode(Envelope.of(new Sender(Role.JOB_MASTER, "jm1"), 1, 1, full(job("j1", 2))));
        assertEquals(200, post(jmToken, body).statusCode());
        assertEquals(200, post(jmToken, body).statusCode());
        assertEquals(1, (int) h.live.<Integer>query(v -> v.jobs().size()));
        byte[] next = codec.encode(Envelope.of(new Sender(Role.JOB_MASTER, "jm1"), 1, 2,
                new Request(false, List.of(), List.of(new Request.Desire(TASKS, 3)), List.of(), List.of())));
        assertEquals(200, post(jmToken, next).statusCode());
        assertEquals(200, post(jmToken, next).statusCode(), "a replay gets its ack again");
        assertEquals(3, (int) h.live.<Integer>query(v -> v.unit(TASKS).desired()));
    }

    @Test
    void tokensBindTheSenderAndOtherJobMastersJobsAreRefused() throws Exception {
        byte[] reg = codec.encode(Envelope.of(new Sender(Role.AGENT, "n2"), 1, 1, register("n2", 100)));
        HttpResponse<byte[]> none = post(null, reg);
        assertEquals(401, none.statusCode());
        assertTrue(text(none).contains("no token"), text(none));
        assertEquals(401, post("agent/n2.AAAA", reg).statusCode());
        HttpResponse<byte[]> other = post(h.tokens.issue(new Sender(Role.AGENT, "n1")), reg);
        assertEquals(403, other.statusCode());
        assertTrue(text(other).contains("the token of agent n1 cannot speak for agent n2"), text(other));
        assertEquals(0, (int) h.live.<Integer>query(v -> v.cluster().nodes().size()), "nothing changed");

        h.link(Role.AGENT, "n1", 1).send(register("n1", 300));
        assertFalse(h.link(Role.JOB_MASTER, "jm1", 1).send(full(job("j1", 1))).isRefusal());
        SyncLink thief = h.link(Role.JOB_MASTER, "jm2", 1);
        Ack ack = thief.send(new Request(true, List.of(), List.of(), List.of("j1"), List.of()));
        assertTrue(ack.isRefusal());
        assertTrue(ack.problems().get(0).message().contains("job j1 belongs to job master jm1"), ack.toString());
        assertEquals(1, (int) h.live.<Integer>query(v -> v.jobs().size()), "j1 still runs");
    }

    @Test
    void aDeadIncarnationAndAnIncompatibleVersionAreRefused() throws Exception {
        h.link(Role.AGENT, "n1", 5).send(register("n1", 100));
        h.link(Role.AGENT, "n1", 9).send(register("n1", 100));
        String token = h.tokens.issue(new Sender(Role.AGENT, "n1"));
        HttpResponse<byte[]> dead = post(token, codec.encode(Envelope.of(new Sender(Role.AGENT, "n1"), 5, 2,
                new Heartbeat(List.of(), List.of(), null))));
        assertEquals(409, dead.statusCode());
        assertTrue(text(dead).contains("a message from incarnation 5, which ended when 9 began"), text(dead));

        String v2 = codec.text(Envelope.of(new Sender(Role.AGENT, "n1"), 9, 2, new Heartbeat(List.of(), List.of(), null)))
                .replaceFirst("\"version\": ?2", "\"version\": 1");
        HttpResponse<byte[]> old = post(token, v2.getBytes(StandardCharsets.UTF_8));
        assertEquals(400, old.statusCode());
        assertTrue(text(old).contains("protocol version 1 is not supported; this master speaks 2 to 7"), text(old));
    }

    @Test
    void aRefusedTokenIsAnUnauthorizedLinkError() {
        SyncLink bad = h.link(Role.AGENT, "n1", 1, "agent/n1.Zm9yZ2Vk");
        LinkException ex = assertThrows(LinkException.class, () -> bad.send(register("n1", 100)));
        assertEquals(LinkException.Kind.UNAUTHORIZED, ex.kind());
    }

    @Test
    void aSilentAgentIsLostAndItsNodeLeavesTheCluster() throws Exception {
        h.link(Role.AGENT, "n1", 1).send(register("n1", 300));
        h.link(Role.JOB_MASTER, "jm1", 1).send(full(job("j1", 2)));
        assertEquals(2, (int) h.live.<Integer>query(v -> v.unit(TASKS).granted()));
        h.clock.advance(31_000);
        h.master.expire();
        assertEquals("lost", h.master.agents().get(0).state());
        assertEquals(0, (int) h.live.<Integer>query(v -> v.cluster().nodes().size()));
        assertEquals(0, (int) h.live.<Integer>query(v -> v.unit(TASKS).granted()), "its offline grants wait again");
        assertTrue(h.master.agents().get(0).line().startsWith("node=n1 state=lost"), h.master.agents().get(0).line());
    }

    /**
     * The agent's link to a master started again on its address (no recovery window): the heartbeat
     * it sends meanwhile is answered by the new incarnation, the link ends it as RESTARTED, and the
     * full state, numbered 1 again, begins the new session.
     */
    @Test
    void aLinkSeesTheMasterStartedAgainAndItsFullStateBeginsTheNewSession() throws Exception {
        Sender n1 = new Sender(Role.AGENT, "n1");
        try (SyncLink agent = new SyncLink(h.server.url(), n1, 1, h.tokens.issue(n1), SyncLink.Options.defaults())) {
            assertFalse(agent.send(register("n1", 300)).isRefusal());
            assertFalse(agent.send(new Heartbeat(List.of(), List.of(), null)).isRefusal());
            assertEquals(77L, agent.serverIncarnation());
            int port = h.server.port();
            h.close();
            try (MasterHarness again = new MasterHarness(MasterOptions.defaults().withIncarnation(78)
                    .withTimeouts(Duration.ofSeconds(30), Duration.ofSeconds(60)),
                    granary.recovery.Recovery.of(granary.recovery.RecoveryOptions.none()), port)) {
                LinkException ex = assertThrows(LinkException.class, () -> agent.send(new Heartbeat(List.of(), List.of(), null)));
                assertEquals(LinkException.Kind.RESTARTED, ex.kind(), ex.getMessage());
                assertTrue(ex.getMessage().contains("restarted (incarnation 77 → 78)"), ex.getMessage());
                assertFalse(agent.send(register("n1", 300)).isRefusal(), "the full state, numbered 1");
                assertEquals(1, (int) again.live.<Integer>query(v -> v.cluster().nodes().size()));
                assertTrue(poll(agent, Cap.class).full(), "and the new master's full cap comes to the inbox");
                assertEquals(78L, agent.serverIncarnation());
            }
        }
    }

    @Test
    void theInboxOfAnUnknownPeerSaysWhatToDoFirst() {
        SyncLink agent = h.link(Role.AGENT, "n1", 1);
        LinkException ex = assertThrows(LinkException.class, () -> agent.poll(0));
        assertTrue(ex.getMessage().contains("register first"), ex.getMessage());
    }

    /** Agents n0 .. n{count-1} registered, each with its own token; their Authorization headers. */
    private List<String> registerAgents(int count) throws Exception {
        List<String> tokens = new java.util.ArrayList<>();
        for (int i = 0; i < count; i++) {
            Sender s = new Sender(Role.AGENT, "n" + i);
            tokens.add("Bearer " + h.tokens.issue(s));
            byte[] reg = codec.encode(Envelope.of(s, 1, 1, register("n" + i, 100)));
            assertEquals(200, h.master.postAsync(tokens.get(i), reg, "test").get(10, java.util.concurrent.TimeUnit.SECONDS).status());
        }
        return tokens;
    }

    /**
     * Keeps the master's loop busy until the latch is counted down (at most 10 s): what comes meanwhile
     * waits. Returns once the loop holds, so nothing queued before (a turn, a queued next turn) runs
     * after it and takes what the test sends next.
     */
    private java.util.concurrent.CountDownLatch holdLoop() throws InterruptedException {
        java.util.concurrent.CountDownLatch hold = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch holding = new java.util.concurrent.CountDownLatch(1);
        h.live.loop.call(e -> {
            holding.countDown();
            try {
                return hold.await(10, java.util.concurrent.TimeUnit.SECONDS);
            } catch (InterruptedException ex) {
                throw new IllegalStateException(ex);
            }
        });
        assertTrue(holding.await(10, java.util.concurrent.TimeUnit.SECONDS), "the loop holds");
        return hold;
    }

    private HttpResponse<byte[]> post(String token, byte[] body) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(h.server.url() + Paths.MESSAGES))
                .timeout(Duration.ofSeconds(10)).POST(HttpRequest.BodyPublishers.ofByteArray(body));
        if (token != null) {
            b.header("Authorization", "Bearer " + token);
        }
        return http.send(b.build(), HttpResponse.BodyHandlers.ofByteArray());
    }

    private static String text(HttpResponse<byte[]> r) {
        assertNotNull(r.body());
        return new String(r.body(), StandardCharsets.UTF_8);
    }
}

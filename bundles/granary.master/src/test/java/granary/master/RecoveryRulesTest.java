package granary.master;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import granary.api.model.JobSpec;
import granary.api.model.Problem;
import granary.api.model.Resources;
import granary.api.model.UnitId;
import granary.api.model.UnitKind;
import granary.api.model.UnitSpec;
import granary.protocol.Ack;
import granary.protocol.Cap;
import granary.protocol.Envelope;
import granary.protocol.Heartbeat;
import granary.protocol.Hint;
import granary.protocol.Register;
import granary.protocol.Request;
import granary.protocol.Role;
import granary.protocol.Sender;
import granary.protocol.link.SyncLink;
import granary.protocol.link.Tokens;
import granary.recovery.Recovery;
import granary.recovery.RecoveryOptions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The master's side of recovering from real failures (docs/protocol.md "Marks", "Exits";
 * docs/recovery.md "A silent node", "Workers without a cap", "Ending a job", "Rebuilding"): a real
 * engine and the protocol master over HTTP on loopback, peers as plain links, a manual clock and
 * manual ticks (a timeout happens when the test calls {@code expire()}).
 */
class RecoveryRulesTest {

    private static final UnitId TASKS = new UnitId("j1", "tasks");
    private static final Resources SLOT = Resources.of(100, 100);
    private final MasterHarness h;
    private final List<MasterHarness> others = new ArrayList<>();

    RecoveryRulesTest() throws Exception {
        h = new MasterHarness(MasterOptions.defaults().withIncarnation(77)
                .withTimeouts(Duration.ofSeconds(30), Duration.ofSeconds(60)).withManualTicks());
    }

    @AfterEach
    void close() {
        h.close();
        others.forEach(MasterHarness::close);
    }

    // ---- 17, 18: releases and marks ---------------------------------------------------------------

    /**
     * A release of more slots than the unit holds on the node (an exit released some meanwhile) is
     * refused whole, before any cap goes down: the unit keeps its slots and its desire, and no
     * withdrawal reaches the agent — a withdrawal would stop running workers (docs/protocol.md, "Marks").
     */
    @Test
    void aReleaseOfMoreSlotsThanTheUnitHoldsOnTheNodeIsRefusedWholeAndLowersNoCap() {
        SyncLink agent = agent(h, "n1", 300);
        SyncLink jm = h.link(Role.JOB_MASTER, "jm1", 1);
        assertFalse(jm.send(full(batch("j1", 5)).withMark(1)).isRefusal());
        assertEquals(List.of(new Cap.Grant("jm1", TASKS, 3, key(h, "jm1"), SLOT, false)), next(agent, Cap.class).grants());
        next(jm, Hint.class);

        Ack refused = jm.send(release(2, 4));
        assertTrue(refused.isRefusal(), refused.toString());
        Problem p = refused.problems().get(0);
        assertEquals("$.message.releases[0].slots", p.field());
        assertEquals("unit j1/tasks holds 3 slots on node n1, cannot release 4", p.message());
        assertEquals(3L, p.limit());
        assertEquals(4L, p.value());

        assertEquals(3, (int) h.live.<Integer>query(v -> v.unit(TASKS).granted()), "nothing released");
        assertEquals(5, (int) h.live.<Integer>query(v -> v.unit(TASKS).desired()), "nor the desire lowered");
        assertEquals(3, h.master.agents().get(0).slots(), "the master's caps of n1 are as they were");
        assertTrue(agent.poll(500).isEmpty(), "no cap, no withdrawal reaches the agent");
    }

    /**
     * Every hint says through which request mark the job master's requests were applied when it was
     * written, so the client knows which of its releases its placements count; the pair of a release
     * the master refused is in a following hint too, through that mark, so that the client settles
     * it there (docs/protocol.md, "Marks").
     */
    @Test
    void hintsCarryTheMarkOfTheLastAppliedRequestAndARefusedReleasesPairIsInAFollowingHint() {
        SyncLink agent = agent(h, "n1", 300);
        SyncLink jm = h.link(Role.JOB_MASTER, "jm1", 1);
        assertFalse(jm.send(full(batch("j1", 5)).withMark(1)).isRefusal());
        Hint first = next(jm, Hint.class);
        assertEquals(1, first.through());
        assertEquals(List.of(new Hint.Placement(TASKS, "n1", 3, "http://127.0.0.1:9/n1")), first.placements());
        next(agent, Cap.class);

        assertFalse(jm.send(release(4, 1)).isRefusal());
        // the slot released, then granted again to the unit's waiting rest: a hint through the release's mark says so
        Hint settled = until(jm, x -> x.placements().contains(new Hint.Placement(TASKS, "n1", 3, "http://127.0.0.1:9/n1")));
        assertEquals(4, settled.through());
        drain(jm);

        assertTrue(jm.send(release(9, 7)).isRefusal());
        Hint after = until(jm, x -> x.placements().stream().anyMatch(pl -> pl.unit().equals(TASKS) && pl.node().equals("n1")));
        assertEquals(9, after.through(), "a refused request is applied too: its refusal");
        assertTrue(after.placements().contains(new Hint.Placement(TASKS, "n1", 3, "http://127.0.0.1:9/n1")),
                "the refused release's pair, with what the unit holds there: " + after);
    }

    // ---- 19: exits of a cancelled job ---------------------------------------------------------

    /**
     * The workers of a job its job master cancelled are stopped by the withdrawal; their exits still
     * go to the job master that ran it, which is done only once they are gone (docs/recovery.md,
     * "Ending a job").
     */
    @Test
    void theExitsOfACancelledJobsWorkersStillReachTheJobMasterThatRanIt() {
        SyncLink agent = agent(h, "n1", 300);
        SyncLink jm = h.link(Role.JOB_MASTER, "jm1", 1);
        assertFalse(jm.send(full(batch("j1", 2))).isRefusal());
        next(agent, Cap.class);
        next(jm, Hint.class);

        assertFalse(jm.send(new Request(false, List.of(), List.of(), List.of("j1"), List.of())).isRefusal());
        Cap withdrawal = next(agent, Cap.class);
        assertEquals(List.of(new Cap.Grant("jm1", TASKS, 0, key(h, "jm1"), SLOT, false)), withdrawal.withdrawals());
        assertNull(h.live.query(v -> v.job("j1")));

        assertFalse(agent.send(new Heartbeat(List.of(), List.of(new Heartbeat.Exit(TASKS, 0, Heartbeat.STOPPED),
                new Heartbeat.Exit(TASKS, 1, 0, true)), null)).isRefusal());
        Hint exits = until(jm, x -> !x.exits().isEmpty());
        assertEquals(List.of(new Hint.Exit(TASKS, "n1", 0, Heartbeat.STOPPED, true), new Hint.Exit(TASKS, "n1", 1, 0, true)),
                exits.exits());
    }

    // ---- 20: workers without a cap -------------------------------------------------------------

    /**
     * Workers an agent runs without a cap: the master decides once per worker and registration. One
     * of a unit whose job runs and wants more slots than it holds is adopted (its slot granted there,
     * the worker keeps running); one of a unit that holds what it wants, or of a job that is not
     * running, is withdrawn, and the cap says why (docs/recovery.md, "Workers without a cap").
     */
    @Test
    void uncappedWorkersAreAdoptedWhereTheirUnitRunsAndWantsMoreElseWithdrawnWithAReason() {
        SyncLink agent = agent(h, "n1", 500);
        SyncLink jm = h.link(Role.JOB_MASTER, "jm1", 1);
        UnitId waiting = new UnitId("j1", "tasks");
        UnitId satisfied = new UnitId("j2", "tasks");
        UnitId gone = new UnitId("j9", "tasks");
        // j1 keeps off n1 (its own blacklist): it waits for 2 slots the only node could give it
        JobSpec j1 = JobSpec.of("j1", "default", UnitSpec.builder("tasks").slot(SLOT).desired(2).blacklist("n1").build());
        assertFalse(jm.send(full(j1, batch("j2", 1))).isRefusal());
        assertEquals(List.of(new Cap.Grant("jm1", satisfied, 1, key(h, "jm1"), SLOT, false)), next(agent, Cap.class).grants());
        next(jm, Hint.class);

        assertFalse(agent.send(uncapped(new Heartbeat.Worker(gone, 0))).isRefusal());
        Cap c1 = next(agent, Cap.class);
        assertEquals(List.of(new Cap.Grant(Restarts.OWNER, gone, 0, "", Resources.ZERO, false)), c1.withdrawals());
        assertEquals("job j9 is not running: it ended, or this master never heard of it", c1.reason());
        assertFalse(agent.send(uncapped(new Heartbeat.Worker(gone, 0))).isRefusal());
        assertTrue(agent.poll(300).isEmpty(), "decided once per worker and registration");

        assertFalse(agent.send(uncapped(new Heartbeat.Worker(satisfied, 3))).isRefusal());
        Cap c2 = next(agent, Cap.class);
        assertEquals(List.of(new Cap.Grant("jm1", satisfied, 1, key(h, "jm1"), SLOT, false)), c2.withdrawals(),
                "down to the one slot it holds: the newest worker beyond it stops");
        assertEquals("unit j2/tasks holds the 1 slots it wants without them", c2.reason());
        assertEquals(1, (int) h.live.<Integer>query(v -> v.unit(satisfied).granted()));

        assertFalse(agent.send(uncapped(new Heartbeat.Worker(waiting, 5))).isRefusal());
        Cap c3 = next(agent, Cap.class);
        assertEquals(List.of(new Cap.Grant("jm1", waiting, 1, key(h, "jm1"), SLOT, false)), c3.grants(), "adopted: granted there");
        assertEquals(List.of(), c3.withdrawals());
        assertEquals(Map.of("n1", 1), h.live.<Map<String, Integer>>query(v -> v.unit(waiting).allocations()));
        Hint adopted = until(jm, x -> x.placements().stream().anyMatch(p -> p.unit().equals(waiting)));
        assertTrue(adopted.placements().contains(new Hint.Placement(waiting, "n1", 1, "http://127.0.0.1:9/n1")), adopted.toString());
    }

    // ---- 21: a silent node ---------------------------------------------------------------------

    /**
     * The job masters holding slots on a node whose agent went silent past its timeout are told in
     * their next hint ({@code nodes: [{n1, lost}]}) — its offline slots are taken back, its online ones
     * kept — and again ({@code back}) when its agent, refused as declared lost, registers again
     * (docs/recovery.md, "A silent node").
     */
    @Test
    void theJobMastersOfASilentAgentAreToldItsNodeIsLostAndBackWhenItRegistersAgain() {
        SyncLink agent = agent(h, "n1", 300);
        SyncLink jm = h.link(Role.JOB_MASTER, "jm1", 1);
        JobSpec j1 = JobSpec.of("j1", "default", UnitSpec.builder("svc").slot(SLOT).desired(1).kind(UnitKind.ONLINE).build(),
                UnitSpec.builder("tasks").slot(SLOT).desired(1).build());
        assertFalse(jm.send(full(j1)).isRefusal());
        next(agent, Cap.class);
        next(jm, Hint.class);

        h.clock.advance(31_000);
        assertFalse(jm.send(new Request(false, List.of(), List.of(), List.of(), List.of())).isRefusal()); // the job master stays live
        h.master.expire();
        assertEquals("lost", h.master.agents().get(0).state());
        Hint lost = until(jm, x -> !x.nodes().isEmpty());
        assertEquals(List.of(new Hint.NodeState("n1", Hint.NodeState.LOST)), lost.nodes());

        Ack refused = agent.send(new Heartbeat(List.of(), List.of(), null));
        assertTrue(refused.isRefusal());
        assertTrue(refused.problems().get(0).message().contains("agent n1" + Register.DECLARED_LOST), refused.toString());
        assertFalse(agent.send(register("n1", 300)).isRefusal());
        Hint back = until(jm, x -> !x.nodes().isEmpty());
        assertEquals(List.of(new Hint.NodeState("n1", Hint.NodeState.BACK)), back.nodes());
        assertEquals("live", h.master.agents().get(0).state());
    }

    /**
     * As above for a job master that held only offline slots on the silent node: they were taken back
     * when it was declared lost (its tasks there run again elsewhere), and it is told the node is
     * back when the agent registers again, as docs/recovery.md ("A silent node") says of every job
     * master that held slots there.
     */
    @Test
    void aJobMasterThatHeldOnlyOfflineSlotsOnASilentNodeIsToldItIsLostAndBack() {
        SyncLink agent = agent(h, "n1", 300);
        SyncLink jm = h.link(Role.JOB_MASTER, "jm1", 1);
        assertFalse(jm.send(full(batch("j1", 2))).isRefusal());
        Cap held = next(agent, Cap.class);
        next(jm, Hint.class);

        h.clock.advance(31_000);
        assertFalse(jm.send(new Request(false, List.of(), List.of(), List.of(), List.of())).isRefusal());
        h.master.expire();
        Hint lost = until(jm, x -> !x.nodes().isEmpty());
        assertEquals(List.of(new Hint.NodeState("n1", Hint.NodeState.LOST)), lost.nodes());

        assertTrue(agent.send(new Heartbeat(List.of(), List.of(), null)).isRefusal());
        // it registers again with the caps it held (the withdrawal never reached it)
        assertFalse(agent.send(new Register("n1", "r1", Map.of(), Resources.of(300, 1024), "http://127.0.0.1:9/n1",
                held.grants())).isRefusal());
        Hint back = until(jm, x -> !x.nodes().isEmpty());
        assertEquals(List.of(new Hint.NodeState("n1", Hint.NodeState.BACK)), back.nodes());
    }

    // ---- 22: job masters absent from the recovery window ----------------------------------------

    /**
     * The offline caps of a job master that did not report within the recovery window are dropped by
     * default (nobody plans into them while it is away: the full cap withdraws them), its online caps
     * kept as a mock; with {@code keepOfflineOfAbsent} the offline ones are kept in the mock too, their
     * tasks go on (docs/recovery.md, "Rebuilding", case 11).
     */
    @ParameterizedTest(name = "keepOfflineOfAbsent={0}")
    @ValueSource(booleans = {false, true})
    void theOfflineCapsOfAJobMasterAbsentFromTheWindowAreDroppedUnlessKeepOfflineOfAbsent(boolean keep) throws Exception {
        MasterHarness w = new MasterHarness(MasterOptions.defaults().withIncarnation(78)
                .withTimeouts(Duration.ofSeconds(30), Duration.ofSeconds(60)).withManualTicks(),
                Recovery.of(new RecoveryOptions(Duration.ofSeconds(5), Duration.ofSeconds(1), keep)));
        others.add(w);
        UnitId svc = new UnitId("j1", "svc");
        Cap.Grant online = new Cap.Grant("jm1", svc, 1, key(w, "jm1"), SLOT, true);
        Cap.Grant offline = new Cap.Grant("jm1", TASKS, 2, key(w, "jm1"), SLOT, false);
        SyncLink agent = w.link(Role.AGENT, "n1", 1);
        assertFalse(agent.send(new Register("n1", "r1", Map.of(), Resources.of(400, 1024), "http://127.0.0.1:9/n1",
                List.of(online, offline))).isRefusal());
        w.clock.advance(6_000);
        w.master.tick(); // the window closes: jm1 never reported

        assertNotNull(w.live.query(v -> v.job("j1")), "a mock job holds jm1's caps");
        assertEquals(Map.of("n1", 1), w.live.<Map<String, Integer>>query(v -> v.unit(svc).allocations()));
        Map<String, Integer> tasks = w.live.query(v -> v.unit(TASKS) == null ? Map.<String, Integer>of() : v.unit(TASKS).allocations());
        Cap first = next(agent, Cap.class);
        assertTrue(first.full());
        if (keep) {
            assertEquals(Map.of("n1", 2), tasks, "kept in the mock");
            assertTrue(first.grants().contains(offline), first.toString());
        } else {
            assertEquals(Map.of(), tasks, "dropped");
            assertEquals(List.of(online), first.grants(), "the full cap leaves the offline unit out: the agent stops its workers");
        }
    }

    /**
     * The console's {@code granary:recovery} line: when the window opened and closed, when the master
     * served again, and what the engine holds then (an operator watching a restart, and the recovery
     * benchmark against the runtime, read it).
     */
    @Test
    void theRecoveryStatusSaysWhenTheWindowOpenedAndClosedAndWhatTheEngineHoldsAgain() throws Exception {
        MasterHarness w = new MasterHarness(MasterOptions.defaults().withIncarnation(78)
                .withTimeouts(Duration.ofSeconds(30), Duration.ofSeconds(60)).withManualTicks(),
                Recovery.of(new RecoveryOptions(Duration.ofSeconds(5), Duration.ofSeconds(1), false)));
        others.add(w);
        long opened = w.clock.millis();
        Cap.Grant online = new Cap.Grant("jm1", new UnitId("j1", "svc"), 1, key(w, "jm1"), SLOT, true);
        Cap.Grant offline = new Cap.Grant("jm1", TASKS, 2, key(w, "jm1"), SLOT, false);
        SyncLink agent = w.link(Role.AGENT, "n1", 1);
        assertFalse(agent.send(new Register("n1", "r1", Map.of(), Resources.of(400, 1024), "http://127.0.0.1:9/n1",
                List.of(online, offline))).isRefusal());

        RecoveryStatus open = w.master.recoveryStatus();
        assertEquals(new RecoveryStatus(RecoveryState.WINDOW_OPEN, opened, -1, -1, 0, 0, 0, 0), open,
                "recorded, nothing in the engine yet");
        assertTrue(open.line().startsWith("state=window-open recovering=true openedAt=" + opened + " rebuildStartedAt=-1"), open.line());

        w.clock.advance(6_000);
        w.master.tick(); // the window closes: the online cap kept for the absent jm1, its offline ones dropped
        RecoveryStatus after = w.master.recoveryStatus();

        assertEquals(RecoveryState.SERVING, after.state());
        assertEquals(opened, after.openedAt());
        assertEquals(opened + 6_000, after.rebuildStartedAt());
        assertTrue(after.recoveredAt() >= after.rebuildStartedAt(), after.line());
        assertEquals(List.of(1, 1, 1L, 1L), List.of(after.nodes(), after.jobs(), after.granted(), after.online()), after.line());
        assertTrue(after.line().contains(" nodes=1 jobs=1 granted=1 online=1"), after.line());
    }

    /**
     * Case 13 on the master's side: the window closes without agent n1, whose online slots the job
     * master's holdings keep; when n1 registers with its caps, the job master is told n1 holds the
     * service's 2 slots — never 4 (the kept slots and the engine's adoption of the same workers
     * counted twice made the sample job master give the surplus back: the running services' slots).
     */
    @Test
    void anAgentBackAfterTheWindowTakesItsKeptSlotsAndItsJobMasterIsToldTheirCountOnce() throws Exception {
        MasterHarness w = new MasterHarness(MasterOptions.defaults().withIncarnation(79)
                .withTimeouts(Duration.ofSeconds(30), Duration.ofSeconds(60)).withManualTicks(),
                Recovery.of(new RecoveryOptions(Duration.ofSeconds(5), Duration.ofSeconds(1), false)));
        others.add(w);
        UnitId svc = new UnitId("j1", "svc");
        // with a batch unit n2 can run: the job is in the engine while n1 is away (not deferred)
        JobSpec job = JobSpec.of("j1", "default", UnitSpec.builder("svc").slot(SLOT).desired(2).kind(UnitKind.ONLINE).build(),
                UnitSpec.builder("tasks").slot(SLOT).desired(1).build());
        SyncLink n2 = w.link(Role.AGENT, "n2", 1);
        assertFalse(n2.send(register("n2", 400)).isRefusal());
        SyncLink jm = w.link(Role.JOB_MASTER, "jm1", 1);
        assertFalse(jm.send(new Request(true, List.of(job), List.of(), List.of(), List.of(),
                List.of(new Request.Holding(svc, "n1", 2)))).isRefusal());
        w.clock.advance(6_000);
        w.master.tick(); // the window closes without n1: its 2 service slots are kept for it
        assertEquals(Map.of(), w.live.<Map<String, Integer>>query(v -> v.unit(svc) == null ? Map.of() : v.unit(svc).allocations()),
                "kept out of the engine");
        drain(jm);

        // the job master's poll waits at the master as n1 registers: a hint written mid-way reaches it at once
        var parked = java.util.concurrent.CompletableFuture.supplyAsync(() -> jm.poll(5_000));
        Thread.sleep(300);
        SyncLink n1 = w.link(Role.AGENT, "n1", 1);
        assertFalse(n1.send(new Register("n1", "r1", Map.of(), Resources.of(400, 1024), "http://127.0.0.1:9/n1",
                List.of(new Cap.Grant("jm1", svc, 2, key(w, "jm1"), SLOT, true),
                        new Cap.Grant("jm1", new UnitId("j1", "tasks"), 2, key(w, "jm1"), SLOT, false)))).isRefusal());
        Cap first = next(n1, Cap.class);
        assertTrue(first.full());
        assertEquals(2, first.grants().stream().filter(g -> g.unit().equals(svc)).mapToInt(Cap.Grant::slots).sum(), first.toString());
        List<Hint> hints = new ArrayList<>();
        parked.get(10, java.util.concurrent.TimeUnit.SECONDS).ifPresent(e -> hints.add((Hint) e.message()));
        hints.addAll(drain(jm));
        List<Integer> told = new ArrayList<>();
        hints.forEach(x -> x.placements().stream().filter(pl -> pl.unit().equals(svc) && pl.node().equals("n1"))
                .forEach(pl -> told.add(pl.slots())));
        assertFalse(told.isEmpty(), "the job master is told n1 is back with its slots: " + hints);
        assertTrue(told.stream().allMatch(n -> n <= 2), "told " + told + " slots on n1: more than the 2 it holds there");
        assertEquals(2, told.get(told.size() - 1), "told " + told);
        assertEquals(Map.of("n1", 2), w.live.<Map<String, Integer>>query(v -> v.unit(svc).allocations()));
        assertEquals(2, w.live.<Integer>query(v -> v.unit(svc).desired()));
    }

    /**
     * A job master is seen when it polls: a poll that asks to wait longer than half its timeout is
     * answered (empty) by then, so a live job master with nothing to hear polls again in time and is
     * never declared lost for its long poll.
     */
    @Test
    void aPollWaitsAtMostHalfThePeersTimeoutSoThatAQuietJobMasterIsNotTakenForLost() throws Exception {
        MasterHarness w = new MasterHarness(MasterOptions.defaults().withIncarnation(80)
                .withTimeouts(Duration.ofSeconds(30), Duration.ofSeconds(4)).withManualTicks());
        others.add(w);
        SyncLink jm = w.link(Role.JOB_MASTER, "jm1", 1);
        assertFalse(jm.send(full(batch("j1", 1))).isRefusal());
        drain(jm);
        long t0 = System.nanoTime();
        assertTrue(jm.poll(20_000).isEmpty(), "nothing to hear");
        long waited = (System.nanoTime() - t0) / 1_000_000;
        assertTrue(waited < 10_000, "a poll asking for 20 s waited " + waited + " ms at a master whose job master timeout is 4 s");
        w.clock.advance(3_000);
        assertTrue(jm.poll(20_000).isEmpty());
        w.clock.advance(3_000);
        w.master.tick(); // 6 s since its first poll, 3 s since its last: not lost
        assertTrue(w.master.jobMasters().stream().allMatch(p -> p.state().equals("live")), w.master.jobMasters().toString());
    }

    // ---- helpers -----------------------------------------------------------------------------------

    private static Register register(String node, long cpu) {
        return new Register(node, "r1", Map.of(), Resources.of(cpu, 1024), "http://127.0.0.1:9/" + node);
    }

    /** Agent {@code node} registered, its first (full, empty) cap taken. */
    private static SyncLink agent(MasterHarness m, String node, long cpu) {
        SyncLink a = m.link(Role.AGENT, node, 1);
        assertFalse(a.send(register(node, cpu)).isRefusal());
        assertTrue(next(a, Cap.class).full());
        return a;
    }

    private static JobSpec batch(String id, int desired) {
        return JobSpec.of(id, "default", UnitSpec.builder("tasks").slot(SLOT).desired(desired).build());
    }

    private static Request full(JobSpec... jobs) {
        return new Request(true, List.of(jobs), List.of(), List.of(), List.of());
    }

    private static Request release(long mark, int slots) {
        return new Request(false, List.of(), List.of(), List.of(), List.of(new Request.Release(TASKS, "n1", slots))).withMark(mark);
    }

    private static Heartbeat uncapped(Heartbeat.Worker... workers) {
        return new Heartbeat(List.of(), List.of(), null, List.of(workers));
    }

    private static String key(MasterHarness m, String jobMaster) {
        return Tokens.key(m.tokens.issue(new Sender(Role.JOB_MASTER, jobMaster)));
    }

    /** The next envelope of {@code link}'s inbox, which must be a {@code type}, within 10 s. */
    private static <T> T next(SyncLink link, Class<T> type) {
        for (int i = 0; i < 20; i++) {
            Optional<Envelope> e = link.poll(500);
            if (e.isPresent()) {
                return type.cast(e.get().message());
            }
        }
        throw new AssertionError("no " + type.getSimpleName() + " within 10 s");
    }

    /** The first hint (within 10 s) that {@code wanted} matches, skipping others. */
    private static Hint until(SyncLink jm, Predicate<Hint> wanted) {
        List<Hint> seen = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            Optional<Envelope> e = jm.poll(500);
            if (e.isPresent() && e.get().message() instanceof Hint x) {
                if (wanted.test(x)) {
                    return x;
                }
                seen.add(x);
            }
        }
        throw new AssertionError("no such hint within 10 s; saw " + seen);
    }

    /** Every hint due now, until none comes within 300 ms. */
    private static List<Hint> drain(SyncLink jm) {
        List<Hint> out = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            Optional<Envelope> e = jm.poll(300);
            if (e.isEmpty()) {
                break;
            }
            out.add((Hint) e.get().message());
        }
        return out;
    }
}

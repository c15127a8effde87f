package granary.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import granary.api.model.ManualClock;
import granary.api.model.Problem;
import granary.api.model.Resources;
import granary.api.model.UnitId;
import granary.protocol.Ack;
import granary.protocol.Cap;
import granary.protocol.Envelope;
import granary.protocol.Heartbeat;
import granary.protocol.Plan;
import granary.protocol.Register;
import granary.protocol.Role;
import granary.protocol.Sender;
import granary.protocol.WireCodec;
import granary.protocol.disk.FileDisk;
import granary.protocol.link.Endpoint;
import granary.protocol.link.ManualLoop;
import granary.protocol.link.Reply;
import granary.protocol.link.PlanPass;
import granary.protocol.link.Tokens;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The agent's role as a state machine on a manual loop (docs/recovery.md, "The agent rides out its
 * master", "A silent node", "A torn checkpoint", "Workers without a cap"): the shipped
 * {@link AgentRole} with real worker processes ({@link OsLauncher}) in a temporary work dir, against
 * a stand-in master ({@link LoopMaster}) whose answers the test hands over, so that virtual time and
 * the order of answers are the test's.
 */
@Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class AgentRoleTest {

    private static final UnitId UNIT = UnitId.parse("j/u");
    private static final Resources SLOT = Resources.of(100, 64);

    @TempDir
    Path dir;

    private final ManualClock clock = new ManualClock(1_000_000);
    private final ManualLoop loop = new ManualLoop(clock);
    private final LoopMaster master = new LoopMaster();
    private final List<String> events = new CopyOnWriteArrayList<>();
    private final Tokens tokens = new Tokens("the agent role test's secret, 32 bytes".getBytes(StandardCharsets.UTF_8));
    private final String key1 = Tokens.key(tokens.issue(new Sender(Role.JOB_MASTER, "jm1")));
    private final WireCodec jobMasterCodec = new WireCodec(Role.JOB_MASTER);
    private final List<Integer> gaveUp = new ArrayList<>();
    private final List<AgentRole> roles = new ArrayList<>();
    private Endpoint desk;
    /** The job master's incarnation and sequence for plans to the current desk. */
    private long planIncarnation;
    private long planSequence;

    @AfterEach
    void stopEveryWorker() throws InterruptedException {
        List<Launcher.Running> running = new ArrayList<>();
        for (AgentRole r : roles) {
            r.close();
            r.node().workers().forEach(w -> running.add(w.process()));
        }
        running.forEach(Launcher.Running::kill);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (running.stream().anyMatch(Launcher.Running::alive) && System.nanoTime() < deadline) {
            Thread.sleep(20); // processes end on their own time: poll, with the deadline above
        }
    }

    // ---- 1: declared lost -------------------------------------------------------------------------

    /**
     * A master that declared the node lost refuses its next heartbeat; the agent registers again in
     * the same instant, with a larger epoch (its old plans are void), and its workers go on running:
     * a master's refusal never stops a worker (docs/recovery.md, "A silent node", "The agent rides
     * out its master").
     */
    @Test
    void aHeartbeatRefusedAsDeclaredLostMakesTheAgentRegisterAgainAtOnceWithALargerEpochKeepingItsWorkers() throws Exception {
        AgentRole agent = start(loop);
        long e1 = master.registrations().get(0).epoch();
        master.send(fullCap(2));
        loop.advance(300, 50);
        assertEquals(Ack.applied(1), plan(launch(0, "sleep", "30")));
        long pid = pidOf(agent, 0);

        int[] refusals = {0};
        master.judge(e -> e.message() instanceof Heartbeat && refusals[0]++ == 0 ? List.of(Problem.of("agent n1", "$.type",
                "agent n1" + Register.DECLARED_LOST + "30 s of silence: register again")) : List.of());
        int beats = master.heartbeats().size();
        clock.advance(1_000);
        loop.runDue(); // the heartbeat falls due, is refused, and the agent registers: all in this instant

        assertTrue(refusals[0] > 0 && master.heartbeats().size() > beats, "the heartbeat that fell due was sent, and refused");
        List<Register> regs = master.registrations();
        assertEquals(2, regs.size(), events.toString());
        Heartbeat refused = master.heartbeats().get(beats);
        assertEquals(master.arrivedAt(refused), master.arrivedAt(regs.get(1)), "registered again at once, not a heartbeat later");
        assertTrue(regs.get(1).epoch() > e1, "a new registration, a larger epoch: " + e1 + " then " + regs.get(1).epoch());
        assertTrue(events.contains("declared-lost epoch=" + e1
                + " (launches planned before are not started: their work runs elsewhere)"), events.toString());
        assertEquals(List.of(grant(2)), regs.get(1).caps(), "it registers with the caps it holds");

        loop.runDue();
        assertTrue(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false), "its worker runs on");
        assertEquals(1, agent.node().running(UNIT));
        assertTrue(events.stream().noneMatch(l -> l.startsWith("stopping")), events.toString());
        Heartbeat after = master.heartbeats().get(master.heartbeats().size() - 1);
        assertTrue(after.started().contains(new Heartbeat.Worker(UNIT, 0)), "the master it registered with hears of the worker: " + after);
    }

    // ---- 2: epochs --------------------------------------------------------------------------------

    /**
     * Plan sessions do not pile up: the session of a job master that holds no caps here and sent
     * nothing for longer than a pass lives is forgotten (docs/security.md, "Plan passes"); one that
     * holds caps keeps its session however quiet.
     */
    @Test
    void theSessionOfAJobMasterWithoutCapsHereIsForgottenWhenIdle() throws Exception {
        start(loop);
        master.send(fullCap(1));
        loop.advance(300, 50);
        assertEquals(Ack.applied(1), plan(launch(0, "true")));
        String jm2 = PlanPass.issue(tokens.agentKey("n1"), new PlanPass.Claims("jm2", 1, "n1",
                Tokens.key(tokens.issue(new Sender(Role.JOB_MASTER, "jm2"))), Long.MAX_VALUE));
        Envelope e = Envelope.of(new Sender(Role.JOB_MASTER, "jm2"), 1, 1, new Plan(List.of(
                new Plan.Launch(UnitId.parse("k/v"), 0, List.of("true"), Map.of(), ""))));
        assertEquals(200, desk.post("Bearer " + jm2, jobMasterCodec.encode(e), "test").status(), "kept until its cap comes");
        PlanDesk d = (PlanDesk) desk;
        assertEquals(2, d.sessionCount());

        clock.advance(PlanDesk.SESSION_IDLE_MILLIS + 61_000);
        loop.advance(100, 50);
        assertEquals(Ack.applied(2), plan(launch(1, "true")), "jm1 holds caps here: its session stays");
        assertEquals(1, d.sessionCount(), "jm2 holds none and was quiet: forgotten");
    }

    /**
     * Every registration takes a larger epoch: after a master restart, and after a restart of the
     * agent itself, even on a clock that reads earlier than its last registration — the checkpoint
     * keeps the epoch. A master that declared the node lost may have died before saying so: an epoch
     * used twice would let a plan of that lost time start (docs/protocol.md, "Plans").
     */
    @Test
    void everyRegistrationTakesALargerEpochAlsoAfterARestartOfTheAgentFromItsCheckpoint() throws Exception {
        AgentRole first = start(loop);
        long e1 = master.registrations().get(0).epoch();
        master.send(fullCap(1));
        loop.advance(300, 50);
        assertEquals(e1, checkpoint().epoch(), "the checkpoint keeps the epoch of the registration");

        master.restart();
        loop.advance(1_100, 50); // the next heartbeat meets the new master: the agent registers again
        assertEquals(2, master.registrations().size(), events.toString());
        long e2 = master.registrations().get(1).epoch();
        assertTrue(e2 > e1, e1 + " then " + e2);
        master.send(fullCap(1));
        loop.advance(300, 50);
        assertEquals(e2, checkpoint().epoch());

        first.close(); // killed; its successor's clock reads a minute earlier (a clock stepped back)
        ManualLoop earlier = new ManualLoop(new ManualClock(clock.millis() - 60_000));
        start(earlier);
        long e3 = master.registrations().get(2).epoch();
        assertEquals(e2 + 1, e3, "larger than any before on this node, though the clock reads earlier");
    }

    /**
     * A launch planned under an earlier registration's epoch is refused with the epoch problem (the
     * job master reads the limit and value) and not started; one planned under the current epoch
     * starts (docs/protocol.md, "Plans").
     */
    @Test
    void aLaunchPlannedUnderAnEarlierEpochIsRefusedWithTheEpochProblemAndNotStarted() throws Exception {
        AgentRole agent = start(loop);
        long e1 = master.registrations().get(0).epoch();
        master.send(fullCap(2));
        loop.advance(300, 50);
        master.restart();
        loop.advance(1_100, 50);
        long e2 = master.registrations().get(1).epoch();
        master.send(fullCap(2));
        loop.advance(300, 50);

        Ack stale = plan(launch(0, "sleep", "30").withEpoch(e1));
        assertTrue(stale.isRefusal(), stale.toString());
        Problem p = stale.problems().get(0);
        assertEquals("$.message.launches[0].epoch", p.field());
        assertTrue(p.message().startsWith("was planned under an earlier registration of node n1 (epoch " + e1 + ", now " + e2),
                p.message());
        assertEquals(e2, p.limit());
        assertEquals(e1, p.value());
        assertEquals(0, agent.node().running(UNIT));
        assertEquals(0, agent.node().pendingCount(), "nor kept");
        assertTrue(events.stream().noneMatch(l -> l.startsWith("launched unit=j/u slot=0")), events.toString());

        assertEquals(Ack.applied(2), plan(launch(1, "sleep", "30").withEpoch(e2)));
        assertEquals(1, agent.node().running(UNIT), "a launch of the current epoch starts");
    }

    /**
     * Launches kept waiting for a cap are dropped at every registration, whatever epoch they name: the
     * master that grants after it may not be the one they were planned for; a job master that still
     * wants one asks again with a probe (docs/recovery.md, "A silent node").
     */
    @Test
    void launchesKeptFromBeforeARegistrationAreDroppedAndNeverStart() throws Exception {
        AgentRole agent = start(loop);
        assertEquals(Ack.applied(1), plan(launch(0, "sleep", "30")));
        assertEquals(1, agent.node().pendingCount());
        assertTrue(events.contains("kept unit=j/u slot=0 reason=no-cap-yet"), events.toString());

        master.restart();
        loop.advance(1_100, 50);
        assertEquals(2, master.registrations().size());
        assertTrue(events.contains("dropped unit=j/u slot=0 reason=it waited for a cap from before this registration"),
                events.toString());
        assertEquals(0, agent.node().pendingCount());

        master.send(fullCap(1));
        loop.advance(300, 50);
        assertEquals(List.of(grant(1)), agent.caps());
        assertEquals(0, agent.node().running(UNIT), "the cap that came after the registration starts nothing of before");
        assertTrue(events.stream().noneMatch(l -> l.startsWith("launched")), events.toString());
    }

    // ---- 3: riding out the master, giving up ----------------------------------------------------

    /** A first start with no worker whose token the master refuses gives up with exit 3 and stops talking. */
    @Test
    void aFirstStartWithoutWorkersGivesUpWithExit3WhenItsTokenIsRefused() throws Exception {
        master.unauthorized(true);
        CompletableFuture<Void> started = startQuietly();
        assertEquals(List.of(AgentRole.UNAUTHORIZED), gaveUp);
        assertEquals(3, Main.UNAUTHORIZED);
        assertTrue(started.isCompletedExceptionally());
        assertTrue(events.stream().anyMatch(l -> l.startsWith("giving-up code=3 the master at http://master.test refused the token"
                + " of node n1")), events.toString());
        int calls = master.calls;
        loop.advance(30_000, 100);
        assertEquals(calls, master.calls, "an agent that gave up says nothing more");
    }

    /** A first start with no worker whose registration the master reads and refuses gives up with exit 5 (Main, README). */
    @Test
    void aFirstStartWithoutWorkersGivesUpWithExit5WhenItsRegistrationIsRefused() throws Exception {
        master.judge(e -> e.message() instanceof Register ? List.of(Problem.of("agent n1", "$.message.room",
                "node n1 is in the cluster in room r9; moving it needs it removed first")) : List.of());
        startQuietly();
        assertEquals(List.of(AgentRole.REFUSED), gaveUp);
        assertEquals(5, Main.REFUSED);
        assertTrue(events.stream().anyMatch(l -> l.startsWith("register-refused")), events.toString());
    }

    /** A first start with no worker that no master answers gives up with exit 4 once its retries are spent (Main, README). */
    @Test
    void aFirstStartWithoutWorkersGivesUpWithExit4WhenNoMasterAnswersWithinItsRetries() throws Exception {
        master.unreachable(true);
        startQuietly();
        assertEquals(List.of(), gaveUp, "not at the first failure");
        loop.advance(20_000, 50);
        assertEquals(List.of(AgentRole.UNREACHABLE), gaveUp);
        assertEquals(4, Main.UNREACHABLE);
        assertEquals(3, master.calls, "its first post and --register-retries=2 more");
        assertTrue(events.stream().anyMatch(l -> l.startsWith("giving-up code=4 cannot register node n1: the master at"
                + " http://master.test is unreachable after 3 attempts (--register-retries=2)")), events.toString());
    }

    /**
     * Registered once, an agent never gives up on its master: two minutes unreachable, it keeps its
     * worker running, says so, and registers again as soon as a (restarted) master answers
     * (docs/recovery.md, "The agent rides out its master").
     */
    @Test
    void anAgentRegisteredOnceNeverGivesUpAndKeepsItsWorkersRunningWhileTheMasterIsAway() throws Exception {
        AgentRole agent = start(loop);
        master.send(fullCap(1));
        loop.advance(300, 50);
        plan(launch(0, "sleep", "30"));
        long pid = pidOf(agent, 0);

        master.unreachable(true);
        loop.advance(120_000, 100);
        assertEquals(List.of(), gaveUp);
        assertTrue(events.stream().anyMatch(l -> l.startsWith("master-trouble master=http://master.test kind=UNREACHABLE")
                && l.contains("(keeping its 1 workers running; trying again)")), events.toString());
        assertTrue(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false), "its worker runs on");

        master.restart();
        master.unreachable(false);
        loop.advance(6_000, 50);
        assertEquals(2, master.registrations().size(), "it registers again with the master that answers");
        assertEquals(List.of(grant(1)), master.registrations().get(1).caps());
        assertTrue(agent.registered());
        assertEquals(1, agent.node().running(UNIT));
    }

    /**
     * An agent that starts with workers of a previous life running (killed with -9; the OS kept them)
     * never gives up, even on a first start that no master answers: it rides the master out, and its
     * start completes so that its process stays up (docs/recovery.md, "The agent rides out its master").
     */
    @Test
    void aFirstStartThatFindsWorkersRunningRidesOutAnUnreachableMasterInsteadOfGivingUp() throws Exception {
        AgentRole first = start(loop);
        master.send(fullCap(1));
        loop.advance(300, 50);
        plan(launch(0, "sleep", "30"));
        long pid = pidOf(first, 0);
        first.close();

        master.unreachable(true);
        ManualLoop later = new ManualLoop(clock);
        CompletableFuture<Void> started = startQuietly(later);
        assertTrue(events.contains("adopted unit=j/u slot=0 pid=" + pid), events.toString());
        later.advance(60_000, 100);
        assertEquals(List.of(), gaveUp);
        assertTrue(started.isDone() && !started.isCompletedExceptionally(), "its start completes: it rides the master out");
        assertTrue(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false));

        master.unreachable(false);
        later.advance(6_000, 50);
        assertEquals(2, master.registrations().size(), "registered once a master answers");
    }

    // ---- 4: the master's word must be fresh ----------------------------------------------------

    /**
     * An agent that was frozen past three heartbeats keeps the plans that queued up meanwhile, with
     * reason master-unconfirmed: the answer to a heartbeat sent before the pause does not count (it
     * may be from before the master declared the node lost); only a heartbeat sent after the pause and
     * answered starts them (docs/recovery.md, "A silent node"; kit seed 54).
     */
    @Test
    void afterALongPausePlansWaitAsMasterUnconfirmedUntilAHeartbeatSentAfterThePauseIsAnswered() throws Exception {
        AgentRole agent = start(loop);
        master.send(fullCap(2));
        loop.advance(300, 50);
        master.hold(); // the next heartbeat's answer reaches the agent only after its pause
        loop.advance(1_000, 50);
        int beats = master.heartbeats().size();

        clock.advance(10_000); // frozen (SIGSTOP): the clock runs, none of the agent's tasks does
        assertEquals(Ack.applied(1), plan(launch(0, "sleep", "30")));
        assertTrue(events.contains("kept unit=j/u slot=0 reason=master-unconfirmed"), events.toString());
        assertEquals(0, agent.node().running(UNIT));

        master.release();
        loop.runDue(); // the answer to the heartbeat sent before the pause
        assertEquals(0, agent.node().running(UNIT), "an answer to a heartbeat sent before the pause starts nothing");
        assertEquals(1, agent.node().pendingCount());

        loop.advance(1_100, 50); // a heartbeat sent now, answered
        assertTrue(master.heartbeats().size() > beats);
        assertEquals(1, agent.node().running(UNIT), events.toString());
        assertEquals(0, agent.node().pendingCount());
    }

    // ---- 8: a torn checkpoint, workers without a cap ------------------------------------------

    /**
     * An agent that finds no checkpoint (lost or torn) rebuilds the caps of the workers it finds
     * running from their run records — one per unit, as many slots as workers, for the job master and
     * key they name — and registers with them: a master that rebuilds then keeps those slots on this
     * node (docs/recovery.md, "A torn checkpoint").
     */
    @Test
    void withoutACheckpointTheCapsOfTheWorkersFoundRunningAreRebuiltFromTheirRunRecords() throws Exception {
        AgentRole first = start(loop);
        Cap.Grant online = new Cap.Grant("jm1", UNIT, 3, key1, SLOT, true);
        master.send(new Cap(List.of(online), List.of(), true));
        loop.advance(300, 50);
        plan(launch(0, "sleep", "30"), launch(1, "sleep", "30"));
        assertEquals(2, first.node().running(UNIT));
        first.close();
        Files.delete(dir.resolve(AgentRole.CHECKPOINT));

        AgentRole second = start(new ManualLoop(clock));
        Cap.Grant rebuilt = new Cap.Grant("jm1", UNIT, 2, key1, SLOT, true);
        assertEquals(List.of(rebuilt), second.caps());
        assertTrue(events.contains("cap-rebuilt unit=j/u slots=2 jobMaster=jm1 (from the workers found running)"), events.toString());
        assertEquals(List.of(rebuilt), master.registrations().get(1).caps(), "the registration carries them");
    }

    /**
     * With a checkpoint, a worker the agent holds no cap for gets none; it is reported as uncapped in
     * every heartbeat once — and only once — a full cap said what the master grants here, and the
     * agent never stops it on its own: the master decides (docs/recovery.md, "Workers without a cap").
     */
    @Test
    void aWorkerWithoutACapIsReportedOnlyAfterAFullCapAndNeverStoppedByTheAgentAlone() throws Exception {
        AgentRole first = start(loop);
        master.send(fullCap(1));
        loop.advance(300, 50);
        plan(launch(0, "sleep", "30"));
        long pid = pidOf(first, 0);
        first.close();
        // a checkpoint that holds no cap of the worker (a withdrawal went past it)
        new Checkpoint(new FileDisk(dir), AgentRole.CHECKPOINT).write(new Checkpoint.State("n1", first.incarnation(), List.of(),
                master.registrations().get(0).epoch()));

        ManualLoop later = new ManualLoop(clock);
        AgentRole second = start(later);
        assertEquals(List.of(), second.caps(), "a worker it holds no cap for is given none");
        assertTrue(events.stream().noneMatch(l -> l.startsWith("cap-rebuilt")), events.toString());
        assertEquals(List.of(), master.registrations().get(1).caps());
        later.advance(2_500, 50);
        int before = master.heartbeats().size();
        assertTrue(master.heartbeats().stream().allMatch(h -> h.uncapped().isEmpty()), "nothing uncapped before a full cap");

        master.send(new Cap(List.of(), List.of(), true));
        later.advance(3_500, 50);
        List<Heartbeat> after = master.heartbeats().subList(before, master.heartbeats().size());
        assertTrue(after.size() >= 3, after.toString());
        for (Heartbeat h : after.subList(1, after.size())) {
            assertEquals(List.of(new Heartbeat.Worker(UNIT, 0)), h.uncapped(), "reported with every heartbeat: " + after);
        }
        assertTrue(events.contains("uncapped unit=j/u slot=0 (runs beyond its cap: reported, the master decides)"), events.toString());
        assertTrue(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false), "never stopped by the agent alone");
        assertEquals(1, second.node().running(UNIT));
        assertTrue(events.stream().noneMatch(l -> l.startsWith("stopping")), events.toString());
    }

    // ---- helpers ----------------------------------------------------------------------------------

    /** Starts an agent on {@code l} in the work dir and runs it until it registered. */
    private AgentRole start(ManualLoop l) throws Exception {
        CompletableFuture<Void> started = startQuietly(l);
        assertTrue(started.isDone() && !started.isCompletedExceptionally(), "registered: " + events);
        return roles.get(roles.size() - 1);
    }

    private CompletableFuture<Void> startQuietly() throws Exception {
        return startQuietly(loop);
    }

    private CompletableFuture<Void> startQuietly(ManualLoop l) throws Exception {
        AgentConfig c = AgentConfig.of(URI.create("http://master.test"), "n1", Resources.of(800, 4096),
                        tokens.issue(new Sender(Role.AGENT, "n1")), dir)
                .withHeartbeat(Duration.ofSeconds(1)).withPollWait(Duration.ZERO).withPollPause(Duration.ofMillis(100))
                .withStopGrace(Duration.ofSeconds(1)).withRegisterRetries(2).withRequestTimeout(Duration.ofSeconds(1));
        AgentRole r = new AgentRole(c, l, master, new FileDisk(dir), new OsLauncher(dir, "n1", l), events::add,
                (code, why) -> gaveUp.add(code));
        roles.add(r);
        desk = r.load();
        planIncarnation++;
        planSequence = 0;
        CompletableFuture<Void> started = r.start(URI.create("http://127.0.0.1:1/n1"));
        l.runDue();
        return started;
    }

    /** Posts a plan of {@code launches} to the agent's desk as job master jm1; the agent's ack. */
    private Ack plan(Plan.Launch... launches) {
        Envelope e = Envelope.of(new Sender(Role.JOB_MASTER, "jm1"), planIncarnation, ++planSequence, new Plan(List.of(launches)));
        Reply r = desk.post("Bearer " + jm1Pass(), jobMasterCodec.encode(e), "test");
        return (Ack) jobMasterCodec.decode(r.body(), "agent").message();
    }

    /** What jm1's plans carry: the pass the master gives its current incarnation for node n1 (docs/security.md, "Plan passes"). */
    private String jm1Pass() {
        return PlanPass.issue(tokens.agentKey("n1"), new PlanPass.Claims("jm1", planIncarnation, "n1", key1, Long.MAX_VALUE));
    }

    private static Plan.Launch launch(int slot, String... command) {
        return new Plan.Launch(UNIT, slot, List.of(command), Map.of(), "");
    }

    private Cap.Grant grant(int slots) {
        return new Cap.Grant("jm1", UNIT, slots, key1);
    }

    private Cap fullCap(int slots) {
        return new Cap(List.of(grant(slots)), List.of(), true);
    }

    private Checkpoint.State checkpoint() throws Exception {
        return new Checkpoint(new FileDisk(dir), AgentRole.CHECKPOINT).read();
    }

    private static long pidOf(AgentRole agent, int slot) {
        Workers.Worker w = agent.node().workers().stream().filter(x -> x.slot() == slot).findFirst().orElse(null);
        assertNotNull(w, "no worker in slot " + slot);
        return w.pid();
    }
}

package granary.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
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
import granary.protocol.Role;
import granary.protocol.Sender;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import granary.protocol.link.ManualLoop;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The kept launches' bounds, in virtual time (no process is started: no cap ever arrives). */
class NodeTest {

    @TempDir
    Path dir;

    private final ManualClock clock = new ManualClock(1_000);
    private final ManualLoop loop = new ManualLoop(clock);
    private final List<String> events = new ArrayList<>();
    /** Counts each time a node asks for a heartbeat now: a worker's exit, for one. */
    private int heartbeatsAsked;

    private Node node(int maxPending, Duration expiry) {
        AgentConfig c = AgentConfig.of(URI.create("http://127.0.0.1:1"), "n1", Resources.of(100, 64), "t", dir)
                .withPending(maxPending, expiry);
        Node n = new Node(c, loop, new Workers(launcher(), loop, Duration.ofSeconds(1)), events::add, () -> heartbeatsAsked++);
        n.confirmed(true); // as a registered agent whose master answers
        return n;
    }

    private OsLauncher launcher() {
        return new OsLauncher(dir, "n1", loop);
    }

    /** Runs the loop's tasks (exits handed over by process threads) until {@code done}, at most 20 s. */
    private void runUntil(java.util.function.BooleanSupplier done) throws InterruptedException {
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(20);
        while (!done.getAsBoolean() && System.nanoTime() < deadline) {
            loop.runDue();
            Thread.sleep(10);   // the processes end on their own: poll, with the deadline above
        }
        loop.runDue();
    }

    private static Envelope plan(long sequence, int... slots) {
        List<Plan.Launch> l = new ArrayList<>();
        for (int s : slots) {
            l.add(new Plan.Launch(UnitId.parse("j/u"), s, List.of("true"), Map.of(), ""));
        }
        return Envelope.of(new Sender(Role.JOB_MASTER, "jm1"), 1, sequence, new Plan(l));
    }

    /**
     * A restarted agent (a new Node on the same work dir; the old one left its worker running, as a
     * kill -9 does) adopts the worker still running — "already running" to a plan, counted against
     * its cap, its end reported — and reports as ended a worker that ended while no agent watched it
     * (docs/recovery.md, "Exits that never arrive").
     */
    @Test
    void aRestartedAgentAdoptsTheWorkersItsPreviousLifeLeftAndReportsThoseThatEnded() throws Exception {
        UnitId u = UnitId.parse("j/u");
        Node first = node(10, Duration.ofMinutes(5));
        first.load(List.of(new Cap.Grant("jm1", u, 2, "k")));
        Envelope longRun = Envelope.of(new Sender(Role.JOB_MASTER, "jm1"), 1, 1,
                new Plan(List.of(new Plan.Launch(u, 0, List.of("sleep", "30"), Map.of(), ""))));
        assertEquals(Ack.applied(1), first.plan("jm1", "k", longRun));
        Path runDir = dir.resolve("run");
        Path orphanFile = runDir.resolve("j.u.0.worker");
        assertTrue(Files.isRegularFile(orphanFile), "the worker's run file");
        long pid = Long.parseLong(Files.readAllLines(orphanFile).stream().filter(l -> l.startsWith("pid="))
                .findFirst().orElseThrow().substring(4));
        // a worker of slot 1 that ended while no agent watched it: its file names a process that is gone,
        // and its wrapper wrote its code; one of slot 2 whose code nobody wrote
        Process gone = new ProcessBuilder("true").start();
        gone.waitFor();
        String record = "jobMaster=jm1\nkey=k\nsize=cpu=100,mem=64\nonline=false\npid=" + gone.pid() + "\nstart=1\n";
        Files.writeString(runDir.resolve("j.u.1.worker"), "unit=j/u\nslot=1\n" + record);
        Files.writeString(runDir.resolve("j.u.1.exit"), "3\n");
        Files.writeString(runDir.resolve("j.u.2.worker"), "unit=j/u\nslot=2\n" + record);
        Files.writeString(runDir.resolve("torn.worker"), "unit=j/");
        try {
            Node second = node(10, Duration.ofMinutes(5));
            second.load(List.of(new Cap.Grant("jm1", u, 2, "k")));
            second.adopt(launcher().left(events::add));
            assertTrue(events.contains("adopted unit=j/u slot=0 pid=" + pid), events.toString());
            assertTrue(events.contains("exited unit=j/u slot=1 code=3 (while the agent was down)"), events.toString());
            assertTrue(events.contains("exited unit=j/u slot=2 code=-2 (while the agent was down)"), events.toString());
            assertTrue(events.stream().anyMatch(e -> e.contains("torn.worker") && e.contains("dropped")), events.toString());
            assertEquals(1, second.running(u), "the adopted worker counts against the cap");
            Ack again = second.plan("jm1", "k", Envelope.of(new Sender(Role.JOB_MASTER, "jm1"), 2, 1,
                    new Plan(List.of(new Plan.Launch(u, 0, List.of("sleep", "30"), Map.of(), "")))));
            assertTrue(again.isRefusal() && again.problems().get(0).message().contains("is already running"), again.toString());
            second.registered();
            Heartbeat h = second.drain(true);
            assertEquals(List.of(new Heartbeat.Worker(u, 0)), h.started(), "a new master hears of the adopted worker");
            assertEquals(List.of(new Heartbeat.Exit(u, 1, 3), new Heartbeat.Exit(u, 2, -2)), h.exited());
            assertFalse(Files.exists(runDir.resolve("torn.worker")));
            assertTrue(Files.exists(runDir.resolve("j.u.1.worker")), "a record stays until the master has its exit");
            second.acknowledged(h);
            assertTrue(Files.exists(runDir.resolve("j.u.1.reported")), "an acknowledged end stays on disk, marked reported");

            // An agent that restarts now still knows the end: it answers a launch of that slot with it,
            // saying a master has it, and reports it no more.
            Node third = node(10, Duration.ofMinutes(5));
            third.load(List.of(new Cap.Grant("jm1", u, 2, "k")));
            third.adopt(launcher().left(events::add));
            Ack ended = third.plan("jm1", "k", Envelope.of(new Sender(Role.JOB_MASTER, "jm1"), 3, 1,
                    new Plan(List.of(new Plan.Launch(u, 1, List.of("true"), Map.of(), "").asProbe()))));
            assertEquals(java.util.OptionalInt.of(3), granary.protocol.LaunchAnswers.endedWith(ended.problems()), ended.toString());
            assertTrue(granary.protocol.LaunchAnswers.endReported(ended.problems()), ended.toString());
            third.registered();
            assertEquals(List.of(), third.drain(true).exited().stream().filter(x -> x.slot() == 1).toList(),
                    "an end a master acknowledged is not reported twice");
            // Once remembered long enough, the record goes.
            clock.advance(AgentConfig.DEFAULT_EXIT_RETENTION.toMillis() + 1);
            third.expire();
            assertFalse(Files.exists(runDir.resolve("j.u.1.worker")) || Files.exists(runDir.resolve("j.u.1.exit"))
                    || Files.exists(runDir.resolve("j.u.1.reported")), "forgotten after the exit retention");

            ProcessHandle.of(pid).ifPresent(ProcessHandle::destroy);
            // Both nodes see the worker end (the first one is still the wrapper's parent); what counts is
            // that the second one reports it, with the code its wrapper recorded (SIGTERM: 143).
            List<Heartbeat.Exit> ends = new java.util.ArrayList<>();
            runUntil(() -> {
                Heartbeat end = second.drain(false);
                if (end != null) {
                    ends.addAll(end.exited());
                }
                return !ends.isEmpty();
            });
            assertEquals(List.of(new Heartbeat.Exit(u, 0, 143)), ends,
                    "the adopted worker's end is reported with the code its wrapper wrote");
            assertEquals(0, second.running(u));
        } finally {
            ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
        }
    }

    @Test
    void keptLaunchesExpire() {
        Node n = node(10, Duration.ofMinutes(5));
        assertEquals(Ack.applied(1), n.plan("jm1", "k", plan(1, 0, 1)));
        assertEquals(2, n.pendingCount());
        clock.advance(Duration.ofMinutes(5).toMillis() - 1);
        n.expire();
        assertEquals(2, n.pendingCount());
        clock.advance(1);
        n.expire();
        assertEquals(0, n.pendingCount());
        assertTrue(events.contains("expired unit=j/u slot=0 reason=no cap within 300s"), events.toString());
    }

    @Test
    void tooManyKeptLaunchesRefuseThePlanWhole() {
        Node n = node(2, Duration.ofMinutes(5));
        assertEquals(Ack.applied(1), n.plan("jm1", "k", plan(1, 0)));
        Ack a = n.plan("jm1", "k", plan(2, 1, 2));
        assertTrue(a.isRefusal());
        Problem p = a.problems().get(0);
        assertEquals(2L, p.limit());
        assertEquals(3L, p.value());
        assertTrue(p.message().contains("limit of 2 kept launches"), p.message());
        assertEquals(1, n.pendingCount(), "nothing of a refused plan is kept");
        Ack dup = n.plan("jm1", "k", plan(3, 0));
        assertTrue(dup.problems().get(0).message().contains("slot 0 of unit j/u is already planned"), dup.toString());
    }

    @Test
    void theExitsOfAHeartbeatThatDidNotTakeEffectAreReportedAgainAfterARegistration() throws Exception {
        Node n = node(10, Duration.ofMinutes(5));
        n.apply(new granary.protocol.Cap(List.of(new granary.protocol.Cap.Grant("jm1", UnitId.parse("j/u"), 1, "k")), List.of(), true));
        assertEquals(Ack.applied(1), n.plan("jm1", "k", plan(1, 0)));
        // the worker ("true") ends at once; its exit asks for a heartbeat
        runUntil(() -> heartbeatsAsked > 0);
        assertTrue(heartbeatsAsked > 0, "the worker's exit was never seen: " + events);
        granary.protocol.Heartbeat h = n.drain(false);
        assertTrue(h != null && !h.exited().isEmpty(), "the worker's exit was never reported: " + events);
        assertTrue(n.drain(true).exited().isEmpty(), "drained");
        n.unsent(h);            // refused, or dropped with a master that restarted
        n.registered();         // the agent registers again
        assertEquals(h.exited(), n.drain(true).exited(), "the exit goes again: its slot is released only then");
    }
}

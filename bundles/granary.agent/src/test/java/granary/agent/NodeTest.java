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
import granary.protocol.LaunchAnswers;
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

/** The node's rules in virtual time (a manual loop), with real worker processes where a cap lets one start. */
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

    /** This JVM's child processes, each with its state, signals pending, blocked, ignored and caught, and command: said when a wait fails. */
    private static String tree() {
        StringBuilder b = new StringBuilder("; processes:");
        ProcessHandle.current().descendants().forEach(h -> {
            String stat;
            String cmd;
            try {
                String st = Files.readString(Path.of("/proc/" + h.pid() + "/stat"));
                String[] f = st.substring(st.lastIndexOf(')') + 2).trim().split(" ");
                // after the command: state ppid ... signal(28) blocked(29) ignored(30) caught(31), counted from the state at 0
                stat = f[0] + " ppid=" + f[1] + " pending=" + f[28] + " blocked=" + f[29] + " ignored=" + f[30] + " caught=" + f[31];
                cmd = Files.readString(Path.of("/proc/" + h.pid() + "/cmdline")).replace('\0', ' ');
            } catch (java.io.IOException | RuntimeException ex) {
                stat = "gone";
                cmd = "";
            }
            b.append("\n  ").append(h.pid()).append(' ').append(stat).append(' ').append(cmd.length() > 80 ? cmd.substring(0, 80) + "..." : cmd);
        });
        return b.toString();
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

    // ---- probes, ended slots, stopped workers (docs/protocol.md, "Plans", "Exits") ---------------

    private static Envelope launches(long sequence, Plan.Launch... l) {
        return Envelope.of(new Sender(Role.JOB_MASTER, "jm1"), 1, sequence, new Plan(List.of(l)));
    }

    private static Plan.Launch launch(int slot, String... command) {
        return new Plan.Launch(UnitId.parse("j/u"), slot, List.of(command), Map.of(), "");
    }

    private static Cap fullCap(int slots) {
        return new Cap(List.of(new Cap.Grant("jm1", UnitId.parse("j/u"), slots, "k")), List.of(), true);
    }

    private long launched(int slot) {
        return events.stream().filter(e -> e.startsWith("launched unit=j/u slot=" + slot + " ")).count();
    }

    /** Ends every worker the node still runs (the test's processes must not outlive it). */
    private static void killAll(Node n) throws InterruptedException {
        List<Launcher.Running> all = n.workers().stream().map(Workers.Worker::process).toList();
        all.forEach(Launcher.Running::kill);
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(10);
        while (all.stream().anyMatch(Launcher.Running::alive) && System.nanoTime() < deadline) {
            Thread.sleep(10); // processes end on their own: poll, with the deadline above
        }
    }

    /**
     * A probe starts at once or not at all, and nothing of it is kept: without a cap, with its cap
     * full, or while the master does not answer the agent, it is answered "not started"; a probe that
     * finds its own launch kept waiting for its cap drops it, so that a cap arriving later starts
     * nothing the job master may have run elsewhere meanwhile (docs/protocol.md, "Plans").
     */
    @Test
    void aProbeStartsAtOnceOrNotAtAllAndDropsItsLaunchKeptWaitingForItsCap() throws Exception {
        Node n = node(10, Duration.ofMinutes(5));
        try {
            Ack noCap = n.plan("jm1", "k", launches(1, launch(0, "true").asProbe()));
            assertTrue(LaunchAnswers.notStarted(noCap.problems()), noCap.toString());
            assertTrue(noCap.problems().get(0).message().contains("no cap of its unit here"), noCap.toString());
            assertEquals(0, n.pendingCount(), "a probe is never kept");

            assertEquals(Ack.applied(2), n.plan("jm1", "k", launches(2, launch(1, "true"))));
            assertEquals(1, n.pendingCount(), "a plain launch without a cap is kept");
            Ack found = n.plan("jm1", "k", launches(3, launch(1, "true").asProbe()));
            assertTrue(LaunchAnswers.notStarted(found.problems()), found.toString());
            assertTrue(found.problems().get(0).message().contains("it waited for its cap, and is dropped"), found.toString());
            assertEquals(0, n.pendingCount());
            assertTrue(events.contains("dropped unit=j/u slot=1 reason=a probe found it waiting for its cap"), events.toString());

            n.apply(fullCap(1));
            assertEquals(0, launched(1), "the cap that came after the probe starts nothing of the dropped launch");

            assertEquals(Ack.applied(4), n.plan("jm1", "k", launches(4, launch(2, "sleep", "30").asProbe())));
            assertEquals(1, launched(2), "a probe with room starts at once");
            assertEquals(1, n.running(UnitId.parse("j/u")));

            Ack full = n.plan("jm1", "k", launches(5, launch(3, "true").asProbe()));
            assertTrue(LaunchAnswers.notStarted(full.problems()), full.toString());
            assertTrue(full.problems().get(0).message().contains("its cap is full (1 of 1 running)"), full.toString());
            assertEquals(0, n.pendingCount());

            n.apply(fullCap(2));
            n.confirmed(false);
            Ack silent = n.plan("jm1", "k", launches(6, launch(4, "true").asProbe()));
            assertTrue(LaunchAnswers.notStarted(silent.problems()), silent.toString());
            assertTrue(silent.problems().get(0).message().contains("the master does not answer this agent now"), silent.toString());
            assertEquals(0, n.pendingCount());
            n.confirmed(true);
            assertEquals(0, launched(4), "nor started when the master answers again");
        } finally {
            killAll(n);
        }
    }

    /**
     * A launch of a slot whose worker ended is answered with its end ("already ended with exit code
     * N"), saying whether a master acknowledged the exit, and the slot is never started again: a slot
     * is one worker's for good, and a job master that asks learns how it ended (docs/recovery.md,
     * "Exits that never arrive").
     */
    @Test
    void aLaunchOfASlotWhoseWorkerEndedIsAnsweredWithItsEndAndNeverStartedAgain() throws Exception {
        UnitId u = UnitId.parse("j/u");
        Node n = node(10, Duration.ofMinutes(5));
        n.apply(fullCap(2));
        assertEquals(Ack.applied(1), n.plan("jm1", "k", launches(1, launch(0, "/bin/sh", "-c", "exit 3"))));
        runUntil(() -> heartbeatsAsked > 0);
        assertEquals(0, n.running(u), "the worker ended: " + events);

        Ack again = n.plan("jm1", "k", launches(2, launch(0, "/bin/sh", "-c", "exit 3")));
        assertEquals(java.util.OptionalInt.of(3), LaunchAnswers.endedWith(again.problems()), again.toString());
        assertFalse(LaunchAnswers.endReported(again.problems()), "no master has its exit yet: " + again);
        assertTrue(again.problems().get(0).message().contains("already ended with exit code 3"), again.toString());
        assertTrue(again.problems().get(0).message().contains("its exit is on its way to the master"), again.toString());

        Heartbeat h = n.drain(false);
        assertEquals(List.of(new Heartbeat.Exit(u, 0, 3)), h.exited());
        n.acknowledged(h);
        Ack probe = n.plan("jm1", "k", launches(3, launch(0, "/bin/sh", "-c", "exit 3").asProbe()));
        assertEquals(java.util.OptionalInt.of(3), LaunchAnswers.endedWith(probe.problems()), probe.toString());
        assertTrue(LaunchAnswers.endReported(probe.problems()), "a master acknowledged it now: " + probe);

        assertEquals(1, launched(0), "started once, never again: " + events);
        assertEquals(0, n.running(u));
        assertEquals(0, n.pendingCount());
    }

    /**
     * Workers stopped by a withdrawal report stopped=true, so that the master releases nothing more
     * for them (the lower cap was the release): one that finished its work as it was stopped (exit 0)
     * keeps its 0, its job master need not run it again; any other ends with -15 (docs/protocol.md,
     * "Exits").
     */
    @Test
    void workersStoppedByAWithdrawalReportStoppedWithCodeZeroIfTheyExitedZeroElseMinus15() throws Exception {
        UnitId u = UnitId.parse("j/u");
        Node n = node(10, Duration.ofMinutes(5));
        try {
            n.apply(fullCap(2));
            assertEquals(Ack.applied(1), n.plan("jm1", "k", launches(1,
                    launch(0, "/bin/sh", "-c", "trap 'exit 0' TERM; echo ready; while :; do sleep 1; done"),
                    launch(1, "sleep", "30"))));
            Path out = dir.resolve("logs/j.u.0.out");
            runUntil(() -> {
                try {
                    return Files.exists(out) && Files.readString(out).contains("ready");
                } catch (java.io.IOException ex) {
                    return false;
                }
            });
            assertEquals(2, n.running(u));

            n.apply(new Cap(List.of(), List.of(new Cap.Grant("jm1", u, 0, "k"))));
            List<Heartbeat.Exit> ends = new ArrayList<>();
            runUntil(() -> {
                Heartbeat h = n.drain(false);
                if (h != null) {
                    ends.addAll(h.exited());
                }
                return ends.size() == 2;
            });
            assertTrue(ends.contains(new Heartbeat.Exit(u, 0, 0, true)), "stopped as it finished: keeps its 0: " + ends + tree());
            assertTrue(ends.contains(new Heartbeat.Exit(u, 1, Heartbeat.STOPPED, true)), "stopped: -15: " + ends + tree());
            assertEquals(2, ends.size(), ends.toString());
        } finally {
            killAll(n);
        }
    }

    /**
     * An agent that restarts after it stopped workers and before their ends reached a master (kit
     * seeds 5048, 7537): its next life reports each end as the stop it was, -15, not the 143 SIGTERM
     * left (a job master counts that as a failure of its task); one still running is still being
     * stopped — no cap is rebuilt for it, and it is killed if it does not end (docs/recovery.md,
     * "Exits that never arrive").
     */
    @Test
    void aStopOutlivesTheAgentThatMadeIt() throws Exception {
        UnitId u = UnitId.parse("j/u");
        Node first = node(10, Duration.ofMinutes(5));
        Node second = null;
        try {
            first.apply(fullCap(2));
            assertEquals(Ack.applied(1), first.plan("jm1", "k", launches(1,
                    launch(0, "/bin/sh", "-c", "trap '' TERM; echo ready; while :; do sleep 1; done"),
                    launch(1, "sleep", "30"))));
            Path out = dir.resolve("logs/j.u.0.out");
            runUntil(() -> {
                try {
                    return Files.exists(out) && Files.readString(out).contains("ready");
                } catch (java.io.IOException ex) {
                    return false;
                }
            });
            first.apply(new Cap(List.of(), List.of(new Cap.Grant("jm1", u, 0, "k"))));
            Path exitFile = dir.resolve("run/j.u.1.exit");
            runUntil(() -> Files.exists(exitFile)); // slot 1 ended (143); slot 0 ignores SIGTERM; no heartbeat went out

            second = node(10, Duration.ofMinutes(5));
            second.adopt(launcher().left(events::add));
            assertTrue(events.stream().anyMatch(e -> e.startsWith("adopted unit=j/u slot=0 ") && e.endsWith("(being stopped)")),
                    events + tree());
            assertTrue(events.contains("exited unit=j/u slot=1 code=-15 (while the agent was down)"), events + tree());
            assertEquals(List.of(), second.rebuildCaps(), "a worker being stopped gave its slot back with its cap");
            List<Heartbeat.Exit> ends = new ArrayList<>(second.drain(true).exited());
            clock.advance(2_000); // past the stop's grace: the worker that ignores SIGTERM is killed
            Node n = second;
            runUntil(() -> {
                Heartbeat h = n.drain(false);
                if (h != null) {
                    ends.addAll(h.exited());
                }
                return ends.size() == 2;
            });
            assertEquals(List.of(new Heartbeat.Exit(u, 1, Heartbeat.STOPPED, true), new Heartbeat.Exit(u, 0, Heartbeat.STOPPED, true)),
                    ends, tree());
        } finally {
            killAll(first);
            if (second != null) {
                killAll(second);
            }
        }
    }
}

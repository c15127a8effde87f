package granary.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import granary.api.model.ManualClock;
import granary.api.model.Resources;
import granary.api.model.UnitId;
import granary.protocol.Ack;
import granary.protocol.Cap;
import granary.protocol.Envelope;
import granary.protocol.Heartbeat;
import granary.protocol.Plan;
import granary.protocol.Role;
import granary.protocol.Sender;
import granary.protocol.link.ManualLoop;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Workers held to their slots by real cgroups, on real processes (docs/agent.md, "Isolation",
 * "Users", "Node health"): a worker over its memory is killed and reported as such, a CPU hog is
 * held to its share, a stop leaves no process of a worker's tree behind, workers run as their user,
 * a node whose launches keep failing says so. Each test that needs what the kernel or the user may
 * refuse (cgroups, root) is skipped saying so. Every process and cgroup made is gone at the end.
 */
class IsolationTest {

    private static final UnitId U = UnitId.parse("j/u");

    @TempDir
    Path dir;

    private final ManualClock clock = new ManualClock(1_000);
    private final ManualLoop loop = new ManualLoop(clock);
    private final List<String> events = new ArrayList<>();
    private final List<Node> nodes = new ArrayList<>();
    private Cgroups cgroups;
    /** The launcher of the node made last. */
    private OsLauncher launcher;

    @AfterEach
    void cleanUp() throws Exception {
        for (Node n : nodes) {
            for (Workers.Worker w : n.workers()) {
                w.process().kill();
            }
        }
        runUntil(() -> nodes.stream().allMatch(n -> n.workers().isEmpty()));
        if (cgroups != null) {
            for (Path parent : cgroups.parents()) {
                for (Path g : Cgroups.below(parent)) {
                    new Cgroups.Group(false, List.of(g)).clear();
                }
            }
            cgroups.close();
            for (Path parent : cgroups.parents()) {
                assertFalse(Files.exists(parent), "the agent's cgroup " + parent + " is removed");
            }
        }
    }

    /** The cgroups of this test's agent; the test is skipped, saying why, where the kernel or the user refuses them. */
    private Cgroups cgroups() {
        try {
            cgroups = Cgroups.open(OsLauncher.parentGroup("n1", dir));
        } catch (IOException ex) {
            assumeTrue(false, "cgroups cannot be used here: " + ex.getMessage());
        }
        return cgroups;
    }

    private Node node(WorkerPolicy policy, Cgroups groups, boolean enforce) {
        AgentConfig c = AgentConfig.of(URI.create("http://127.0.0.1:1"), "n1", Resources.of(200, 4096), "t", dir).withWorkers(policy);
        launcher = new OsLauncher(dir, "n1", loop, policy, groups, enforce);
        Node n = new Node(c, loop, new Workers(launcher, loop, Duration.ofSeconds(2)), events::add, () -> { });
        n.confirmed(true);
        nodes.add(n);
        return n;
    }

    private static Ack launch(Node n, Resources size, int slot, String script, Map<String, String> env) {
        n.load(List.of(new Cap.Grant("jm1", U, 4, "k", size, false)));
        return n.plan("jm1", "k", Envelope.of(new Sender(Role.JOB_MASTER, "jm1"), 1, slot + 1,
                new Plan(List.of(new Plan.Launch(U, slot, List.of("/bin/sh", "-c", script), env, "")))));
    }

    /** Runs the loop's tasks until {@code done}, at most 60 s (a loaded machine is slow; the wait is bounded). */
    private void runUntil(BooleanSupplier done) throws InterruptedException {
        runUntil(done, () -> "");
    }

    /** As above; {@code state} says what is left when the wait fails. */
    private void runUntil(BooleanSupplier done, java.util.function.Supplier<String> state) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!done.getAsBoolean() && System.nanoTime() < deadline) {
            loop.runDue();
            Thread.sleep(20); // processes end on their own time: poll, bounded
        }
        loop.runDue();
        assertTrue(done.getAsBoolean(), "not within 60 s; events: " + events + state.get());
    }

    /** What a group still holds: its directories left and each process in it, with its state and command. */
    private static String left(Cgroups.Group g) {
        StringBuilder b = new StringBuilder("; group left: ");
        g.dirs().stream().filter(Files::exists).forEach(d -> b.append(d).append(' '));
        for (long pid : g.pids()) {
            String stat;
            try {
                stat = Files.readString(Path.of("/proc/" + pid + "/stat")).trim();
            } catch (IOException ex) {
                stat = "gone";
            }
            b.append("; pid ").append(pid).append(": ").append(stat);
        }
        return b.toString();
    }

    private static Cgroups.Group groupOf(Path dir, int slot) throws IOException {
        String rec = Files.readAllLines(dir.resolve("run/j.u." + slot + ".worker")).stream().filter(l -> l.startsWith("cgroup="))
                .findFirst().orElseThrow().substring("cgroup=".length());
        Cgroups.Group g = Cgroups.Group.of(rec);
        assertNotNull(g, "the worker's cgroup " + rec);
        return g;
    }

    private static WorkerPolicy policy() {
        return WorkerPolicy.EMBEDDED.withIsolation(WorkerPolicy.Isolation.HARD);
    }

    /**
     * A worker whose slot has 64 MiB and that takes 128 MiB is killed by the kernel in its cgroup, and
     * its exit says so: out of memory, with its limit and its peak, not an ordinary exit code.
     */
    @Test
    void aWorkerOverItsMemoryIsKilledAndReportedAsOutOfMemory() throws Exception {
        Node n = node(policy(), cgroups(), true);
        // tail holds the whole "line" it reads, and /dev/zero has no newline: 128 MiB in memory
        assertEquals(Ack.applied(1), launch(n, Resources.of(100, 64), 0, "head -c 134217728 /dev/zero | tail >/dev/null", Map.of()));
        Heartbeat.Exit exit = awaitExit(n);
        assertNotNull(exit.oom(), "the memory limit ended it: " + exit + " " + events);
        assertEquals(64, exit.oom().limitMiB(), "its limit is its slot's memory");
        assertTrue(exit.oom().peakMiB() >= 60, "it peaked at its limit: " + exit.oom());
        assertFalse(exit.stopped());
        assertTrue(events.stream().anyMatch(e -> e.startsWith("exited unit=j/u slot=0") && e.contains("reason=oom limit=64MiB")),
                events.toString());
    }

    private Heartbeat.Exit awaitExit(Node n) throws InterruptedException {
        List<Heartbeat.Exit> exits = new ArrayList<>();
        runUntil(() -> {
            Heartbeat h = n.drain(false);
            if (h != null) {
                exits.addAll(h.exited());
            }
            return !exits.isEmpty();
        });
        return exits.get(0);
    }

    /**
     * Soft isolation: the worker has its cgroup (usage, its whole tree) but no limit, so the worker
     * that takes twice its slot's memory is not killed; it ends as it would have.
     */
    @Test
    void softIsolationCountsButDoesNotLimit() throws Exception {
        Node n = node(WorkerPolicy.EMBEDDED.withIsolation(WorkerPolicy.Isolation.SOFT), cgroups(), false);
        Path gate = dir.resolve("gate");
        assertEquals(Ack.applied(1), launch(n, Resources.of(100, 64), 0,
                "head -c 134217728 /dev/zero | tail >/dev/null; while [ ! -e " + gate + " ]; do sleep 0.05; done", Map.of()));
        Cgroups.Group g = groupOf(dir, 0);
        assertEquals(-1, g.limitBytes(), "no memory limit");
        runUntil(() -> g.peakBytes() > 100L << 20); // it took its 128 MiB
        Files.writeString(gate, "");
        Heartbeat.Exit exit = awaitExit(n);
        assertEquals(0, exit.exitCode(), exit + " " + events);
        assertNull(exit.oom());
    }

    /** The same worker in a slot with room for it ends as it should, with no oom on its exit. */
    @Test
    void aWorkerWithinItsMemoryEndsNormally() throws Exception {
        Node n = node(policy(), cgroups(), true);
        assertEquals(Ack.applied(1), launch(n, Resources.of(100, 512), 0, "head -c 134217728 /dev/zero | tail >/dev/null", Map.of()));
        Heartbeat.Exit exit = awaitExit(n);
        assertEquals(0, exit.exitCode(), exit + " " + events);
        assertNull(exit.oom());
    }

    /**
     * Two CPU hogs in a worker of a one-core slot (cpu=100) on this two-core machine are held to about
     * one core: its quota is one core per period, and over a few seconds it uses no more than a core and a bit.
     * The heartbeat reports what it used. No lower bound on its share: the machine may be busy.
     */
    @Test
    void aCpuHogInAOneCoreSlotUsesAboutOneCore() throws Exception {
        assumeTrue(Runtime.getRuntime().availableProcessors() >= 2, "needs two cores to show a limit of one");
        Node n = node(policy(), cgroups(), true);
        assertEquals(Ack.applied(1), launch(n, Resources.of(100, 64), 0,
                "while :; do :; done & while :; do :; done & wait", Map.of()));
        Cgroups.Group g = groupOf(dir, 0);
        Path cpuDir = g.dirs().stream().filter(d -> Files.exists(d.resolve("cpu.cfs_quota_us")) || Files.exists(d.resolve("cpu.max")))
                .findFirst().orElseThrow();
        String quota = Files.exists(cpuDir.resolve("cpu.max")) ? Files.readString(cpuDir.resolve("cpu.max")).trim()
                : Files.readString(cpuDir.resolve("cpu.cfs_quota_us")).trim();
        assertTrue(quota.startsWith("100000"), "one core's quota per 100 ms period: " + quota);
        n.drain(true); // the first sample
        long wall0 = System.nanoTime();
        long cpu0 = g.cpuNanos();
        runUntil(() -> System.nanoTime() - wall0 > 3_000_000_000L); // a window of 3 s; no assertion on how much of it the hog got
        long wall = System.nanoTime() - wall0;
        long cpu = g.cpuNanos() - cpu0;
        clock.advance(wall / 1_000_000);
        Heartbeat h = n.drain(true);
        double cores = (double) cpu / wall;
        assertTrue(cores < 1.3, "held to about one core, used " + cores + " (throttled "
                + Cgroups.stat(cpuDir.resolve("cpu.stat"), "nr_throttled") + " times)");
        assertTrue(cores > 0.05, "it ran: " + cores);
        Heartbeat.WorkerUsage used = h.usage().workers().get(0);
        assertEquals(0, used.slot());
        assertTrue(used.used().cpu() > 0 && used.used().cpu() <= 130, "reported in hundredths of a core: " + used);
        assertTrue(h.usage().node().memMb() > 0, "the node's memory in use: " + h.usage());
        assertTrue(h.health().healthy());
    }

    /**
     * A worker that double-forks (its child's child is adopted by init, out of its process tree)
     * leaves nothing behind when it is stopped: the stop reaches everything in its cgroup, and the
     * group goes with it.
     */
    @Test
    void aWorkerThatDoubleForksLeavesNoProcessAfterItsStop() throws Exception {
        Node n = node(policy(), cgroups(), true);
        Path pidFile = dir.resolve("orphan.pid");
        assertEquals(Ack.applied(1), launch(n, Resources.of(100, 64), 0,
                "(sleep 300 & echo $! > " + pidFile + "); exec sleep 300", Map.of()));
        runUntil(() -> Files.exists(pidFile) && readPid(pidFile) > 0);
        long orphan = readPid(pidFile);
        Workers.Worker w = n.workers().get(0);
        assertFalse(w.process().pid() == orphan);
        assertTrue(ProcessHandle.of(orphan).map(h -> h.parent().map(p -> p.pid() != w.process().pid()).orElse(true)).orElse(false),
                "the orphan is out of the worker's tree");
        Cgroups.Group g = groupOf(dir, 0);
        assertTrue(g.pids().contains(orphan), "but in its cgroup: " + g.pids());
        n.apply(new Cap(List.of(), List.of(new Cap.Grant("jm1", U, 0, "k", Resources.of(100, 64), false)), false));
        Heartbeat.Exit exit = awaitExit(n);
        assertTrue(exit.stopped(), exit.toString());
        runUntil(() -> ProcessHandle.of(orphan).map(h -> !h.isAlive()).orElse(true));
        runUntil(() -> g.dirs().stream().noneMatch(Files::exists));
    }

    /**
     * An agent that restarts (the first one "killed -9": it does nothing more) adopts a worker with its
     * whole cgroup, from its run record: a stop then leaves nothing of the tree either, double fork
     * included.
     */
    @Test
    void aRestartedAgentAdoptsAWorkerWithItsWholeCgroup() throws Exception {
        Cgroups groups = cgroups();
        Node first = node(policy(), groups, true);
        Path pidFile = dir.resolve("orphan.pid");
        assertEquals(Ack.applied(1), launch(first, Resources.of(100, 64), 0,
                "(sleep 300 & echo $! > " + pidFile + "); exec sleep 300", Map.of()));
        runUntil(() -> readPid(pidFile) > 0);
        long orphan = readPid(pidFile);

        Node second = node(policy(), groups, true);
        second.load(List.of(new Cap.Grant("jm1", U, 4, "k", Resources.of(100, 64), false)));
        second.adopt(launcher.left(events::add));
        assertEquals(1, second.workers().size(), events.toString());
        Cgroups.Group g = groupOf(dir, 0);
        assertTrue(g.pids().contains(orphan), "the adopted worker's group holds its whole tree: " + g.pids());
        second.apply(new Cap(List.of(), List.of(new Cap.Grant("jm1", U, 0, "k", Resources.of(100, 64), false)), false));
        Heartbeat.Exit exit = awaitExit(second);
        assertTrue(exit.stopped(), exit.toString());
        runUntil(() -> ProcessHandle.of(orphan).map(h -> !h.isAlive()).orElse(true));
        runUntil(() -> g.dirs().stream().noneMatch(Files::exists));
    }

    /** A worker whose run record is lost is found among the node's processes with its cgroup: its stop reaches its whole tree too. */
    @Test
    void aWorkerWithoutItsRunRecordIsFoundWithItsCgroup() throws Exception {
        Cgroups groups = cgroups();
        Node first = node(policy(), groups, true);
        Path pidFile = dir.resolve("orphan.pid");
        assertEquals(Ack.applied(1), launch(first, Resources.of(100, 64), 0,
                "(sleep 300 & echo $! > " + pidFile + "); exec sleep 300", Map.of()));
        runUntil(() -> readPid(pidFile) > 0);
        long orphan = readPid(pidFile);
        Cgroups.Group g = groupOf(dir, 0);
        Files.delete(dir.resolve("run/j.u.0.worker"));

        Launcher.Left found = new OsLauncher(dir, "n1", loop, policy(), groups, true).left(events::add).stream()
                .filter(l -> l.record().slot() == 0).findFirst().orElseThrow();
        assertEquals("", found.record().jobMaster(), "no record: the master decides");
        found.running().stop();
        runUntil(() -> ProcessHandle.of(orphan).map(h -> !h.isAlive()).orElse(true), () -> left(g));
        runUntil(() -> g.dirs().stream().noneMatch(Files::exists), () -> left(g));
    }

    private static long readPid(Path f) {
        try {
            String t = Files.readString(f).trim();
            return t.isEmpty() ? -1 : Long.parseLong(t);
        } catch (IOException | NumberFormatException ex) {
            return -1;
        }
    }

    /**
     * An agent running as root starts workers as the configured user, never as root; their own
     * directory and their logs belong to that user. A plan may name another user only from the
     * allow-list.
     */
    @Test
    void workersRunAsTheConfiguredUser() throws Exception {
        assumeTrue(OsLauncher.selfUid() == 0, "only root may start workers as another user; the tests run as uid " + OsLauncher.selfUid());
        assumeTrue(OsLauncher.userExists("nobody"), "no user nobody on this machine");
        assumeTrue(Files.isExecutable(Path.of("/usr/bin/setpriv")) || Files.isExecutable(Path.of("/bin/setpriv")), "no setpriv here");
        WorkerPolicy p = WorkerPolicy.EMBEDDED.withUser("nobody", Set.of(), false);
        Node n = node(p, null, false);
        assertEquals(Ack.applied(1), launch(n, Resources.of(100, 64), 0, "id -u > uid; id -u", Map.of()));
        Heartbeat.Exit exit = awaitExit(n);
        assertEquals(0, exit.exitCode(), events.toString());
        Path own = dir.resolve("workers/j/u/0");
        assertEquals("65534", Files.readString(own.resolve("uid")).trim(), "it ran as nobody");
        assertEquals("65534", Files.readString(dir.resolve("logs/j.u.0.out")).trim());
        assertEquals(65534, ((Number) Files.getAttribute(own, "unix:uid")).intValue(), "its directory is nobody's");
        assertEquals(65534, ((Number) Files.getAttribute(dir.resolve("logs/j.u.0.out"), "unix:uid")).intValue(), "its log is nobody's");

        Ack root = launch(n, Resources.of(100, 64), 1, "id -u", Map.of("GRANARY_USER", "root"));
        assertTrue(root.isRefusal() && root.problems().get(0).message().contains("may not run as root"), root.toString());
        Ack other = launch(n, Resources.of(100, 64), 2, "id -u", Map.of("GRANARY_USER", "daemon"));
        assertTrue(other.isRefusal() && other.problems().get(0).message().contains("--allowed-users"), other.toString());
    }

    /**
     * {@code logs/} replaced by a file: every launch fails for a reason of the node's, and after the
     * failure limit (3) in a row the heartbeat says the node is unhealthy, and why. Once the
     * directory can be written again, the node's own check takes it back.
     */
    @Test
    void logsReplacedByAFileMakesTheNodeUnhealthyWithinAFewLaunches() throws Exception {
        Node n = node(WorkerPolicy.EMBEDDED, null, false);
        assertTrue(n.drain(true).health().healthy());
        Files.writeString(dir.resolve("logs"), "not a directory");
        for (int slot = 0; slot < 3; slot++) {
            assertEquals(Ack.applied(slot + 1), launch(n, Resources.of(100, 64), slot, "true", Map.of()));
        }
        Heartbeat h = n.drain(true);
        assertEquals(3, h.exited().size(), "none of them started: " + h.exited());
        assertTrue(h.exited().stream().allMatch(x -> x.exitCode() == Heartbeat.NOT_STARTED));
        assertFalse(h.health().healthy(), h.health().toString());
        assertTrue(h.health().reason().startsWith("3 launches in a row failed") && h.health().reason().contains("logs"),
                h.health().reason());
        assertTrue(events.stream().anyMatch(e -> e.startsWith("unhealthy reason=3 launches in a row failed")), events.toString());

        Files.delete(dir.resolve("logs"));
        loop.advance(WorkerPolicy.EMBEDDED.healthPeriod().toMillis(), 1_000);
        assertTrue(n.drain(true).health().healthy(), "its own check took it back: " + events);
        assertTrue(events.contains("healthy (the node takes work again)"), events.toString());
    }

    /** A program that is not there is the job's fault, not the node's: it does not count against the node's health. */
    @Test
    void aMissingProgramDoesNotMakeTheNodeUnhealthy() throws Exception {
        Node n = node(WorkerPolicy.EMBEDDED, null, false);
        for (int slot = 0; slot < 4; slot++) {
            n.load(List.of(new Cap.Grant("jm1", U, 4, "k", Resources.of(100, 64), false)));
            n.plan("jm1", "k", Envelope.of(new Sender(Role.JOB_MASTER, "jm1"), 1, slot + 1,
                    new Plan(List.of(new Plan.Launch(U, slot, List.of("/no/such/program"), Map.of(), "")))));
        }
        assertTrue(n.drain(true).health().healthy(), events.toString());
    }

    /** The operator's health command: a line starting with ERROR makes the node unhealthy with that reason; it comes back when the line goes. */
    @Test
    void anUnhealthyCheckTakesTheNodeOutAndAHealthyOneBringsItBack() throws Exception {
        Path flag = dir.resolve("disk-broken");
        Files.writeString(flag, "x");
        WorkerPolicy p = WorkerPolicy.EMBEDDED.withHealth(List.of("/bin/sh", "-c", "if [ -e " + flag + " ]; then echo 'ERROR disk /data is read-only'; fi"),
                Duration.ofSeconds(5), Duration.ofSeconds(30), 3);
        Node n = node(p, null, false);
        runUntil(() -> !n.health().healthy());
        assertEquals("ERROR disk /data is read-only", n.drain(true).health().reason());
        Files.delete(flag);
        runUntil(() -> {
            clock.advance(100);
            return n.health().healthy();
        });
        assertTrue(events.contains("unhealthy reason=ERROR disk /data is read-only"), events.toString());
    }

    /** Isolation off: workers run as before, unlimited and without a cgroup, their usage from /proc; the agent warns at start. */
    @Test
    void withIsolationOffWorkersRunAsBeforeAndTheAgentWarns() throws Exception {
        List<String> said = new ArrayList<>();
        assertNull(Agent.isolation(WorkerPolicy.EMBEDDED, "n1", dir, said::add));
        assertTrue(said.size() == 1 && said.get(0).startsWith("isolation-off reason=--isolation=off")
                && said.get(0).contains("not held to their slots"), said.toString());
        Node n = node(WorkerPolicy.EMBEDDED, null, false);
        assertEquals(Ack.applied(1), launch(n, Resources.of(100, 64), 0, "exec sleep 30", Map.of()));
        assertFalse(Files.readString(dir.resolve("run/j.u.0.worker")).contains("cgroup="), "no cgroup");
        n.drain(true);
        clock.advance(1_000);
        Heartbeat h = n.drain(true);
        assertEquals(1, h.usage().workers().size(), "its usage, from /proc: " + h.usage());
        assertTrue(h.usage().workers().get(0).used().memMb() >= 0);
    }
}

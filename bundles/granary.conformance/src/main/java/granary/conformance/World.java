package granary.conformance;

import granary.api.event.PolicyInstalled;
import granary.api.event.Revoked;
import granary.api.model.ManualClock;
import granary.api.model.Resources;
import granary.api.model.UnitId;
import granary.api.model.UnitKind;
import granary.api.spi.JobView;
import granary.api.spi.NodeView;
import granary.api.spi.UnitView;
import granary.engine.Engine;
import granary.engine.EngineOptions;
import granary.master.MasterOptions;
import granary.master.PeerStatus;
import granary.master.ProtocolMaster;
import granary.policy.fifo.FifoPolicy;
import granary.protocol.link.Paths;
import granary.protocol.link.Reply;
import granary.protocol.link.Standby;
import granary.protocol.link.Tokens;
import granary.protocol.link.Transport;
import granary.recovery.Recovery;
import granary.recovery.RecoveryOptions;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.TreeMap;
import java.util.function.BiConsumer;
import java.util.function.IntConsumer;

/**
 * One cluster on a manual clock, every role the shipped code (docs/recovery.md, "The conformance
 * kit"): the master ({@link ProtocolMaster}, the recovery engine, the scheduler engine with the FIFO
 * policy), each node's agent ({@code AgentRole}) with its disk and its operating system, and job
 * masters ({@code SampleJobMaster} on {@code JobMasterClient}) with their state directories. All
 * of it runs on one thread: each process's tasks are events of the world's clock, messages travel
 * over a {@link Wire} that drops, delays, duplicates and cuts. Time moves in steps of {@value #STEP}
 * ms; the {@link Invariants} are checked after every step. Every role can fail over (kill -9 and
 * start again), time out (cut off for a while), pause (SIGSTOP), and find its disk damaged; the master
 * can be away, restart with another secret, or leave a gap with no leader.
 */
public final class World implements AutoCloseable {

    public static final long STEP = 50;
    static final long T0 = 1_000_000;
    static final URI MASTER_URL = URI.create("http://master.sim");
    private static final String MASTER_HOST = "master.sim";
    private static final String MASTER_MACHINE = "master";
    private static final int TRACE_KEPT = 4_000;

    /** Timeouts and window of the world (shorter than production's, the rules are the same). */
    public record Settings(Duration agentTimeout, Duration jobMasterTimeout, Duration window, Duration settle) {
        public static Settings defaults() {
            return new Settings(Duration.ofSeconds(5), Duration.ofSeconds(8), Duration.ofSeconds(6), Duration.ofSeconds(1));
        }
    }

    final ManualClock clock = new ManualClock(T0);
    final Wire wire;
    final Tokens tokens = new Tokens("the conformance kit's secret".getBytes(StandardCharsets.UTF_8));
    private final Tokens otherTokens = new Tokens("a secret nobody was given".getBytes(StandardCharsets.UTF_8));
    final Settings settings;
    final TaskLedger ledger = new TaskLedger(this);
    private Engine engine;
    private ProtocolMaster master;
    private long masterIncarnation = 1;
    private boolean masterDown;
    private long standbyUntil;
    private boolean wrongSecret;
    final Map<String, SimNode> nodes = new LinkedHashMap<>();
    private final Map<String, AgentProcess> byHost = new HashMap<>();
    final Map<String, JobMasterProcess.Spec> specs = new LinkedHashMap<>();
    final Map<String, List<JobMasterProcess>> jobMasters = new LinkedHashMap<>();
    private final Map<String, SimDisk> jobMasterDisks = new HashMap<>();
    /** Job masters whose job ended: id → exit code (0 all succeeded, 1 some failed). */
    final Map<String, Integer> finished = new TreeMap<>();
    /** When each job ended (its job master cancelled it): job → ms. */
    final Map<String, Long> jobEnded = new HashMap<>();
    /** Job masters whose cancel of their (done) job a master confirmed. */
    final java.util.Set<String> cancelConfirmed = new java.util.HashSet<>();
    private final Map<String, List<long[]>> lost = new HashMap<>();
    private record Later(long at, long order, Runnable task) {
    }
    private final PriorityQueue<Later> later = new PriorityQueue<>(
            (a, b) -> a.at != b.at ? Long.compare(a.at, b.at) : Long.compare(a.order, b.order));
    private long laterOrder;
    private long pids = 1000;
    private final List<String> violations = new ArrayList<>();
    private final List<String> log = new ArrayList<>();
    private final Deque<String> trace = new ArrayDeque<>();
    int masterRestarts;
    long fencedJobMasters;
    long jobMasterLaunches;
    long agentGiveUps;
    long steps;

    public World(long seed, Settings settings) {
        this.wire = new Wire(this, seed);
        this.settings = settings;
        startMaster(tokens, true);
    }

    // ---- the cluster ------------------------------------------------------------------------------

    public void addAgent(String node, Resources capacity) {
        SimNode n = new SimNode(this, node, capacity);
        nodes.put(node, n);
        startAgent(n);
    }

    private void startAgent(SimNode n) {
        n.lives++;
        AgentProcess a = new AgentProcess(this, n, n.lives);
        n.agent = a;
        byHost.put(a.endpoint.getHost(), a);
        a.start(this);
    }

    /** A job master of the world, started now from a host of its own. */
    public void addJobMaster(JobMasterProcess.Spec spec) {
        specs.put(spec.id(), spec);
        jobMasterDisks.put(spec.id(), new SimDisk(spec.id() + ".state", this));
        startJobMaster(spec, null, null);
    }

    private JobMasterProcess startJobMaster(JobMasterProcess.Spec spec, String node, IntConsumer onExit) {
        List<JobMasterProcess> lives = jobMasters.computeIfAbsent(spec.id(), k -> new ArrayList<>());
        long inc = Math.max(now(), lives.isEmpty() ? 0 : lives.get(lives.size() - 1).incarnation + 1);
        JobMasterProcess p = new JobMasterProcess(this, spec, inc, node, jobMasterDisks.get(spec.id()), onExit);
        lives.add(p);
        p.start();
        return p;
    }

    /**
     * An agent started the slot of a master's restart of job master {@code id} (docs/recovery.md,
     * "Restarting a lost job master"): a new incarnation runs on {@code node}; {@code onExit} ends
     * that slot's process when it exits.
     */
    JobMasterProcess startJobMasterFromCap(String id, String node, IntConsumer onExit) {
        JobMasterProcess.Spec spec = specs.get(id);
        if (spec == null) {
            violation("agent " + node + " got a launch of unknown job master " + id);
            onExit.accept(1);
            return null;
        }
        jobMasterLaunches++;
        note("agent " + node + " starts job master " + id + " again");
        return startJobMaster(spec, node, onExit);
    }

    /** A job master's process ended by itself. */
    void jobMasterExited(JobMasterProcess p, int code) {
        String id = p.spec.id();
        note("job master " + id + "#" + p.incarnation + " exits with " + code);
        if (code == 7) {
            fencedJobMasters++;
            return; // its successor runs the job
        }
        if (code == 0 || code == 1) {
            finished.put(id, code);
            jobMasterDisks.get(id).delete("progress.checkpoint"); // as the sample's Main does: the job is over
            return;
        }
        if (p.machine.startsWith("host-") && current(id) == p) {
            later(now() + 2_000, () -> {
                if (current(id) == p && !finished.containsKey(id)) {
                    note("job master " + id + " is started again by its supervisor");
                    startJobMaster(p.spec, null, null);
                }
            });
        }
    }

    void agentGaveUp(AgentProcess a, int code, String why) {
        agentGiveUps++;
        note("agent " + a.node + " gives up (exit " + code + "): " + why);
        a.loop.kill();
        SimNode n = nodes.get(a.node);
        later(now() + 2_000, () -> {
            if (n.agent == a) {
                note("agent " + a.node + " is started again by its supervisor");
                startAgent(n);
            }
        });
    }

    /** How job master {@code id}'s tasks unit stands, for a report: the master's desired/granted, the client's desired and holdings. */
    String unitState(String id) {
        JobMasterProcess.Spec spec = specs.get(id);
        UnitId u = new UnitId(spec.job(), "tasks");
        UnitView uv = engine.view().unit(u);
        JobMasterProcess p = current(id);
        String client = p == null || p.client() == null ? "no client" : "client desired=" + p.client().desired(u)
                + " holds=" + p.client().placements(u) + " synced=" + p.client().synced();
        return "(master " + (uv == null ? "has no unit " + u : "desired=" + uv.desired() + " granted=" + uv.granted()
                + " at " + uv.allocations()) + "; " + client + ")";
    }

    /** The newest incarnation of job master {@code id}. */
    JobMasterProcess current(String id) {
        List<JobMasterProcess> lives = jobMasters.get(id);
        return lives == null || lives.isEmpty() ? null : lives.get(lives.size() - 1);
    }

    SimDisk jobMasterDisk(String id) {
        return jobMasterDisks.get(id);
    }

    boolean keepsState(String job) {
        return specs.values().stream().anyMatch(s -> s.job().equals(job) && s.keepsState());
    }

    SimNode node(String name) {
        return nodes.get(name);
    }

    /** The process {@code pid} of any node, or null. */
    SimOs.Proc proc(long pid) {
        for (SimNode n : nodes.values()) {
            SimOs.Proc p = n.os.proc(pid);
            if (p != null) {
                return p;
            }
        }
        return null;
    }

    long nextPid() {
        return ++pids;
    }

    long taskMillis(UnitId unit) {
        return specs.values().stream().filter(s -> s.job().equals(unit.job())).mapToLong(JobMasterProcess.Spec::taskMillis)
                .findFirst().orElse(2_000L);
    }

    // ---- the master -------------------------------------------------------------------------------

    private void startMaster(Tokens t, boolean first) {
        engine = new Engine(clock, new EngineOptions(List.of("fifo"), List.of("fifo"), true));
        engine.handle(new PolicyInstalled(new FifoPolicy(), "conformance"));
        engine.subscribe(e -> {
            if (e instanceof Revoked r) {
                trace("engine", "revoked " + r.slots() + " of " + r.unit() + " on " + r.node() + " (" + r.reason() + ")");
                if ("cancelled".equals(r.reason())) {
                    jobEnded.putIfAbsent(r.unit().job(), now()); // its job master cancelled it: its workers may stop
                }
            }
            // a job its job master cancelled gives its slots back: that is no revocation by the master
            if (e instanceof Revoked r && r.kind() == UnitKind.ONLINE && !ProtocolMaster.isRestartJob(r.unit().job())
                    && !"cancelled".equals(r.reason())) {
                violation("the master revoked online slots: " + r);
            }
        });
        masterIncarnation += 1_000;
        MasterOptions options = new MasterOptions("master", masterIncarnation, settings.agentTimeout(),
                settings.jobMasterTimeout(), 5_000, Duration.ofSeconds(5)).withManualTicks();
        RecoveryOptions recovery = first ? RecoveryOptions.none() : new RecoveryOptions(settings.window(), settings.settle());
        boolean traceEngine = System.getProperty("granary.debug.engine") != null;
        master = new ProtocolMaster(new DirectScheduler(engine, traceEngine ? e -> trace("engine-in", e) : e -> { }), t, options,
                clock, Recovery.of(recovery));
        masterDown = false;
        wrongSecret = t != tokens;
    }

    /** Master failover: the process dies and a new one starts empty, with its recovery window. */
    public void restartMaster() {
        note("master fails over");
        master.close();
        masterRestarts++;
        startMaster(tokens, false);
    }

    /** The master is gone for {@code millis} (connections refused), then starts again empty. */
    public void masterOutage(long millis) {
        note("master is down for " + millis + " ms");
        master.close();
        masterDown = true;
        later(now() + millis, () -> {
            masterRestarts++;
            note("master starts again");
            startMaster(tokens, false);
        });
    }

    /** The master restarts with another secret: every token is refused (401) for {@code millis}; then it restarts right. */
    public void masterWithOtherSecret(long millis) {
        note("master restarts with another secret for " + millis + " ms");
        master.close();
        masterRestarts++;
        startMaster(otherTokens, false);
        later(now() + millis, () -> {
            masterRestarts++;
            note("master restarts with its secret");
            master.close();
            startMaster(tokens, false);
        });
    }

    /** A high-availability takeover: the leader dies, no master leads for {@code gapMillis} (standbys answer 503), then one does. */
    public void takeover(long gapMillis) {
        note("leader dies; no leader for " + gapMillis + " ms");
        master.close();
        masterDown = true;
        standbyUntil = now() + gapMillis;
        later(now() + gapMillis, () -> {
            masterRestarts++;
            note("a new leader serves");
            startMaster(tokens, false);
        });
    }

    /** Answers a call to {@code host}: the master, or an agent's plan endpoint. */
    void serve(String host, Transport.Call call, String from, BiConsumer<Transport.Response, IOException> answer) {
        if (host == null) {
            answer.accept(null, new IOException("no host in " + call.uri()));
            return;
        }
        if (!host.equals(MASTER_HOST)) {
            AgentProcess a = byHost.get(host);
            if (a == null || !a.alive()) {
                answer.accept(null, new IOException("connection refused"));
            } else {
                a.serve(call, from, answer);
            }
            return;
        }
        if (masterDown) {
            if (now() < standbyUntil) {
                Reply r = Standby.refusal("standby", URI.create("http://standby.sim"), null);
                answer.accept(new Transport.Response(r.status(), r.body(), null), null);
            } else {
                answer.accept(null, new IOException("connection refused"));
            }
            return;
        }
        ProtocolMaster m = master;
        if (call.method().equals("POST")) {
            Reply r = m.post(call.authorization(), call.body(), "sim:" + from);
            answer.accept(new Transport.Response(r.status(), r.body(), null), null);
            return;
        }
        Map<String, Long> q = query(call.uri());
        m.poll(call.authorization(), q.getOrDefault("after", 0L), Math.min(q.getOrDefault("wait", 0L), 0L),
                q.getOrDefault("incarnation", 0L), "sim:" + from).whenComplete((r, ex) -> {
                    Reply reply = r != null ? r : new Reply(503, new byte[0]);
                    answer.accept(new Transport.Response(reply.status(), reply.body(), null), null);
                });
    }

    private static Map<String, Long> query(URI uri) {
        Map<String, Long> out = new HashMap<>();
        String q = uri.getRawQuery();
        for (String pair : q == null ? new String[0] : q.split("&")) {
            int eq = pair.indexOf('=');
            if (eq > 0) {
                try {
                    out.put(pair.substring(0, eq), Long.parseLong(pair.substring(eq + 1)));
                } catch (NumberFormatException ex) {
                    // not a number: left out, as the real server reads it as 0
                }
            }
        }
        return out;
    }

    /** The machine a host name stands for (for cuts): the master's, a node's. */
    String machineOf(String host) {
        if (host == null) {
            return "nowhere";
        }
        if (host.equals(MASTER_HOST)) {
            return MASTER_MACHINE;
        }
        AgentProcess a = byHost.get(host);
        return a == null ? host : a.node;
    }

    // ---- faults of peers ----------------------------------------------------------------------------

    /** Agent failover: kill -9, its workers keep running, its supervisor starts it again at once. */
    public void restartAgent(String node) {
        note("agent " + node + " fails over");
        SimNode n = nodes.get(node);
        n.agent.loop.kill();
        startAgent(n);
    }

    /** Job master failover: kill -9; started again (in place by its supervisor, or by the master if it ran in a slot). */
    public void restartJobMaster(String id) {
        JobMasterProcess p = current(id);
        if (p == null || finished.containsKey(id)) {
            return;
        }
        note("job master " + id + " fails over");
        p.kill();
        if (p.machine.startsWith("host-")) {
            startJobMaster(p.spec, null, null);
        } else {
            // it ran in a slot of the master's: the slot's process ends; the master starts it again —
            // unless its job was done and cancelled already: then there is nothing to start it for
            nodes.get(p.machine).os.alive().stream().filter(x -> x.jobMaster == p).forEach(x -> nodes.get(p.machine).os.end(x, 137));
            if (cancelConfirmed.contains(id)) {
                note("job master " + id + " had its job done and cancelled: nobody starts it again");
                finished.put(id, 0);
            }
        }
    }

    /** The machine of {@code target} (a node, or a job master's) is cut off for {@code millis}. */
    public void cut(String target, long millis) {
        note(target + " is cut off for " + millis + " ms");
        wire.partition(machine(target), now() + millis);
    }

    /** {@code target}'s process (an agent, or a job master) is stopped (SIGSTOP) for {@code millis}. */
    public void pause(String target, long millis) {
        SimLoop l = nodes.containsKey(target) ? nodes.get(target).agent.loop : current(target) == null ? null : current(target).loop;
        if (l == null) {
            return;
        }
        note(target + " is paused for " + millis + " ms");
        l.pause();
        later(now() + millis, l::resume);
    }

    private String machine(String target) {
        if (nodes.containsKey(target)) {
            return target;
        }
        JobMasterProcess p = current(target);
        return p == null ? "host-" + target : p.machine;
    }

    /** Damages node {@code node}'s checkpoint ({@code tear}, {@code flip} or {@code lose}); the next agent start finds it. */
    public void damageCheckpoint(String node, String how) {
        SimNode n = nodes.get(node);
        boolean hit = switch (how) {
            case "tear" -> n.disk.tear("caps.checkpoint", wire.random());
            case "flip" -> n.disk.flip("caps.checkpoint", wire.random());
            default -> n.disk.lose("caps.checkpoint");
        };
        note(node + "'s checkpoint: " + how + (hit ? "" : " (none there)"));
    }

    /** Damages the run records of node {@code node} ({@code tear} or {@code lose} each). */
    public void damageRunRecords(String node, String how) {
        SimNode n = nodes.get(node);
        n.damaged = true;
        for (String f : n.os.runDisk.names()) {
            if (how.equals("tear")) {
                n.os.runDisk.tear(f, wire.random());
            } else {
                n.os.runDisk.lose(f);
            }
        }
        note(node + "'s run records: " + how);
    }

    /** Node {@code node}'s disk refuses writes for {@code millis} (the checkpoint cannot be written). */
    public void diskFull(String node, long millis) {
        note(node + "'s disk refuses writes for " + millis + " ms");
        nodes.get(node).disk.unwritable(now() + millis);
    }

    public void faults(Faults f) {
        wire.faults(f);
    }

    // ---- time ---------------------------------------------------------------------------------------

    public void run(long millis) {
        long end = clock.millis() + millis;
        while (clock.millis() < end) {
            step();
        }
    }

    void step() {
        clock.advance(STEP);
        steps++;
        long now = clock.millis();
        int ran = 0;
        while (!later.isEmpty() && later.peek().at <= now) {
            later.poll().task.run();
            if (++ran > 200_000) {
                violation("more than 200,000 tasks fell due at t=" + rel(now) + "ms: a busy loop");
                later.clear();
                break;
            }
        }
        if (!masterDown) {
            master.tick();
            observeLost(now);
            if (!driftSeen) {
                List<String> drift = master.drift();
                if (!drift.isEmpty()) {
                    driftSeen = true; // once: a drift stays
                    violation("the master's books differ from its engine: " + drift);
                }
            }
        }
        Invariants.everyStep(this);
    }

    void later(long at, Runnable task) {
        later.add(new Later(at, laterOrder++, task));
    }

    private final Map<String, String> peerStates = new HashMap<>();
    private boolean driftSeen;

    /** Notes which nodes the master holds for lost, and since when (a task may run again elsewhere then); logs peers' state changes. */
    private void observeLost(long now) {
        for (PeerStatus j : master.jobMasters()) {
            String state = j.state() + (j.restart().isEmpty() ? "" : " (" + j.restart() + ")");
            if (!state.equals(peerStates.put("jm " + j.id(), state))) {
                note("master: job master " + j.id() + " is " + state);
            }
        }
        for (PeerStatus a : master.agents()) {
            if (!a.state().equals(peerStates.put("agent " + a.id(), a.state()))) {
                note("master: agent " + a.id() + " is " + a.state());
            }
            List<long[]> spans = lost.computeIfAbsent(a.id(), k -> new ArrayList<>());
            long[] open = spans.isEmpty() ? null : spans.get(spans.size() - 1);
            boolean isOpen = open != null && open[1] == Long.MAX_VALUE;
            if (a.state().equals("lost") && !isOpen) {
                spans.add(new long[] {now, Long.MAX_VALUE});
            } else if (!a.state().equals("lost") && isOpen) {
                open[1] = now;
            }
        }
    }

    /** True if the master held {@code node} for lost at some moment since {@code since}. */
    boolean nodeWasLost(String node, long since) {
        return lost.getOrDefault(node, List.of()).stream().anyMatch(s -> s[1] >= since);
    }

    /** Runs without faults until the peers and the master agree, or {@code maxMillis} passed; true if they agree. */
    public boolean settle(long maxMillis) {
        wire.faults(Faults.NONE);
        long end = clock.millis() + maxMillis;
        while (clock.millis() < end) {
            run(1_000);
            if (!masterDown && !master.recovering() && Invariants.agreement(this).isEmpty() && Invariants.workers(this).isEmpty()) {
                return true;
            }
        }
        return false;
    }

    /** Runs until every job master's job ended, or {@code maxMillis}; true if they did. */
    public boolean finish(long maxMillis) {
        long end = clock.millis() + maxMillis;
        while (clock.millis() < end && finished.size() < specs.size()) {
            run(500);
        }
        return finished.size() == specs.size();
    }

    // ---- what the master holds ------------------------------------------------------------------------

    ProtocolMaster master() {
        return master;
    }

    boolean masterServing() {
        return !masterDown && !wrongSecret && !master.recovering();
    }

    long now() {
        return clock.millis();
    }

    long rel(long t) {
        return t - T0;
    }

    Engine engine() {
        return engine;
    }

    /** Slots per unit on {@code node} as the engine holds them (empty if the node is unknown). */
    Map<UnitId, Integer> engineCaps(String node) {
        NodeView n = engine.view().cluster().node(node);
        return n == null ? Map.of() : new TreeMap<>(n.allocations());
    }

    boolean engineKnows(String node) {
        return engine.view().cluster().node(node) != null;
    }

    /** Slots per node of {@code unit} as the engine holds them. */
    Map<String, Integer> engineHoldings(UnitId unit) {
        UnitView u = engine.view().unit(unit);
        return u == null ? Map.of() : new TreeMap<>(u.allocations());
    }

    JobView engineJob(String id) {
        return engine.view().job(id);
    }

    // ---- outcome ------------------------------------------------------------------------------------

    void violation(String what) {
        violations.add("t=" + rel(clock.millis()) + "ms: " + what);
    }

    void internalError(String owner, Throwable ex) {
        StackTraceElement[] st = ex.getStackTrace();
        StringBuilder at = new StringBuilder();
        for (int i = 0; i < Math.min(6, st.length); i++) {
            at.append("\n      at ").append(st[i]);
        }
        violation("internal error in " + owner + ": " + ex + at);
    }

    void note(String what) {
        log.add("t=" + rel(clock.millis()) + "ms: " + what);
    }

    /** A line a process printed (kept: the last few thousand, for a failure's report). */
    void trace(String who, String line) {
        trace.add("t=" + rel(clock.millis()) + "ms " + who + ": " + line);
        while (trace.size() > TRACE_KEPT) {
            trace.poll();
        }
    }

    public List<String> violations() {
        return List.copyOf(violations);
    }

    public List<String> log() {
        return List.copyOf(log);
    }

    public List<String> trace() {
        return List.copyOf(trace);
    }

    public Map<String, Long> counters() {
        Map<String, Long> c = new LinkedHashMap<>();
        c.put("steps", steps);
        c.put("messages", wire.sent);
        c.put("dropped", wire.dropped);
        c.put("duplicated", wire.duplicated);
        c.put("fencedJobMasters", fencedJobMasters);
        c.put("jobMasterLaunches", jobMasterLaunches);
        c.put("masterRestarts", (long) masterRestarts);
        c.put("agentGiveUps", agentGiveUps);
        c.put("taskRuns", ledger.started);
        c.put("tasksRunTwice", ledger.twice);
        return c;
    }

    @Override
    public void close() {
        master.close();
    }
}

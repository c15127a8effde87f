package granary.conformance;

import granary.api.event.PolicyInstalled;
import granary.api.event.Revoked;
import granary.api.model.JobSpec;
import granary.api.model.ManualClock;
import granary.api.model.Resources;
import granary.api.model.UnitId;
import granary.api.model.UnitKind;
import granary.api.model.UnitSpec;
import granary.api.spi.JobView;
import granary.api.spi.NodeView;
import granary.api.spi.UnitView;
import granary.engine.Engine;
import granary.engine.EngineOptions;
import granary.master.MasterOptions;
import granary.master.ProtocolMaster;
import granary.policy.fifo.FifoPolicy;
import granary.protocol.Cap;
import granary.protocol.link.Tokens;
import granary.recovery.Recovery;
import granary.recovery.RecoveryOptions;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.TreeMap;

/**
 * One cluster on a manual clock: the real master (protocol side, recovery engine, engine with the
 * FIFO policy) and simulated agents and job masters over the in-process {@link Wire}. Time moves
 * in steps of {@value #STEP} ms; after every step the {@link Invariants} are checked. Every role
 * can fail over (restart, memory lost) or time out (cut off from the network for a while).
 */
public final class World implements AutoCloseable {

    public static final long STEP = 50;

    /** Timeouts and window of the world (shorter than production's, the rules are the same). */
    public record Settings(Duration agentTimeout, Duration jobMasterTimeout, Duration window, Duration settle) {
        public static Settings defaults() {
            return new Settings(Duration.ofSeconds(5), Duration.ofSeconds(8), Duration.ofSeconds(6), Duration.ofSeconds(1));
        }
    }

    final ManualClock clock = new ManualClock(1_000_000);
    final Wire wire;
    final Tokens tokens = new Tokens("the conformance kit's secret".getBytes(StandardCharsets.UTF_8));
    final Settings settings;
    private Engine engine;
    private ProtocolMaster master;
    private long masterIncarnation = 1;
    final Map<String, SimAgent> agents = new LinkedHashMap<>();
    final Map<String, SimJobMaster> jobMasters = new LinkedHashMap<>();
    private final Map<UnitId, Long> taskMillis = new HashMap<>();
    private final Map<UnitId, Integer> tasksDone = new TreeMap<>();
    private record Later(long at, long order, Runnable task) {
    }
    private final PriorityQueue<Later> later = new PriorityQueue<>(
            (a, b) -> a.at != b.at ? Long.compare(a.at, b.at) : Long.compare(a.order, b.order));
    private long laterOrder;
    private final List<String> violations = new ArrayList<>();
    private final List<String> log = new ArrayList<>();
    long fencedAnswers;
    /** Answers refusing an incarnation of a job master the master had started again. */
    long fencedJobMasters;
    private final Map<String, Integer> launches = new HashMap<>();
    int masterRestarts;
    long steps;

    public World(long seed, Settings settings) {
        this.wire = new Wire(seed);
        this.settings = settings;
        startMaster();
    }

    // ---- the cluster --------------------------------------------------------------------------

    public void addAgent(String node, Resources capacity) {
        agents.put(node, new SimAgent(this, node, capacity, clock.millis()));
    }

    /** A job master running {@code jobs}; offline units take {@code taskMillis} per task. */
    public void addJobMaster(String id, boolean checkpointsHints, long taskMillis, JobSpec... jobs) {
        addJobMaster(id, checkpointsHints, false, taskMillis, jobs);
    }

    /** A job master running {@code jobs}; {@code restartable}: it sends a restart spec (spec case 3). */
    public void addJobMaster(String id, boolean checkpointsHints, boolean restartable, long taskMillis, JobSpec... jobs) {
        for (JobSpec j : jobs) {
            for (UnitSpec u : j.units()) {
                this.taskMillis.put(new UnitId(j.id(), u.name()), taskMillis);
            }
        }
        jobMasters.put(id, new SimJobMaster(this, id, List.of(jobs), checkpointsHints, restartable, clock.millis()));
    }

    // ---- faults -------------------------------------------------------------------------------

    /** Master failover: the process dies and a new one starts empty, with its recovery window. */
    public void restartMaster() {
        note("master fails over");
        master.close();
        masterRestarts++;
        startMaster();
    }

    private void startMaster() {
        engine = new Engine(clock, new EngineOptions(List.of("fifo"), List.of("fifo"), true));
        engine.handle(new PolicyInstalled(new FifoPolicy(), "conformance"));
        engine.subscribe(e -> {
            if (e instanceof Revoked r && r.kind() == UnitKind.ONLINE && !ProtocolMaster.isRestartJob(r.unit().job())) {
                violation("the master revoked online slots: " + r);
            }
        });
        masterIncarnation += 1_000;
        MasterOptions options = new MasterOptions("master", masterIncarnation, settings.agentTimeout(),
                settings.jobMasterTimeout(), 5_000, Duration.ofSeconds(5)).withManualTicks();
        boolean first = master == null;
        RecoveryOptions recovery = first ? RecoveryOptions.none() : new RecoveryOptions(settings.window(), settings.settle());
        master = new ProtocolMaster(new DirectScheduler(engine), tokens, options, clock, Recovery.of(recovery));
    }

    public void restartAgent(String node) {
        note("agent " + node + " fails over");
        agents.get(node).failover(clock.millis());
    }

    public void restartJobMaster(String id) {
        note("job master " + id + " fails over");
        jobMasters.get(id).failover(clock.millis());
    }

    /**
     * An agent started a job master from a cap that carries its launch (docs/recovery.md,
     * "Restarting a lost job master"): a new incarnation of it starts on {@code node}, keeping its
     * jobs and progress, and is reachable (it runs elsewhere than the one cut off). The old
     * incarnation, still cut off, speaks once its cut ends: the master must refuse it as fenced.
     */
    void launchJobMaster(Cap.Grant g, String node) {
        String id = g.unit().job().substring(g.unit().job().indexOf('@') + 1);
        SimJobMaster jm = jobMasters.get(id);
        if (jm == null) {
            violation("agent " + node + " got a launch of unknown job master " + id + ": " + g.unit());
            return;
        }
        note("agent " + node + " starts job master " + id + " again (" + g.unit() + ")");
        launches.merge(id, 1, Integer::sum);
        long oldLife = jm.incarnation;
        long cutEnds = wire.cutUntil(id);
        if (!jm.crashed && cutEnds > now()) {
            later(cutEnds, () -> ghostSpeaks(jm, oldLife));
        }
        wire.heal(id);
        jm.crashed = false;
        jm.node = node;
        jm.failover(Math.max(now(), oldLife + 1));
    }

    /** The fenced incarnation {@code life} of {@code jm}, back on the network, sends what it had: refused. */
    private void ghostSpeaks(SimJobMaster jm, long life) {
        byte[] body = jm.codec.encode(granary.protocol.Envelope.of(jm.self, life, 1_000,
                new granary.protocol.Request(false, List.of(), List.of(), List.of(), List.of())));
        ProtocolMaster to = master;
        wire.send(jm.id(), now(), () -> {
            int status = to.post(jm.token, body, "inproc:" + jm.id() + "-old").status();
            if (status == 200) {
                violation("the master applied a message of job master " + jm.id() + "'s incarnation " + life
                        + ", which it had declared lost and started again");
            } else {
                fencedJobMasters++;
            }
        });
    }

    /** A job master's incarnation was told it is fenced: it exits, and waits for the master's launch. */
    void fencedJobMaster(SimJobMaster jm) {
        note("job master " + jm.id() + " incarnation " + jm.incarnation + " is fenced and exits");
        fencedJobMasters++;
        jm.crashed = true;
    }

    /** How many times an agent started each job master again. */
    int launches(String jobMaster) {
        return launches.getOrDefault(jobMaster, 0);
    }

    /** The peer is unreachable for {@code millis}: every message to or from it is lost meanwhile. */
    public void cut(String peer, long millis) {
        note(peer + " is cut off for " + millis + " ms");
        wire.partition(peer, clock.millis() + millis);
    }

    public void faults(Faults f) {
        wire.faults(f);
    }

    // ---- time ---------------------------------------------------------------------------------

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
        while (!later.isEmpty() && later.peek().at <= now) {
            later.poll().task.run();
        }
        wire.deliver(now);
        for (SimAgent a : agents.values()) {
            a.tick(now);
        }
        for (SimJobMaster j : jobMasters.values()) {
            j.tick(now);
        }
        master.tick();
        Invariants.everyStep(this);
    }

    void later(long at, Runnable task) {
        later.add(new Later(at, laterOrder++, task));
    }

    /** Runs without faults until the peers and the master agree, or {@code maxMillis} passed; true if they agree. */
    public boolean settle(long maxMillis) {
        wire.faults(Faults.NONE);
        long end = clock.millis() + maxMillis;
        while (clock.millis() < end) {
            run(1_000);
            if (!master.recovering() && Invariants.agreement(this).isEmpty()) {
                return true;
            }
        }
        return false;
    }

    /** Runs until every job master's offline tasks are done, or {@code maxMillis}; true if done. */
    public boolean finish(long maxMillis) {
        long end = clock.millis() + maxMillis;
        while (clock.millis() < end) {
            if (jobMasters.values().stream().allMatch(SimJobMaster::done)) {
                return true;
            }
            run(500);
        }
        return jobMasters.values().stream().allMatch(SimJobMaster::done);
    }

    // ---- what the master holds ------------------------------------------------------------------

    ProtocolMaster master() {
        return master;
    }

    long now() {
        return clock.millis();
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

    long taskMillis(UnitId unit) {
        return taskMillis.getOrDefault(unit, 2_000L);
    }

    /** Online slots a job master gave back of its own accord: their workers may stop. */
    private final Map<String, Integer> released = new HashMap<>();

    void released(UnitId unit, String node, int slots) {
        released.merge(unit + "@" + node, slots, Integer::sum);
    }

    /** True (and counted) if an online worker of {@code unit} on {@code node} may stop because its job master released it. */
    boolean releasedStop(UnitId unit, String node) {
        String k = unit + "@" + node;
        int n = released.getOrDefault(k, 0);
        if (n <= 0) {
            return false;
        }
        released.put(k, n - 1);
        return true;
    }

    /** Online workers stopped because their job master gave their slots back: node → unit#slot. */
    final java.util.Set<String> stoppedOnRequest = new java.util.HashSet<>();

    void stoppedOnRequest(String node, String worker) {
        stoppedOnRequest.add(node + "/" + worker);
    }

    void taskDone(UnitId unit) {
        tasksDone.merge(unit, 1, Integer::sum);
    }

    /** Online workers running now, by agent. */
    public Map<String, List<String>> onlineWorkers() {
        Map<String, List<String>> out = new TreeMap<>();
        agents.forEach((n, a) -> {
            List<String> ws = new ArrayList<>();
            a.workers.stream().filter(SimAgent.Worker::online).forEach(w -> ws.add(w.unit() + "#" + w.slot()));
            out.put(n, ws);
        });
        return out;
    }

    Map<UnitId, Cap.Grant> agentCaps(String node) {
        return agents.get(node).caps();
    }

    // ---- outcome ------------------------------------------------------------------------------

    void violation(String what) {
        violations.add("t=" + (clock.millis() - 1_000_000) + "ms: " + what);
    }

    void note(String what) {
        log.add("t=" + (clock.millis() - 1_000_000) + "ms: " + what);
    }

    public List<String> violations() {
        return List.copyOf(violations);
    }

    public List<String> log() {
        return List.copyOf(log);
    }

    public Map<String, Long> counters() {
        Map<String, Long> c = new LinkedHashMap<>();
        c.put("steps", steps);
        c.put("messages", wire.sent);
        c.put("dropped", wire.dropped);
        c.put("duplicated", wire.duplicated);
        c.put("fencedAnswers", fencedAnswers);
        c.put("fencedJobMasters", fencedJobMasters);
        c.put("jobMasterLaunches", (long) launches.values().stream().mapToInt(Integer::intValue).sum());
        c.put("masterRestarts", (long) masterRestarts);
        return c;
    }

    @Override
    public void close() {
        master.close();
    }
}

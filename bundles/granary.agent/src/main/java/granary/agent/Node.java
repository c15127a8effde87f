package granary.agent;

import granary.api.model.Problem;
import granary.api.model.Resources;
import granary.api.model.UnitId;
import granary.protocol.Ack;
import granary.protocol.Cap;
import granary.protocol.Envelope;
import granary.protocol.Heartbeat;
import granary.protocol.LaunchAnswers;
import granary.protocol.Plan;
import granary.protocol.link.Loop;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Consumer;

/**
 * The agent's state and its rules: the caps it holds, the launches waiting for a cap, the workers
 * it runs, the exits it keeps until the master has them, and what the next heartbeat reports.
 * Confined to the agent's loop: plans, caps and exits all arrive as tasks on it.
 *
 * <p>The rule: a worker of a unit starts only under a cap of the job master that planned it, with
 * the key of the token the plan came with, while fewer workers of that unit run here than the cap
 * allows and fewer than {@link AgentConfig#maxWorkers()} run in all. A launch that cannot start yet
 * is kept and retried when a cap arrives; withdrawals stop the newest workers beyond the cap.
 *
 * <p>Exits (docs/recovery.md, "Exits that never arrive"): a worker's exit is reported until the
 * master acknowledged a heartbeat carrying it; then its run record is marked reported. The exit
 * stays known for {@link AgentConfig#exitRetention()}, across a restart of the agent too (the
 * record goes after that): a launch of that slot again is answered with it, not run again.
 */
final class Node {

    private record Slot(UnitId unit, int slot) {
    }

    /** An ended worker's slot: its code, when it ended, and whether a master acknowledged its exit. */
    private record Held(int code, long at, boolean reported) {
        Held asReported() {
            return new Held(code, at, true);
        }
    }

    /** Most ended slots remembered for answering launches of them again. */
    static final int MAX_HELD_EXITS = 10_000;

    private final AgentConfig config;
    private final Loop loop;
    private final Consumer<String> events;
    private final Runnable heartbeatNow;
    private final Workers workers;
    private final CapTable caps = new CapTable();
    private final PendingLaunches pending;
    private final List<Heartbeat.Worker> started = new ArrayList<>();
    private final List<Heartbeat.Exit> exited = new ArrayList<>();
    private final Map<Slot, Held> held = new LinkedHashMap<>();
    /**
     * The epoch of this agent's registration (docs/recovery.md, "A silent node"): a launch planned
     * against an earlier one is not started — the node may have been declared lost in between, and
     * its work run again elsewhere.
     */
    private long epoch = 1;
    /**
     * True while the master answers this agent: registered, and its last call answered. A plan
     * that arrives otherwise is kept until it does — the agent may have been declared lost meanwhile
     * (it learns so from the master's answer), and then the plan's work runs elsewhere already.
     */
    private boolean confirmed;
    private long confirmedAt = Long.MIN_VALUE / 2;
    /** A full cap came since the last registration: from then on, workers beyond their caps are reported. */
    private boolean fullSeen;
    /** The workers without a cap reported last (logged when the set changes). */
    private List<Heartbeat.Worker> uncappedReported = List.of();
    /** Launches that failed in a row for a reason of the node's (docs/agent.md, "Node health"), and the last one's error. */
    private int failuresInRow;
    private String lastFailure = "";
    /** A self-check of the node's directories is scheduled (the node is unhealthy by failed launches). */
    private boolean selfCheckScheduled;
    /** The last health command's verdict: null healthy. */
    private String checkVerdict;
    /** The health reported last (logged when it changes). */
    private Heartbeat.Health healthSaid = Heartbeat.Health.OK;
    /** The previous usage samples (docs/agent.md, "What is reported"): CPU use is the time used since them. */
    private Map<Workers.Worker, Launcher.Sample> lastSamples = new HashMap<>();
    private Launcher.Sample lastMachine;
    private long lastSampleAt;
    /** Workers said to use more memory than their slot (said once each). */
    private final Set<Workers.Worker> overSlot = new HashSet<>();

    Node(AgentConfig config, Loop loop, Workers workers, Consumer<String> events, Runnable heartbeatNow) {
        this.config = config;
        this.loop = loop;
        this.workers = workers;
        this.events = events;
        this.heartbeatNow = heartbeatNow;
        this.pending = new PendingLaunches(config.maxPending(), config.pendingExpiry().toMillis());
        if (!config.workers().healthCommand().isEmpty()) {
            loop.schedule(0, this::runHealthCheck);
        }
    }

    /** Runs the operator's health command, and again every health period (docs/agent.md, "Node health"). */
    private void runHealthCheck() {
        workers.launcher().healthCheck(config.workers().healthCommand(), config.workers().healthTimeout(), verdict -> {
            checkVerdict = verdict;
            reassess();
            loop.schedule(config.workers().healthPeriod().toMillis(), this::runHealthCheck);
        });
    }

    /**
     * Whether the node is fit for work now: not after {@link WorkerPolicy#failureLimit} launches
     * failed in a row for a reason of the node's, nor while the health command says otherwise.
     * Said as an event when it changes.
     */
    Heartbeat.Health health() {
        int limit = config.workers().failureLimit();
        Heartbeat.Health h = limit > 0 && failuresInRow >= limit
                ? new Heartbeat.Health(false, failuresInRow + " launches in a row failed on this node; the last: " + lastFailure)
                : checkVerdict != null ? new Heartbeat.Health(false, checkVerdict) : Heartbeat.Health.OK;
        if (h.healthy() != healthSaid.healthy() || !h.reason().equals(healthSaid.reason())) {
            events.accept(h.healthy() ? "healthy (the node takes work again)" : "unhealthy reason=" + h.reason());
            healthSaid = h;
        }
        if (!h.healthy() && limit > 0 && failuresInRow >= limit && !selfCheckScheduled) {
            selfCheckScheduled = true;
            loop.schedule(config.workers().healthPeriod().toMillis(), this::selfCheck);
        }
        return h;
    }

    /** Looks at the node's health again, and heartbeats at once if it turned (never from within a heartbeat's {@link #drain}). */
    private void reassess() {
        boolean was = healthSaid.healthy();
        if (health().healthy() != was) {
            heartbeatNow.run();
        }
    }

    /**
     * A node unhealthy by failed launches gets no work, so no launch can make it healthy again: every
     * health period it checks the directories a launch needs itself, and takes itself back once they
     * can be written (docs/agent.md, "Node health").
     */
    private void selfCheck() {
        selfCheckScheduled = false;
        if (failuresInRow < config.workers().failureLimit()) {
            return;
        }
        String problem = workers.launcher().selfCheck();
        if (problem == null) {
            failuresInRow = 0;
        } else {
            lastFailure = problem;
        }
        reassess();
    }

    /** What the node and its workers use now, since the previous sample; null where the launcher cannot tell. */
    private Heartbeat.Usage usage() {
        Launcher.Sample machine = workers.launcher().machine();
        if (machine == null) {
            return null;
        }
        long now = loop.now();
        long elapsed = now - lastSampleAt;
        Map<Workers.Worker, Launcher.Sample> samples = new HashMap<>();
        List<Heartbeat.WorkerUsage> out = new ArrayList<>();
        for (Workers.Worker w : workers.all()) {
            Launcher.Sample s = w.process().sample();
            if (s == null) {
                continue;
            }
            samples.put(w, s);
            long mem = mib(s.memBytes());
            out.add(new Heartbeat.WorkerUsage(w.unit(), w.slot(), Resources.of(rate(lastSamples.get(w), s, elapsed), mem)));
            long slotMem = w.record().size().memMb();
            if (slotMem > 0 && mem > slotMem && overSlot.add(w)) {
                events.accept("over-slot unit=" + w.unit() + " slot=" + w.slot() + " mem=" + mem + "MiB of " + slotMem + "MiB"
                        + " (isolation does not hold it to its slot)");
            }
        }
        overSlot.retainAll(samples.keySet());
        Heartbeat.Usage u = new Heartbeat.Usage(Resources.of(rate(lastMachine, machine, elapsed), mib(machine.memBytes())), out);
        lastSamples = samples;
        lastMachine = machine;
        lastSampleAt = now;
        return u;
    }

    /** CPU use between two samples {@code elapsedMillis} apart, in hundredths of a core; 0 with no earlier sample. */
    private static long rate(Launcher.Sample before, Launcher.Sample now, long elapsedMillis) {
        if (before == null || elapsedMillis <= 0) {
            return 0;
        }
        return Math.max(0, now.cpuNanos() - before.cpuNanos()) * 100 / (elapsedMillis * 1_000_000);
    }

    private static long mib(long bytes) {
        return Math.max(0, bytes) >> 20;
    }

    /**
     * At start, before registering: adopts the workers a previous life of this agent left running
     * (it was killed; the OS kept them), so that they count against their caps, answer "already
     * running" and are stopped when their cap goes; and reports those that ended meanwhile with the
     * code their wrapper recorded (docs/recovery.md, "Exits that never arrive"). A worker the previous
     * life had stopped is still being stopped: its end is reported as the stop it is, or its job
     * master would count the 143 that SIGTERM left as a failure of its own (kit seeds 5048, 7537).
     */
    void adopt(List<Launcher.Left> left) {
        for (Launcher.Left l : left) {
            Launcher.Record r = l.record();
            if (l.running() != null && !workers.isRunning(r.unit(), r.slot())) {
                Workers.Worker w = workers.adopt(l);
                events.accept("adopted unit=" + w.unit() + " slot=" + w.slot() + " pid=" + w.pid()
                        + (l.stopped() ? " (being stopped)" : ""));
                w.process().onExit(code -> exited(w, code));
                if (l.stopped()) {
                    workers.stopOne(w); // the previous life's grace ended with it: this one kills it if it does not end
                }
            } else if (l.running() == null && l.reported()) {
                held.put(new Slot(r.unit(), r.slot()), new Held(l.exitCode(), loop.now(), true)); // a master has it
            } else if (l.running() == null) {
                int code = l.stopped() && l.exitCode() != 0 ? Heartbeat.STOPPED : l.exitCode();
                exited.add(new Heartbeat.Exit(r.unit(), r.slot(), code, l.stopped()));
                hold(r.unit(), r.slot(), code);
                events.accept("exited unit=" + r.unit() + " slot=" + r.slot() + " code=" + code
                        + " (while the agent was down)");
            }
        }
    }

    /**
     * Caps for the workers adopted under no cap (the checkpoint was torn or lost): one per unit,
     * as many slots as its workers, for the job master and key their run records name. The
     * registration carries them, so that a master that rebuilds keeps these workers' slots on this
     * node instead of granting them again elsewhere (docs/recovery.md, "A torn checkpoint").
     */
    List<Cap.Grant> rebuildCaps() {
        Map<UnitId, List<Workers.Worker>> uncapped = new TreeMap<>();
        for (Workers.Worker w : workers.all()) {
            // a worker found by scanning the node's processes names no job master: no cap can be made for
            // it; one being stopped gave its slot back with the cap that went down
            if (caps.get(w.unit()) == null && !w.record().jobMaster().isEmpty() && !workers.stopping(w)) {
                uncapped.computeIfAbsent(w.unit(), u -> new ArrayList<>()).add(w);
            }
        }
        List<Cap.Grant> out = new ArrayList<>();
        uncapped.forEach((unit, ws) -> {
            Launcher.Record r = ws.get(0).record();
            Cap.Grant g = new Cap.Grant(r.jobMaster(), unit, ws.size(), r.key(), r.size(), r.online());
            caps.put(g);
            out.add(g);
            events.accept("cap-rebuilt unit=" + unit + " slots=" + ws.size() + " jobMaster=" + r.jobMaster()
                    + " (from the workers found running)");
        });
        return out;
    }

    /** Takes the caps of a checkpoint. */
    void load(List<Cap.Grant> grants) {
        caps.replace(grants);
    }

    long epoch() {
        return epoch;
    }

    /** The epoch of a checkpoint (a node never declared lost is at 1). */
    void epoch(long e) {
        epoch = Math.max(1, e);
    }

    /** Whether the master answers now; when it does again, the launches kept meanwhile start (those their caps allow). */
    void confirmed(boolean c) {
        confirmed(c, loop.now());
    }

    /** As {@link #confirmed(boolean)}, by an answer to a message sent at {@code sentAt}: the master's word is as old as that. */
    void confirmed(boolean c, long sentAt) {
        boolean was = confirmedNow();
        confirmed = c;
        if (c) {
            confirmedAt = Math.max(confirmedAt, sentAt);
        }
        if (c && !was) {
            caps.all().forEach(g -> startKept(g.unit()));
        }
    }

    /**
     * True if the master answered lately: the message its last answer was to was sent at most three
     * heartbeats ago.
     * An agent that was frozen (SIGSTOP, a long pause) does not start the plans that queued up
     * meanwhile before the master answered again — it may have been declared lost, and that work run
     * elsewhere (docs/recovery.md, "A silent node").
     */
    private boolean confirmedNow() {
        return confirmed && loop.now() - confirmedAt <= Math.max(3 * config.heartbeat().toMillis(), 1_000);
    }

    /** The master declared this node lost: launches planned before are void from now on. */
    void declaredLost() {
        events.accept("declared-lost epoch=" + epoch + " (launches planned before are not started: their work runs elsewhere)");
    }

    /**
     * A new registration begins a new epoch: a plan made under an earlier registration is not
     * started. The node may have been declared lost meanwhile by a master that died before it could
     * say so — its job masters then ran that work elsewhere, and a new master cannot tell
     * (docs/recovery.md, "A silent node"). Epochs grow with the clock too (the time in ms, as
     * incarnations do), so that an agent that restarts never uses one again, checkpoint or not.
     */
    long nextEpoch() {
        epoch = Math.max(epoch + 1, loop.now());
        // The full cap that answers this registration may come before its acknowledgement: from
        // here on, the next full cap is this registration's.
        fullSeen = false;
        return epoch;
    }

    List<Cap.Grant> caps() {
        return caps.all();
    }

    int running(UnitId unit) {
        return workers.running(unit);
    }

    int pendingCount() {
        return pending.size();
    }

    /** Workers running now. */
    List<Workers.Worker> workers() {
        return workers.all();
    }

    /** True while a worker runs (an agent with workers never gives up on its master). */
    boolean hasWorkers() {
        return workers.total() > 0;
    }

    /**
     * The master accepted a registration: the next heartbeat reports every running worker as
     * started (a master that restarted knows none of them). Exits not acknowledged yet stay: a
     * master that rebuilt from this agent's caps still holds their slots, and releases them when it
     * hears of the exits (docs/recovery.md).
     */
    void registered() {
        confirmed = false; // confirmed again by the caller, once the pending launches of an earlier epoch are dropped
        // Launches kept from before were planned under grants this registration's master may not
        // hold: the node may have been declared lost meanwhile by a master that died before it could
        // say so (its work then runs elsewhere), and a new master cannot tell. Dropped, whatever
        // epoch they name; a job master that still wants one asks again with a probe, which starts
        // at once or not at all (docs/recovery.md, "A silent node").
        for (PendingLaunches.Kept k : pending.removeIf(k -> true)) {
            events.accept("dropped unit=" + k.launch().unit() + " slot=" + k.launch().slot()
                    + " reason=it waited for a cap from before this registration");
        }
        started.clear();
        for (Workers.Worker w : workers.all()) {
            started.add(new Heartbeat.Worker(w.unit(), w.slot()));
        }
    }

    /** Applies a cap from the master's inbox; returns the whole table to checkpoint before the next poll. */
    List<Cap.Grant> apply(Cap cap) {
        boolean full = cap.full();
        Set<UnitId> launched = new TreeSet<>();
        caps.all().stream().filter(g -> g.launch() != null).forEach(g -> launched.add(g.unit()));
        Set<UnitId> touched = new TreeSet<>();
        if (full) {
            caps.all().forEach(g -> touched.add(g.unit()));
        }
        Set<UnitId> withdrawn = caps.apply(cap, full);
        fullSeen |= full;
        cap.grants().forEach(g -> touched.add(g.unit()));
        cap.withdrawals().forEach(g -> touched.add(g.unit()));
        for (UnitId u : touched) {
            events.accept("cap unit=" + u + " slots=" + caps.slots(u) + (withdrawn.contains(u) ? " withdrawn" : "")
                    + (full ? " full" : ""));
        }
        for (UnitId u : withdrawn) {
            for (Workers.Worker w : workers.stopBeyond(u, caps.slots(u))) {
                events.accept("stopping unit=" + u + " slot=" + w.slot() + " pid=" + w.pid()
                        + (cap.reason() == null ? "" : " reason=" + cap.reason()));
            }
        }
        touched.forEach(this::startKept);
        cap.grants().stream().filter(g -> g.launch() != null && !launched.contains(g.unit())).forEach(this::launchOwn);
        return caps.all();
    }

    /**
     * A cap that carries its own launch (the master starts a lost job master again, docs/recovery.md
     * "Restarting a lost job master") starts its worker in slot 0 once, when the agent first holds
     * it: no job master sends a plan for it. From then on it is a worker like any other.
     */
    private void launchOwn(Cap.Grant g) {
        if (caps.slots(g.unit()) < 1 || workers.running(g.unit()) > 0) {
            return;
        }
        Plan.Launch l = new Plan.Launch(g.unit(), 0, g.launch().command(), g.launch().environment(), g.launch().workingDirectory());
        if (workers.total() >= config.maxWorkers()) {
            events.accept("launch-failed unit=" + g.unit() + " slot=0 error=agent-full(max-workers=" + config.maxWorkers() + ")");
            exited.add(new Heartbeat.Exit(g.unit(), 0, Heartbeat.NOT_STARTED));
            heartbeatNow.run();
            return;
        }
        start(new PendingLaunches.Kept(l, g.jobMaster(), g.key(), 0, loop.now()));
    }

    /** True if this node holds caps of {@code jobMaster}. */
    boolean holdsCapsOf(String jobMaster) {
        return caps.holdsAny(jobMaster);
    }

    /** Null if a plan with {@code key} may come from {@code jobMaster}, else why not (a 403). */
    String refusesKey(String jobMaster, String key) {
        if (caps.holdsAny(jobMaster) && !caps.keyMatches(jobMaster, key)) {
            return "the pass is not for the job master " + jobMaster + " whose caps on node " + config.node()
                    + " were granted (its key does not match)";
        }
        return null;
    }

    /** Applies a plan all or nothing: launches what its caps allow now, keeps the rest. */
    Ack plan(String jobMaster, String key, Envelope e) {
        Plan plan = (Plan) e.message();
        List<Problem> problems = check(jobMaster, key, plan);
        if (!problems.isEmpty()) {
            return Ack.refused(e.sequence(), problems);
        }
        for (Plan.Launch l : plan.launches()) {
            PendingLaunches.Kept k = new PendingLaunches.Kept(l, jobMaster, key, e.incarnation(), loop.now());
            String wait = waitReason(k);
            if (wait == null) {
                start(k);
            } else {
                pending.add(k);
                events.accept("kept unit=" + l.unit() + " slot=" + l.slot() + " reason=" + wait);
            }
        }
        return Ack.applied(e.sequence());
    }

    private List<Problem> check(String jobMaster, String key, Plan plan) {
        List<Problem> out = new ArrayList<>();
        String subject = "job master " + jobMaster + " on node " + config.node();
        Set<String> seen = new HashSet<>();
        Map<UnitId, Integer> room = new HashMap<>();
        int agentRoom = config.maxWorkers() - workers.total();
        int toKeep = 0;
        long now = loop.now();
        for (int i = 0; i < plan.launches().size(); i++) {
            Plan.Launch l = plan.launches().get(i);
            String at = "$.message.launches[" + i + "]";
            Cap.Grant g = caps.get(l.unit());
            if (g != null && !g.jobMaster().equals(jobMaster)) {
                out.add(Problem.of(subject, at + ".unit", "unit " + l.unit() + " is capped here for job master "
                        + g.jobMaster() + ", not for " + jobMaster));
            } else if (g != null && !CapTable.sameKey(g.key(), key)) {
                out.add(Problem.of(subject, at + ".unit", "the pass's key does not match the key of the cap of unit " + l.unit()));
            }
            if (l.command().isEmpty()) {
                out.add(Problem.of(subject, at + ".command", "is empty; expected the program and its arguments"));
            }
            Problem place = Confinement.check(subject, at, l, config.workDir(), config.workRoots(), config.workers());
            if (place != null) {
                out.add(place);
            }
            Held h = held.get(new Slot(l.unit(), l.slot()));
            int before = out.size();
            if (workers.isRunning(l.unit(), l.slot())) {
                out.add(LaunchAnswers.running(subject, at + ".slot", l.unit(), l.slot()));
            } else if (h != null) {
                out.add(LaunchAnswers.ended(subject, at + ".slot", l.unit(), l.slot(), h.code(), now - h.at(), h.reported()));
            } else if (l.epoch() > 0 && l.epoch() < epoch) {
                out.add(new Problem(subject, at + ".epoch", "was planned under an earlier registration of node " + config.node()
                        + " (epoch " + l.epoch() + ", now " + epoch + "; the node may have been declared lost in between, its work"
                        + " run elsewhere): not started", epoch, l.epoch()));
            } else if (l.probe() && pending.contains(l.unit(), l.slot())) {
                // a probe finds its launch still waiting for its cap: dropped, so that the job master may run it elsewhere
                pending.removeIf(k -> k.launch().unit().equals(l.unit()) && k.launch().slot() == l.slot());
                events.accept("dropped unit=" + l.unit() + " slot=" + l.slot() + " reason=a probe found it waiting for its cap");
                out.add(LaunchAnswers.notStarted(subject, at + ".slot", l.unit(), l.slot(), "it waited for its cap, and is dropped"));
            } else if (pending.contains(l.unit(), l.slot()) || !seen.add(l.unit() + "#" + l.slot())) {
                out.add(LaunchAnswers.planned(subject, at + ".slot", l.unit(), l.slot()));
            }
            if (l.probe() && out.size() > before) {
                continue; // the slot's state answers the probe
            }
            int r = room.computeIfAbsent(l.unit(), u -> g == null ? 0 : caps.slots(u) - workers.running(u));
            if (r > 0 && agentRoom > 0 && (confirmedNow() || !l.probe())) {
                room.put(l.unit(), r - 1);
                agentRoom--;
            } else if (l.probe()) {
                String why = g == null ? "no cap of its unit here" : !confirmedNow() ? "the master does not answer this agent now"
                        : r <= 0 ? "its cap is full (" + workers.running(l.unit()) + " of " + caps.slots(l.unit()) + " running)"
                        : "the agent runs its most workers (" + config.maxWorkers() + ")";
                out.add(LaunchAnswers.notStarted(subject, at + ".slot", l.unit(), l.slot(), why));
            } else {
                toKeep++;
            }
        }
        if (pending.size() + toKeep > pending.limit()) {
            out.add(new Problem(subject, "$.message.launches", "keeping " + toKeep + " more launches until their caps"
                    + " arrive would exceed the limit of " + pending.limit() + " kept launches (" + pending.size()
                    + " kept)", (long) pending.limit(), (long) pending.size() + toKeep));
        }
        return out;
    }

    /** Null if the kept launch may start now, else why it waits. */
    private String waitReason(PendingLaunches.Kept k) {
        if (!confirmedNow()) {
            return "master-unconfirmed";
        }
        UnitId u = k.launch().unit();
        Cap.Grant g = caps.get(u);
        if (g == null) {
            return "no-cap-yet";
        }
        int running = workers.running(u);
        if (running >= g.slots()) {
            return "cap-full(" + running + "-of-" + g.slots() + ")";
        }
        if (workers.total() >= config.maxWorkers()) {
            return "agent-full(max-workers=" + config.maxWorkers() + ")";
        }
        return null;
    }

    /** Starts the launches kept for {@code unit} that its cap now allows; drops those the cap's owner or key contradicts. */
    private void startKept(UnitId unit) {
        Cap.Grant g = caps.get(unit);
        if (g == null) {
            return;
        }
        for (PendingLaunches.Kept k : pending.of(unit)) {
            if (!g.jobMaster().equals(k.jobMaster()) || !CapTable.sameKey(g.key(), k.key())) {
                pending.remove(k);
                events.accept("dropped unit=" + unit + " slot=" + k.launch().slot() + " reason=the cap is for job master "
                        + g.jobMaster() + " with another key than the plan's token from " + k.jobMaster());
            } else if (waitReason(k) == null) {
                pending.remove(k);
                start(k);
            }
        }
    }

    private void start(PendingLaunches.Kept k) {
        Plan.Launch l = k.launch();
        Cap.Grant g = caps.get(l.unit());
        Launcher.Record r = new Launcher.Record(l.unit(), l.slot(), k.jobMaster(), k.key(),
                g == null ? Resources.ZERO : g.size(), g != null && g.online());
        Workers.Worker w;
        try {
            w = workers.start(l, r);
        } catch (IOException | RuntimeException ex) {
            events.accept("launch-failed unit=" + l.unit() + " slot=" + l.slot() + " error=" + ex.getMessage());
            exited.add(new Heartbeat.Exit(l.unit(), l.slot(), Heartbeat.NOT_STARTED));
            hold(l.unit(), l.slot(), Heartbeat.NOT_STARTED);
            if (!(ex instanceof Launcher.PlanFault)) {
                // the node's fault, not the plan's (a program that is not there is the job's): counts against its health
                failuresInRow++;
                lastFailure = String.valueOf(ex.getMessage());
                reassess();
            }
            heartbeatNow.run();
            return;
        }
        if (failuresInRow > 0) {
            failuresInRow = 0;
            reassess();
        }
        started.add(new Heartbeat.Worker(l.unit(), l.slot()));
        events.accept("launched unit=" + l.unit() + " slot=" + l.slot() + " pid=" + w.pid());
        w.process().onExit(code -> exited(w, code));
    }

    private void exited(Workers.Worker w, int rawCode) {
        boolean stopped = workers.exited(w);
        // one stopped as it finished its work keeps its 0: its job master need not run it again
        int code = stopped && rawCode != 0 ? Heartbeat.STOPPED : rawCode;
        Heartbeat.Oom oom = stopped ? null : w.process().oom();
        exited.add(new Heartbeat.Exit(w.unit(), w.slot(), code, stopped, oom));
        hold(w.unit(), w.slot(), code);
        events.accept("exited unit=" + w.unit() + " slot=" + w.slot() + " code=" + code
                + (oom == null ? "" : " reason=oom limit=" + oom.limitMiB() + "MiB peak=" + oom.peakMiB() + "MiB"));
        heartbeatNow.run();
    }

    private void hold(UnitId unit, int slot, int code) {
        held.remove(new Slot(unit, slot));
        held.put(new Slot(unit, slot), new Held(code, loop.now(), false));
        while (held.size() > MAX_HELD_EXITS) {
            Iterator<Map.Entry<Slot, Held>> it = held.entrySet().iterator();
            Map.Entry<Slot, Held> e = it.next();
            it.remove();
            if (e.getValue().reported()) {
                workers.launcher().forget(e.getKey().unit(), e.getKey().slot());
            }
        }
    }

    /** A job master's incarnation ended: the launches it planned and that still wait are dropped. */
    void ended(String jobMaster, String key, long incarnation) {
        for (PendingLaunches.Kept k : pending.removeIf(k -> k.jobMaster().equals(jobMaster) && k.key().equals(key)
                && k.incarnation() == incarnation)) {
            events.accept("dropped unit=" + k.launch().unit() + " slot=" + k.launch().slot()
                    + " reason=job master " + jobMaster + " restarted");
        }
    }

    /** Drops kept launches older than the expiry, and exits kept longer than their retention. */
    void expire() {
        long now = loop.now();
        for (PendingLaunches.Kept k : pending.expire(now)) {
            events.accept("expired unit=" + k.launch().unit() + " slot=" + k.launch().slot()
                    + " reason=no cap within " + config.pendingExpiry().toSeconds() + "s");
        }
        long retention = config.exitRetention().toMillis();
        for (Iterator<Map.Entry<Slot, Held>> it = held.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<Slot, Held> e = it.next();
            if (now - e.getValue().at() > retention) {
                it.remove();
                if (e.getValue().reported()) {
                    workers.launcher().forget(e.getKey().unit(), e.getKey().slot());
                }
            }
        }
    }

    /** The deltas for the next heartbeat, and forgets them; null if nothing changed and not {@code evenIfEmpty}. */
    Heartbeat drain(boolean evenIfEmpty) {
        if (started.isEmpty() && exited.isEmpty() && !evenIfEmpty) {
            return null;
        }
        Heartbeat h = new Heartbeat(started, exited, null, uncapped(), usage(), health());
        started.clear();
        exited.clear();
        return h;
    }

    /**
     * Workers that run beyond their unit's cap (none with no cap at all), once a full cap said what
     * the master grants here: the newest ones of each unit beyond the cap, those being stopped not
     * counted. Reported with every heartbeat until the master grants their slots or withdraws them
     * (docs/recovery.md, "Workers without a cap"); a worker is never stopped for this by the agent alone.
     */
    List<Heartbeat.Worker> uncapped() {
        if (!fullSeen) {
            return List.of();
        }
        Map<UnitId, List<Workers.Worker>> byUnit = new TreeMap<>();
        for (Workers.Worker w : workers.all()) {
            if (!workers.stopping(w)) {
                byUnit.computeIfAbsent(w.unit(), u -> new ArrayList<>()).add(w);
            }
        }
        List<Heartbeat.Worker> out = new ArrayList<>();
        byUnit.forEach((u, ws) -> {
            ws.sort(java.util.Comparator.comparingLong(Workers.Worker::order));
            for (Workers.Worker w : ws.subList(Math.min(caps.slots(u), ws.size()), ws.size())) {
                out.add(new Heartbeat.Worker(u, w.slot()));
            }
        });
        if (!out.equals(uncappedReported)) {
            out.stream().filter(w -> !uncappedReported.contains(w)).forEach(w -> events.accept("uncapped unit=" + w.unit()
                    + " slot=" + w.slot() + " (runs beyond its cap: reported, the master decides)"));
            uncappedReported = List.copyOf(out);
        }
        return out;
    }

    /**
     * A heartbeat that did not take effect (refused, or dropped because the master restarted): its
     * exits are reported again with the next one, so that no ended worker is lost — its slot stays
     * held, and its job master waits for it, until the master hears of the exit.
     */
    void unsent(Heartbeat h) {
        exited.addAll(0, h.exited());
    }

    /**
     * The master applied {@code h}: nobody needs to report its exits again. Their run records stay,
     * marked reported, as long as the ends are remembered: an agent that restarts meanwhile still
     * answers a launch of such a slot with its end, and does not report it twice. (The caps are not lowered here: the master's next cap says what it released, and a
     * master that dies before sending it rebuilds from a count one too high for a while — a slot the
     * job master may use or give back — never one too low.)
     */
    void acknowledged(Heartbeat h) {
        for (Heartbeat.Exit x : h.exited()) {
            if (held.computeIfPresent(new Slot(x.unit(), x.slot()), (k, v) -> v.asReported()) != null) {
                workers.launcher().reported(x.unit(), x.slot(), x.exitCode());
            } else {
                workers.launcher().forget(x.unit(), x.slot());
            }
        }
    }

    /** True if a heartbeat has something to report. */
    boolean changed() {
        return !started.isEmpty() || !exited.isEmpty();
    }

    /** Stops every worker (the agent exits); returns them. */
    List<Workers.Worker> stopAll() {
        List<Workers.Worker> all = workers.stopAll();
        all.forEach(w -> events.accept("stopping unit=" + w.unit() + " slot=" + w.slot() + " pid=" + w.pid()));
        return all;
    }
}

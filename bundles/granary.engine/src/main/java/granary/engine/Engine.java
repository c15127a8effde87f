package granary.engine;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.function.Consumer;

import granary.api.model.Clock;
import granary.api.model.InvalidRequestException;
import granary.api.event.Receipt;
import granary.api.model.UnitId;
import granary.api.event.ClockTick;
import granary.api.event.GrantAdopted;
import granary.api.event.JobsAdopted;
import granary.api.event.GrantReleased;
import granary.api.event.InputEvent;
import granary.api.event.JobCancelled;
import granary.api.event.JobMoved;
import granary.api.event.JobSubmitted;
import granary.api.event.JobsSubmitted;
import granary.api.event.NodeAdded;
import granary.api.event.NodeBlacklisted;
import granary.api.event.NodeCapacityChanged;
import granary.api.event.NodeRemoved;
import granary.api.event.OutputEvent;
import granary.api.event.PolicyActivated;
import granary.api.event.PolicyDeactivated;
import granary.api.event.PolicyFailed;
import granary.api.event.PolicyInstalled;
import granary.api.event.PolicyReconfigured;
import granary.api.event.PolicyUninstalled;
import granary.api.event.UnitCancelled;
import granary.api.event.UnitBlacklistChanged;
import granary.api.event.UnitDesireChanged;
import granary.api.event.UnitRequested;
import granary.api.spi.CycleAction;
import granary.api.spi.EngineView;
import granary.api.spi.Policy;
import granary.engine.cycle.ActivePlacer;
import granary.engine.cycle.Eligibility;
import granary.engine.cycle.GangScheduler;
import granary.engine.cycle.PassiveFiller;
import granary.engine.cycle.WaitLedger;
import granary.engine.handler.GrantAdoptions;
import granary.engine.handler.JobEvents;
import granary.engine.handler.NodeEvents;
import granary.engine.policy.PolicySet;
import granary.engine.state.Agenda;
import granary.engine.state.Allocator;
import granary.engine.state.Cluster;
import granary.engine.state.Dims;
import granary.engine.state.Invariants;
import granary.engine.state.NodeIndex;
import granary.engine.state.NodeState;
import granary.engine.state.UnitState;
import granary.engine.state.Workload;
import granary.engine.view.EngineContext;

/**
 * The scheduling engine: a deterministic state machine over {@link InputEvent}s. Plain Java, no
 * static state, single-threaded — the live runtime wraps it in an {@link EventLoop}, the simulator
 * and the tests call {@link #handle} directly with a manual clock.
 *
 * <p>Handling one event: validate it (a refused event changes nothing), apply it, then run one
 * scheduling cycle:
 * <pre>
 *   cycle: before-allocate actions → passive fill of freed nodes → active placement of new desire
 *          → gangs → after-allocate actions
 * </pre>
 */
public final class Engine {

    /** Origin of the policies that ship with the engine. */
    public static final String BUILT_IN = "granary.engine (built-in)";

    private final Clock clock;
    private final Dims dims = new Dims();
    private final Cluster cluster = new Cluster(dims);
    private final Workload workload;
    private final Agenda agenda = new Agenda();
    private final EngineContext context;
    private final PolicySet policies;
    private final Allocator allocator;
    private final Eligibility eligibility;
    private final ActivePlacer active;
    private final PassiveFiller passive;
    private final GangScheduler gangs;
    private final WaitLedger ledger;
    private final Map<Class<?>, Handler> handlers = new HashMap<>();
    private final List<Consumer<? super OutputEvent>> listeners = new CopyOnWriteArrayList<>();
    private final List<Consumer<? super InputEvent>> inputWatchers = new CopyOnWriteArrayList<>();
    private List<OutputEvent> outputs = new ArrayList<>();
    private List<String> notes = new ArrayList<>();
    private EngineOptions options;

    private interface Handler {
        void handle(InputEvent e);
    }

    /** An engine that re-orders its queues on its own thread, at once: the tests and the simulator. */
    public Engine(Clock clock, EngineOptions options) {
        this(clock, options, Runnable::run);
    }

    /**
     * @param reorders where a new unit order's queues are built while the old order stays in force
     *                 (docs/scheduling.md, "Swapping the order off the engine thread"). A direct
     *                 executor ({@code Runnable::run}) swaps at once, deterministically; the live
     *                 runtime passes a background thread and sends an event when a build finishes,
     *                 since the new order takes effect at the next event.
     */
    public Engine(Clock clock, EngineOptions options, Executor reorders) {
        this(clock, options, reorders, 0);
    }

    /**
     * @param deferAbove swaps with at most this many waiting units re-sort at once, on the engine
     *                   thread, whatever {@code reorders} is: a small sort costs less than waiting for
     *                   the next event
     */
    public Engine(Clock clock, EngineOptions options, Executor reorders, int deferAbove) {
        this.clock = clock;
        this.workload = new Workload(dims, reorders, deferAbove);
        this.options = options;
        this.allocator = new Allocator(cluster, workload, agenda, clock::millis, this::emit);
        this.context = new EngineContext(clock::millis, cluster, workload, allocator);
        this.policies = new PolicySet(context);
        this.ledger = new WaitLedger(options.whyLedger(), clock::millis);
        this.eligibility = new Eligibility(policies, context, dims, ledger);
        this.active = new ActivePlacer(cluster, eligibility, allocator, ledger, dims);
        this.passive = new PassiveFiller(workload, policies, eligibility, allocator, context);
        this.gangs = new GangScheduler(cluster, workload, policies, eligibility, allocator, context, ledger);
        context.bind(policies, eligibility, new Requests());
        registerHandlers();
        policies.installBuiltIns(BUILT_IN);
        policies.configure(options.policies(), options.fallback());
    }

    private void registerHandlers() {
        NodeEvents nodes = new NodeEvents(cluster, workload, allocator, agenda, dims);
        JobEvents jobs = new JobEvents(cluster, workload, allocator, agenda, policies, context, this::reconsider);
        on(NodeAdded.class, e -> nodes.added((NodeAdded) e));
        on(NodeRemoved.class, e -> nodes.removed((NodeRemoved) e));
        on(NodeCapacityChanged.class, e -> nodes.capacityChanged((NodeCapacityChanged) e));
        on(NodeBlacklisted.class, e -> nodes.blacklisted((NodeBlacklisted) e));
        on(JobSubmitted.class, e -> jobs.submitted((JobSubmitted) e));
        on(JobsSubmitted.class, e -> jobs.submittedAll((JobsSubmitted) e));
        on(UnitRequested.class, e -> jobs.unitRequested((UnitRequested) e));
        on(UnitDesireChanged.class, e -> jobs.desireChanged((UnitDesireChanged) e));
        on(UnitBlacklistChanged.class, e -> jobs.blacklistChanged((UnitBlacklistChanged) e));
        on(UnitCancelled.class, e -> jobs.unitCancelled((UnitCancelled) e));
        on(JobCancelled.class, e -> jobs.jobCancelled((JobCancelled) e));
        on(JobMoved.class, e -> jobs.moved((JobMoved) e));
        on(GrantReleased.class, e -> jobs.released((GrantReleased) e));
        GrantAdoptions adoptions = new GrantAdoptions(cluster, workload, allocator, clock::millis);
        on(GrantAdopted.class, e -> adoptions.adopted((GrantAdopted) e));
        on(JobsAdopted.class, e -> {
            JobsAdopted a = (JobsAdopted) e;
            jobs.submittedAll(new JobsSubmitted(a.jobs()));
            for (GrantAdopted g : a.grants()) {
                try {
                    adoptions.adopted(g);
                } catch (InvalidRequestException skipped) {
                    // no room left, or no such node: its slots wait like any others (JobsAdopted)
                }
            }
        });
        on(PolicyActivated.class, e -> policiesChanged(policies.activate(((PolicyActivated) e).name()), true));
        on(PolicyDeactivated.class, e -> policiesChanged(policies.deactivate(((PolicyDeactivated) e).name()), true));
        on(PolicyInstalled.class, e -> policiesChanged(
                policies.install(((PolicyInstalled) e).policy(), ((PolicyInstalled) e).origin()), true));
        on(PolicyUninstalled.class, e -> uninstalled(((PolicyUninstalled) e).policy()));
        on(PolicyReconfigured.class, e -> {
            PolicyReconfigured r = (PolicyReconfigured) e;
            notes.addAll(policies.reconfigure(r.policy(), r.settings()));
            reconsider();
        });
        on(PolicyFailed.class, e -> {
            PolicyFailed f = (PolicyFailed) e;
            policies.failed(f.policy(), f.problem());
            notes.add("policy " + f.policy() + ": " + f.problem());
        });
        on(ClockTick.class, e -> { });
    }

    /** True while input watchers are told of an event (see {@link #configure}). */
    private boolean watching;

    /** Whether the last cycle was held (fail closed); the first free cycle then looks at everything. */
    private boolean held;

    /** True inside {@link #batch}: events are applied, their one cycle runs when the batch ends. */
    private boolean batching;
    /** An event was applied in this batch: its cycle is due at the batch's end. */
    private boolean cycleDue;

    private void on(Class<? extends InputEvent> type, Handler h) {
        handlers.put(type, h);
    }

    /**
     * Validates and applies one event, then runs a scheduling cycle.
     *
     * @return the cycle's grants and revocations, and notes (policy changes)
     * @throws InvalidRequestException if the event was refused; nothing changed then
     */
    public Receipt handle(InputEvent event) {
        outputs = new ArrayList<>();
        notes = new ArrayList<>();
        if (event == null) {
            throw new InvalidRequestException("event", "event", "is missing");
        }
        swapInBuiltOrder();
        handlers.get(event.getClass()).handle(event);
        setAsideFaultyOrder();
        if (batching) {
            cycleDue = true;
        } else {
            cycle();
            setAsideFaultyOrder();
        }
        checkInvariants(options);
        tellWatchers(event);
        return new Receipt(outputs, notes);
    }

    /**
     * Runs {@code work}, whose {@link #handle}d events are validated and applied at once, and then
     * one scheduling cycle for all of them (none if none was accepted): the grants of many small
     * inputs decided together. A refused event throws out of {@code handle} as ever, and the batch
     * goes on if {@code work} catches it. Inside a batch, {@link #handle}'s receipt has no outputs;
     * they are in this one's. Nested, the outer batch's end runs the cycle.
     *
     * @return the batch cycle's grants and revocations, and notes
     */
    public Receipt batch(Runnable work) {
        if (batching) {
            work.run();
            return new Receipt(List.of(), List.of());
        }
        batching = true;
        try {
            work.run();
        } finally {
            batching = false;
        }
        outputs = new ArrayList<>();
        notes = new ArrayList<>();
        if (cycleDue) {
            cycleDue = false;
            swapInBuiltOrder();
            cycle();
            setAsideFaultyOrder();
            checkInvariants(options);
        }
        return new Receipt(outputs, notes);
    }

    /**
     * Adds a watcher of the input events this engine accepted: called on the engine thread after the
     * event's cycle, in order, never for a refused event. A shadow canary is fed this way
     * (docs/canary.md, "Feeding the shadow"). A watcher that throws is noted and skipped, like an
     * output listener: the event is handled already.
     */
    public void watchInputs(Consumer<? super InputEvent> watcher) {
        inputWatchers.add(watcher);
    }

    public void unwatchInputs(Consumer<? super InputEvent> watcher) {
        inputWatchers.remove(watcher);
    }

    private void tellWatchers(InputEvent event) {
        watching = true;
        try {
            for (Consumer<? super InputEvent> w : inputWatchers) {
                try {
                    w.accept(event);
                } catch (RuntimeException fault) {
                    notes.add("input watcher " + w + " failed on " + event + ": " + fault);
                }
            }
        } finally {
            watching = false;
        }
    }

    /** The settings in force: the selection and fallback order last configured. */
    public EngineOptions options() {
        return options;
    }

    /**
     * Applies new settings: the policy selection and fallback order are replaced. An input watcher
     * may call it (a canary's automatic rollback, docs/canary.md): its decisions and notes then also
     * join the receipt of the event being handled.
     */
    public Receipt configure(EngineOptions newOptions) {
        if (!watching) {
            outputs = new ArrayList<>();
            notes = new ArrayList<>();
        }
        int o = outputs.size();
        int n = notes.size();
        this.options = newOptions;
        ledger.on(newOptions.whyLedger());
        policiesChanged(policies.configure(newOptions.policies(), newOptions.fallback()), true);
        cycle();
        return new Receipt(List.copyOf(outputs.subList(o, outputs.size())), List.copyOf(notes.subList(n, notes.size())));
    }

    /** Live read access to the state (also what policies see). Use it on the engine's thread only. */
    public EngineView view() {
        return context;
    }

    /** Adds a listener for grants and revocations; called on the engine thread, in decision order. */
    public void subscribe(Consumer<? super OutputEvent> listener) {
        listeners.add(listener);
    }

    public void unsubscribe(Consumer<? super OutputEvent> listener) {
        listeners.remove(listener);
    }

    /** Checks every invariant after an input or a batch's cycle, in strict mode only. */
    private void checkInvariants(EngineOptions o) {
        if (o.checkInvariants()) {
            Invariants.check(cluster, workload);
        }
    }

    /** Checks every invariant now. @throws IllegalStateException naming the first violation */
    public void checkInvariants() {
        Invariants.check(cluster, workload);
    }

    /**
     * Records a decision and tells every listener. A listener that throws is noted and skipped: the
     * decision is made already, and the other listeners and the cycle must not depend on it.
     */
    private void emit(OutputEvent e) {
        outputs.add(e);
        for (Consumer<? super OutputEvent> l : listeners) {
            try {
                l.accept(e);
            } catch (RuntimeException fault) {
                notes.add("output listener " + l + " failed on " + e + ": " + fault);
            }
        }
    }

    /**
     * After a policy change: re-sort the queues under the unit order now in effect, give gangs another
     * try, and look at every node again (a filter that went away may have freed nodes for the queues).
     */
    private void policiesChanged(List<String> changes, boolean mayDefer) {
        notes.addAll(changes);
        if (changes.isEmpty()) {
            return;
        }
        workload.unitOrder(policies.unitOrder(), mayDefer);
        reconsider();
    }

    /**
     * Uninstalls a policy. If the queues are still ordered by it (a new order is being built off the
     * thread), the order in effect replaces it now, on this thread: the engine must not call a policy
     * after it is gone (docs/scheduling.md, "Swapping the order off the engine thread").
     */
    private void uninstalled(Policy p) {
        policiesChanged(policies.uninstall(p), false);
        if (workload.unitOrder() == p) {
            workload.unitOrder(policies.unitOrder(), false);
            reconsider();
        }
    }

    /**
     * Before an event: puts a unit order built off the engine thread in force once it is built (the
     * swap's only pause on this thread), then looks at every node again under it (docs/scheduling.md,
     * "Swapping the order off the engine thread").
     */
    private void swapInBuiltOrder() {
        if (workload.swapReady() && workload.swapIn()) {
            notes.add("unit order " + workload.unitOrder().name() + " in force (built off the engine thread)");
            reconsider();
        }
    }

    /** Looks at every node and every waiting gang again in the next allocation. */
    private void reconsider() {
        agenda.sweep();
    }

    private void cycle() {
        if (!policies.held().isEmpty()) {
            // fail closed: a selected policy's configuration was refused and no instance of it is
            // there; the engine keeps every event's state but neither grants nor preempts
            // (docs/operations.md, "Fail closed")
            held = true;
            return;
        }
        if (held) {
            held = false;
            reconsider();   // released: every node and every waiting unit gets its chance
        }
        ledger.nextCycle();
        CycleAction[] actions = policies.cycleActions();
        try {
            for (CycleAction a : actions) {
                a.beforeAllocate(context);
            }
            allocate();
            for (CycleAction a : actions) {
                a.afterAllocate(context);
            }
            if (agenda.hasFreed()) {
                allocate();   // actions freed nodes (preemption, released locks): fill them now
            }
        } catch (RuntimeException e) {
            if (options.checkInvariants()) {
                throw e;   // strict mode (tests): a fault is a failure
            }
            // A faulty policy must not stop the scheduler: every grant made so far is whole and kept.
            notes.add("cycle aborted: " + e);
            Policy culprit = policies.culprit(e);
            if (culprit != null) {
                setAside(culprit, e);
            }
        }
    }

    private void setAsideFaultyOrder() {
        Policy culprit = workload.faultyOrder();   // the order in force, or one built off the thread
        RuntimeException fault = workload.takeFault();
        if (fault != null) {
            if (options.checkInvariants()) {
                throw fault;
            }
            setAside(culprit != null ? culprit : policies.unitOrder(), fault);
        }
    }

    /** Uninstalls a policy that threw; its bundle must be restarted (or it reinstalled) to bring it back. */
    private void setAside(Policy p, RuntimeException fault) {
        notes.add("policy " + p.name() + " failed and was set aside: " + fault);
        uninstalled(p);
    }

    private void allocate() {
        if (!workload.ordered()) {
            return;   // no unit order in effect: the queues hold their units until one is installed
        }
        if (agenda.takeSweep()) {
            sweep();
        }
        for (NodeState n : agenda.takeFreed()) {
            if (cluster.node(n.name()) == n) {
                passive.fill(n);
            }
        }
        for (UnitState u : agenda.takeFresh()) {
            if (u.live() && u.remaining() > 0 && !u.allOrNothing()) {
                active.place(u);
            }
        }
        if (agenda.takeGangs()) {
            gangs.run();
        } else {
            gangs.runFresh(agenda.takeFreshGangs());
        }
    }

    /**
     * Passive fill of every node that could take the smallest waiting slot, found through the node
     * index (O(k log N) for k such nodes, not a walk over the cluster).
     */
    private void sweep() {
        long[] min = workload.minWaitingShape();
        NodeIndex index = cluster.index();
        for (int pos = 0; min != null && pos < index.limit(); pos++) {
            pos = index.find(pos, min);
            if (pos < 0) {
                return;
            }
            passive.fill(index.at(pos));
            min = workload.minWaitingShape();
        }
    }

    /** Schedules one unit now (a cycle action's request); returns slots granted. */
    private int scheduleNow(UnitId id) {
        UnitState u = workload.unit(id);
        if (u == null || !u.live() || u.remaining() == 0 || !workload.ordered()) {
            return 0;
        }
        return u.allOrNothing() ? gangs.schedule(u) : active.place(u);
    }

    /** What cycle actions ask of the engine through its view; a nested class keeps it off the public API. */
    private final class Requests implements EngineContext.Requests {
        @Override
        public int schedule(UnitId unit) {
            return scheduleNow(unit);
        }

        @Override
        public void reconsider() {
            Engine.this.reconsider();
        }
    }

    // ---- for the engine's own tests (same package) ----

    Cluster cluster() {
        return cluster;
    }

    Workload workload() {
        return workload;
    }

    Eligibility eligibility() {
        return eligibility;
    }
}

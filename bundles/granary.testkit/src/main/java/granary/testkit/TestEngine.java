package granary.testkit;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;

import granary.api.event.ClockTick;
import granary.api.event.GrantReleased;
import granary.api.event.Granted;
import granary.api.event.InputEvent;
import granary.api.event.JobSubmitted;
import granary.api.event.NodeAdded;
import granary.api.event.OutputEvent;
import granary.api.event.PolicyActivated;
import granary.api.event.PolicyDeactivated;
import granary.api.event.PolicyInstalled;
import granary.api.event.PolicyUninstalled;
import granary.api.event.Receipt;
import granary.api.event.Revoked;
import granary.api.event.UnitRequested;
import granary.api.model.JobSpec;
import granary.api.model.ManualClock;
import granary.api.model.NodeSpec;
import granary.api.model.UnitId;
import granary.api.model.UnitSpec;
import granary.api.spi.EngineStatus;
import granary.api.spi.EngineView;
import granary.api.spi.GroupView;
import granary.api.spi.JobView;
import granary.api.spi.NodeView;
import granary.api.spi.Policy;
import granary.api.spi.UnitView;
import granary.engine.Engine;
import granary.engine.EngineOptions;

/**
 * A real {@link Engine} for tests: strict mode (every invariant checked after every event), a manual
 * clock, the given policies installed, driven only through its input events. It records every output
 * event and answers the questions tests ask: grants per unit and job, waiting counts, placements.
 *
 * <p>Policy tests usually make one in their setup, e.g.
 * {@code new TestEngine(Clocks.manual(), List.of("fifo", "gang"), List.of("fifo"), new FifoPolicy(), new GangPolicy())}.
 * Subclasses may add a policy's own queries (its report, its model).
 */
public class TestEngine {

    public final ManualClock clock;
    public final Engine engine;
    private final List<OutputEvent> log = new ArrayList<>();
    private final List<Consumer<Receipt>> afterEvent = new ArrayList<>();

    /**
     * @param selection the policies selected (PID {@code granary.engine}, {@code policies})
     * @param fallback  the fallback order
     * @param policies  installed now, in this order
     */
    public TestEngine(ManualClock clock, List<String> selection, List<String> fallback, Policy... policies) {
        this.clock = clock;
        this.engine = new Engine(clock, new EngineOptions(selection, fallback, true));
        engine.subscribe(log::add);
        for (Policy p : policies) {
            install(p);
        }
    }

    /** The given policies, all selected, the first one the fallback, on {@link Clocks#manual()}. */
    public static TestEngine of(Policy first, Policy... more) {
        List<String> names = new ArrayList<>();
        List<Policy> all = new ArrayList<>();
        all.add(first);
        all.addAll(List.of(more));
        all.forEach(p -> names.add(p.name()));
        return new TestEngine(Clocks.manual(), names, List.of(first.name()), all.toArray(new Policy[0]));
    }

    // ---- input events ----

    /** Hands one event to the engine; then runs the {@link #afterEvent} checks. */
    public Receipt handle(InputEvent e) {
        Receipt r = engine.handle(e);
        afterEvent.forEach(c -> c.accept(r));
        return r;
    }

    /** Runs {@code check} after every event from now on. */
    public TestEngine afterEvent(Consumer<Receipt> check) {
        afterEvent.add(check);
        return this;
    }

    public Receipt install(Policy p) {
        return handle(new PolicyInstalled(p, "test"));
    }

    /** What the engine sees when a policy's bundle stops. */
    public Receipt uninstall(Policy p) {
        return handle(new PolicyUninstalled(p));
    }

    /** The operator selects a policy. */
    public Receipt activate(String name) {
        return handle(new PolicyActivated(name));
    }

    /** The operator drops a policy from the selection. */
    public Receipt deactivate(String name) {
        return handle(new PolicyDeactivated(name));
    }

    public TestEngine node(NodeSpec n) {
        handle(new NodeAdded(n));
        return this;
    }

    public TestEngine node(String name, String room, long cpu, long mem) {
        return node(Clusters.node(name, room, cpu, mem));
    }

    public TestEngine nodes(List<NodeSpec> ns) {
        ns.forEach(this::node);
        return this;
    }

    /** {@code count} nodes {@code prefix0}, {@code prefix1}, ... in {@code room}. */
    public TestEngine nodes(String prefix, String room, int count, long cpu, long mem) {
        return nodes(Clusters.nodes(prefix, room, count, cpu, mem));
    }

    public Receipt submit(JobSpec job) {
        return handle(new JobSubmitted(job));
    }

    /** A job of the default group. */
    public Receipt submit(String job, UnitSpec... units) {
        return submit(JobSpec.of(job, null, units));
    }

    public Receipt submit(String job, String group, UnitSpec... units) {
        return submit(JobSpec.of(job, group, units));
    }

    /** Adds a unit to a running job. */
    public Receipt request(String job, UnitSpec unit) {
        return handle(new UnitRequested(job, unit));
    }

    /** A unit gives back {@code slots} slots on {@code node} (unit as "job/unit"). */
    public Receipt release(String unit, String node, int slots) {
        return handle(new GrantReleased(UnitId.parse(unit), node, slots));
    }

    /** A unit gives back {@code slots} of its slots, node by node in name order. */
    public void releaseSlots(String unit, int slots) {
        UnitView u = view().unit(UnitId.parse(unit));
        for (Map.Entry<String, Integer> e : new TreeMap<>(u.allocations()).entrySet()) {
            if (slots == 0) {
                break;
            }
            int k = Math.min(slots, e.getValue());
            handle(new GrantReleased(u.id(), e.getKey(), k));
            slots -= k;
        }
    }

    /** A unit gives back every slot it holds, node by node in name order: its work is done. */
    public void finish(String unit) {
        UnitView u = view().unit(UnitId.parse(unit));
        for (Map.Entry<String, Integer> e : new TreeMap<>(u.allocations()).entrySet()) {
            handle(new GrantReleased(u.id(), e.getKey(), e.getValue()));
        }
    }

    /** One clock tick (a scheduling round in the live runtime), without moving the clock. */
    public Receipt tick() {
        return handle(new ClockTick());
    }

    /** Moves the clock by {@code millis} and ticks. */
    public Receipt advance(long millis) {
        clock.advance(millis);
        return tick();
    }

    // ---- queries ----

    public EngineView view() {
        return engine.view();
    }

    public EngineStatus status() {
        return engine.view().status();
    }

    /** The unit "job/unit", or null. */
    public UnitView unit(String id) {
        return unitView(id);
    }

    private UnitView unitView(String id) {
        return engine.view().unit(UnitId.parse(id));
    }

    /** Slots the unit "job/unit" holds now (0 if it is gone). */
    public int granted(String unit) {
        UnitView u = unitView(unit);
        return u == null ? 0 : u.granted();
    }

    /** Slots a job holds now, over all its units. */
    public int grantedToJob(String job) {
        JobView j = engine.view().job(job);
        return j == null ? 0 : j.units().stream().mapToInt(UnitView::granted).sum();
    }

    /** Slots per node of a unit, sorted by node name. */
    public Map<String, Integer> placement(String unit) {
        UnitView u = unitView(unit);
        return u == null ? Map.of() : new TreeMap<>(u.allocations());
    }

    /** Free amount of {@code resource} on a node. */
    public long free(String node, String resource) {
        return engine.view().cluster().node(node).free().get(resource);
    }

    /** The largest free cpu of any single node. */
    public long largestFreeCpu() {
        long max = 0;
        for (NodeView n : engine.view().cluster().nodes()) {
            max = Math.max(max, n.free().cpu());
        }
        return max;
    }

    public int waitingUnits() {
        return status().waitingUnits();
    }

    public long waitingSlots() {
        return status().waitingSlots();
    }

    public long grantedSlots() {
        return status().grantedSlots();
    }

    /** The policy in effect at an extension point (e.g. {@code unit-order}), or {@code waiting}. */
    public String inEffect(String point) {
        return status().policies().get(point);
    }

    /** Slots a group holds (0 for a group the engine does not know). */
    public long usedSlots(String group) {
        GroupView g = engine.view().group(group);
        return g == null ? 0 : g.usedSlots();
    }

    /** Slots held per group, sorted by group. */
    public Map<String, Long> usedSlots() {
        Map<String, Long> m = new TreeMap<>();
        for (GroupView g : engine.view().groups()) {
            m.put(g.name(), g.usedSlots());
        }
        return m;
    }

    /** Every output event so far, in decision order. */
    public List<OutputEvent> log() {
        return List.copyOf(log);
    }

    /** Every grant so far, in decision order. */
    public List<Granted> grants() {
        return log.stream().filter(Granted.class::isInstance).map(Granted.class::cast).toList();
    }

    /** Every revocation so far, in decision order. */
    public List<Revoked> revocations() {
        return log.stream().filter(Revoked.class::isInstance).map(Revoked.class::cast).toList();
    }

    /** Net slots per "unit@node" from the output log alone: grants minus revocations (releases are inputs, not in it). */
    public Map<String, Integer> netFromLog() {
        Map<String, Integer> m = new TreeMap<>();
        for (OutputEvent e : log) {
            if (e instanceof Granted g) {
                m.merge(g.unit() + "@" + g.node(), g.slots(), Integer::sum);
            } else if (e instanceof Revoked r) {
                m.merge(r.unit() + "@" + r.node(), -r.slots(), Integer::sum);
            }
        }
        m.values().removeIf(v -> v == 0);
        return m;
    }

    /** Every unit with its granted, waiting and desired slots: what must survive a policy swap. */
    public Map<String, Work> work() {
        Map<String, Work> m = new TreeMap<>();
        for (JobView j : engine.view().jobs()) {
            for (UnitView u : j.units()) {
                m.put(u.id().toString(), new Work(u.granted(), u.remaining(), u.desired(), new TreeMap<>(u.allocations())));
            }
        }
        return m;
    }

    /** A unit's slots: held, still wanted, desired, and where the held ones are. */
    public record Work(int granted, int remaining, int desired, Map<String, Integer> placement) {
    }

    /** Jobs, units, nodes and groups as text: equal fingerprints mean nothing changed. */
    public String fingerprint() {
        StringBuilder sb = new StringBuilder();
        EngineView v = engine.view();
        for (NodeView n : v.cluster().nodes()) {
            sb.append(n.name()).append(' ').append(n.capacity()).append(' ').append(n.blacklisted()).append('\n');
        }
        for (JobView j : v.jobs()) {
            sb.append(j.id()).append('@').append(j.group());
            for (UnitView u : j.units()) {
                sb.append(' ').append(u.id()).append(' ').append(u.granted()).append('/').append(u.desired())
                        .append(new TreeMap<>(u.allocations()));
            }
            sb.append('\n');
        }
        for (GroupView g : v.groups()) {
            sb.append(g.name()).append(' ').append(g.used()).append(' ').append(g.waitingSlots()).append('\n');
        }
        return sb.append(v.status().policies()).toString();
    }

    public void checkInvariants() {
        engine.checkInvariants();
    }
}

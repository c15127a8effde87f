package granary.engine;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import granary.api.model.JobSpec;
import granary.api.model.ManualClock;
import granary.api.model.NodeSpec;
import granary.api.event.Receipt;
import granary.api.model.Resources;
import granary.api.model.UnitId;
import granary.api.model.UnitSpec;
import granary.api.event.GrantReleased;
import granary.api.event.Granted;
import granary.api.event.InputEvent;
import granary.api.event.JobSubmitted;
import granary.api.event.NodeAdded;
import granary.api.event.OutputEvent;
import granary.api.event.PolicyInstalled;
import granary.api.event.Revoked;
import granary.api.spi.Policy;
import granary.api.spi.UnitOrder;
import granary.api.spi.UnitView;

/**
 * A test bench: an engine in strict mode on a manual clock, with a plain priority-then-arrival unit
 * order installed (policies live in their own bundles; the engine's tests do not depend on them).
 */
final class Harness {

    /** Priority first, then arrival: the engine's tests' stand-in for FIFO. */
    static final class ArrivalOrder implements UnitOrder {
        private final String name;

        ArrivalOrder(String name) {
            this.name = name;
        }

        @Override
        public String name() {
            return name;
        }

        @Override
        public int compare(UnitView a, UnitView b) {
            return a.priority() != b.priority() ? Integer.compare(b.priority(), a.priority())
                    : Long.compare(a.submitTime(), b.submitTime());
        }
    }

    final ManualClock clock = new ManualClock(1_000_000);
    final Engine engine;
    final List<OutputEvent> log = new ArrayList<>();

    Harness() {
        this(List.of("fifo"));
    }

    Harness(List<String> selection) {
        this(selection, Runnable::run);
    }

    /** With the executor that builds new unit orders (docs/scheduling.md, "Swapping the order off the engine thread"). */
    Harness(List<String> selection, java.util.concurrent.Executor reorders) {
        this(new EngineOptions(selection, List.of("fifo"), true), reorders);
    }

    Harness(EngineOptions options, java.util.concurrent.Executor reorders) {
        engine = new Engine(clock, options, reorders);
        engine.subscribe(log::add);
    }

    static Harness withFifo() {
        Harness h = new Harness();
        h.install(new ArrivalOrder("fifo"));
        return h;
    }

    Receipt handle(InputEvent e) {
        return engine.handle(e);
    }

    Receipt install(Policy p) {
        return handle(new PolicyInstalled(p, "test"));
    }

    Harness node(String name, String room, long cpu, long mem) {
        handle(new NodeAdded(new NodeSpec(name, room, Resources.of(cpu, mem))));
        return this;
    }

    Harness nodes(String prefix, String room, int count, long cpu, long mem) {
        for (int i = 0; i < count; i++) {
            node(prefix + i, room, cpu, mem);
        }
        return this;
    }

    Receipt submit(String job, UnitSpec... units) {
        return handle(new JobSubmitted(JobSpec.of(job, null, units)));
    }

    Receipt submit(String job, String group, UnitSpec... units) {
        return handle(new JobSubmitted(JobSpec.of(job, group, units)));
    }

    Receipt release(String unit, String node, int slots) {
        return handle(new GrantReleased(UnitId.parse(unit), node, slots));
    }

    static UnitSpec unit(String name, long cpu, long mem, int desired) {
        return UnitSpec.builder(name).slot(cpu, mem).desired(desired).build();
    }

    /** Slots per node of a unit, sorted by node name. */
    Map<String, Integer> placement(String unit) {
        UnitView u = engine.view().unit(UnitId.parse(unit));
        return u == null ? Map.of() : new TreeMap<>(u.allocations());
    }

    int granted(String unit) {
        UnitView u = engine.view().unit(UnitId.parse(unit));
        return u == null ? 0 : u.granted();
    }

    /**
     * A full description of the engine state: per node its grants, per unit granted / desired /
     * waiting, per group its totals, and the counters. Equal fingerprints mean nothing changed.
     */
    String fingerprint() {
        StringBuilder sb = new StringBuilder();
        granary.api.spi.EngineView v = engine.view();
        for (granary.api.spi.NodeView n : v.cluster().nodes()) {
            sb.append(n.name()).append(' ').append(n.capacity()).append(' ').append(n.blacklisted())
                    .append(' ').append(new TreeMap<>(n.allocations().entrySet().stream()
                            .collect(java.util.stream.Collectors.toMap(e -> e.getKey().toString(), Map.Entry::getValue))))
                    .append('\n');
        }
        for (granary.api.spi.JobView j : v.jobs()) {
            for (UnitView u : j.units()) {
                sb.append(u.id()).append(' ').append(u.granted()).append('/').append(u.desired()).append(' ')
                        .append(u.live()).append(' ').append(new TreeMap<>(u.allocations())).append('\n');
            }
        }
        for (granary.api.spi.GroupView g : v.groups()) {
            sb.append(g.name()).append(' ').append(g.used()).append(' ').append(g.waitingSlots()).append('\n');
        }
        granary.api.spi.EngineStatus s = v.status();
        sb.append(s.nodes()).append(' ').append(s.waitingUnits()).append(' ').append(s.waitingSlots()).append(' ')
                .append(s.grantedSlots()).append(' ').append(s.decisions()).append(' ').append(s.policies());
        return sb.toString();
    }

    /** Net slots per unit and node from the output log alone (what job masters and agents saw). */
    Map<String, Integer> netFromLog() {
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
}

package granary.policy.gang;

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
import granary.api.event.InputEvent;
import granary.api.event.JobSubmitted;
import granary.api.event.NodeAdded;
import granary.api.event.OutputEvent;
import granary.api.event.PolicyInstalled;
import granary.api.spi.NodeView;
import granary.api.spi.Policy;
import granary.api.spi.UnitView;
import granary.engine.Engine;
import granary.engine.EngineOptions;
import granary.policy.fifo.FifoPolicy;

/** A real engine in strict mode on a manual clock with FIFO and a gang placement. */
final class Bench {

    final ManualClock clock = new ManualClock(0);
    final Engine engine;
    final List<OutputEvent> log = new ArrayList<>();

    Bench(Policy gang) {
        engine = new Engine(clock, new EngineOptions(List.of("fifo", "gang"), List.of("fifo"), true));
        engine.subscribe(log::add);
        handle(new PolicyInstalled(new FifoPolicy(), "test"));
        handle(new PolicyInstalled(gang, "test"));
    }

    Bench() {
        this(new GangPolicy());
    }

    Receipt handle(InputEvent e) {
        return engine.handle(e);
    }

    Bench node(String name, String room, long cpu, long mem) {
        handle(new NodeAdded(new NodeSpec(name, room, Resources.of(cpu, mem))));
        return this;
    }

    Receipt submit(JobSpec job) {
        return handle(new JobSubmitted(job));
    }

    Receipt submit(String id, UnitSpec... units) {
        return submit(JobSpec.of(id, null, units));
    }

    /** A job whose units form one gang. */
    static JobSpec gangJob(String id, UnitSpec... units) {
        return new JobSpec(id, null, null, 0, true, List.of(units));
    }

    static UnitSpec.Builder unit(String name, long cpu, long mem, int desired) {
        return UnitSpec.builder(name).slot(cpu, mem).desired(desired);
    }

    static UnitSpec aon(String name, long cpu, long mem, int desired) {
        return unit(name, cpu, mem, desired).allOrNothing(true).build();
    }

    Receipt release(String unit, String node, int slots) {
        return handle(new GrantReleased(UnitId.parse(unit), node, slots));
    }

    UnitView unit(String id) {
        return engine.view().unit(UnitId.parse(id));
    }

    int granted(String unit) {
        UnitView u = unit(unit);
        return u == null ? 0 : u.granted();
    }

    Map<String, Integer> placement(String unit) {
        UnitView u = unit(unit);
        return u == null ? Map.of() : new TreeMap<>(u.allocations());
    }

    long free(String node, String resource) {
        return engine.view().cluster().node(node).free().get(resource);
    }

    /** The largest free cpu of any single node: the biggest block a next gang slot can use. */
    long largestFreeCpu() {
        long max = 0;
        for (NodeView n : engine.view().cluster().nodes()) {
            max = Math.max(max, n.free().cpu());
        }
        return max;
    }
}

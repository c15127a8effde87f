package granary.policy.queues;

import java.io.StringReader;
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
import granary.api.event.PolicyInstalled;
import granary.policy.queues.api.QueueTree;
import granary.api.spi.EngineView;
import granary.api.spi.GroupView;
import granary.api.spi.JobView;
import granary.api.spi.Reason;
import granary.api.spi.UnitView;
import granary.policy.queues.api.QueueTreeCodec;
import granary.engine.Engine;
import granary.engine.EngineOptions;
import granary.policy.fifo.FifoPolicy;

/**
 * A real engine in strict mode (every invariant checked after every event) on a manual clock, with
 * FIFO and the queues policy installed and selected.
 */
final class Bench {

    final ManualClock clock = new ManualClock(1_000_000);
    final Engine engine;
    final QueuesPolicy queues;

    Bench(QueueTree tree) {
        this(new QueuesPolicy(tree));
    }

    Bench(QueuesPolicy queues) {
        this.queues = queues;
        engine = new Engine(clock, new EngineOptions(List.of(FifoPolicy.NAME, QueuesPolicy.NAME),
                List.of(FifoPolicy.NAME), true));
        handle(new PolicyInstalled(new FifoPolicy(), "test"));
        handle(new PolicyInstalled(queues, "test"));
    }

    /** A tree in the queue file format. */
    static QueueTree tree(String json) {
        return QueueTreeCodec.read(new StringReader(json), "queues.json");
    }

    Receipt handle(InputEvent e) {
        return engine.handle(e);
    }

    EngineView view() {
        return engine.view();
    }

    /** {@code count} nodes n0, n1, … in room r1. */
    Bench nodes(int count, long cpu, long mem) {
        for (int i = 0; i < count; i++) {
            handle(new NodeAdded(new NodeSpec("n" + i, "r1", Resources.of(cpu, mem))));
        }
        return this;
    }

    Receipt submit(String job, String group, UnitSpec... units) {
        return submit(job, group, null, units);
    }

    Receipt submit(String job, String group, String user, UnitSpec... units) {
        return handle(new JobSubmitted(new JobSpec(job, group, user, 0, false, List.of(units))));
    }

    Receipt submitGang(String job, String group, UnitSpec... units) {
        return handle(new JobSubmitted(new JobSpec(job, group, null, 0, true, List.of(units))));
    }

    static UnitSpec unit(String name, long cpu, long mem, int desired) {
        return UnitSpec.builder(name).slot(cpu, mem).desired(desired).build();
    }

    /** One unit "u" of {@code desired} slots of 100 cpu, 100 MiB. */
    static UnitSpec slots(int desired) {
        return unit("u", 100, 100, desired);
    }

    UnitView unit(String id) {
        return view().unit(UnitId.parse(id));
    }

    int granted(String unit) {
        UnitView u = unit(unit);
        return u == null ? 0 : u.granted();
    }

    Reason reason(String unit) {
        return unit(unit).waitReason();
    }

    String group(String job) {
        return view().job(job).group();
    }

    GroupView groupView(String name) {
        return view().group(name);
    }

    /** Gives back every slot the unit holds: its work is done (the job ends if nothing else wants slots). */
    void finish(String unit) {
        for (Map.Entry<String, Integer> e : new TreeMap<>(unit(unit).allocations()).entrySet()) {
            handle(new GrantReleased(UnitId.parse(unit), e.getKey(), e.getValue()));
        }
    }

    /** Releases one slot of the unit on a node. */
    void release(String unit, String node) {
        handle(new GrantReleased(UnitId.parse(unit), node, 1));
    }

    /** Slots held per group, sorted by group. */
    Map<String, Long> usedSlots() {
        Map<String, Long> m = new TreeMap<>();
        for (GroupView g : view().groups()) {
            m.put(g.name(), g.usedSlots());
        }
        return m;
    }

    /** Jobs, units and groups as text: equal fingerprints mean nothing changed. */
    String fingerprint() {
        StringBuilder sb = new StringBuilder();
        for (JobView j : view().jobs()) {
            sb.append(j.id()).append('@').append(j.group());
            for (UnitView u : j.units()) {
                sb.append(' ').append(u.id()).append(' ').append(u.granted()).append('/').append(u.desired())
                        .append(new TreeMap<>(u.allocations()));
            }
            sb.append('\n');
        }
        for (GroupView g : view().groups()) {
            sb.append(g.name()).append(' ').append(g.used()).append(' ').append(g.waitingSlots()).append('\n');
        }
        return sb.append(view().status().policies()).toString();
    }
}

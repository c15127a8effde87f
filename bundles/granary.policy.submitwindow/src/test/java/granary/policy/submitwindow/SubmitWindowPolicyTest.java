package granary.policy.submitwindow;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;

import granary.api.model.JobSpec;
import granary.api.model.ManualClock;
import granary.api.model.NodeSpec;
import granary.api.model.Resources;
import granary.api.model.UnitId;
import granary.api.model.UnitSpec;
import granary.api.event.GrantReleased;
import granary.api.event.Granted;
import granary.api.event.InputEvent;
import granary.api.event.JobSubmitted;
import granary.api.event.NodeAdded;
import granary.api.event.PolicyInstalled;
import granary.api.spi.GangPlacement;
import granary.api.spi.GangPlan;
import granary.api.spi.NodeView;
import granary.api.spi.PlacementContext;
import granary.api.spi.UnitOrder;
import granary.api.spi.UnitView;
import granary.engine.Engine;
import granary.engine.EngineOptions;
import granary.policy.fifo.FifoPolicy;

import org.junit.jupiter.api.Test;

/** SubmitWindow on the real engine: the order, and the fragmentation case that motivated it (docs/policies.md, "submitwindow"). */
class SubmitWindowPolicyTest {

    /** The smallest gang placement that works: first fit over the candidates (the real one is granary.policy.gang). */
    static final class FirstFit implements GangPlacement {
        @Override
        public String name() {
            return "gang";
        }

        @Override
        public GangPlan plan(List<? extends UnitView> gang, PlacementContext ctx) {
            Map<String, Resources> used = new HashMap<>();
            Map<UnitId, Map<String, Integer>> plan = new HashMap<>();
            for (UnitView u : gang) {
                int left = u.remaining();
                Map<String, Integer> slots = new HashMap<>();
                for (NodeView n : ctx.candidates(u)) {
                    int k = Math.min(left, Math.min(ctx.room(u, n),
                            u.slot().copiesIn(n.free().minus(used.getOrDefault(n.name(), Resources.ZERO)))));
                    if (k > 0) {
                        slots.put(n.name(), k);
                        used.merge(n.name(), u.slot().times(k), Resources::plus);
                        left -= k;
                    }
                }
                if (left > 0) {
                    return null;
                }
                plan.put(u.id(), slots);
            }
            return new GangPlan(plan);
        }
    }

    private ManualClock clock = new ManualClock(0);

    private Engine engine(UnitOrder order) {
        Engine e = new Engine(clock, new EngineOptions(List.of(order.name(), "gang"), List.of(), true));
        e.handle(new PolicyInstalled(order, "test"));
        e.handle(new PolicyInstalled(new FirstFit(), "test"));
        e.handle(new NodeAdded(new NodeSpec("n0", "r1", Resources.of(800, 8000))));
        return e;
    }

    private static JobSpec gang(String id, int slots, int priority) {
        return new JobSpec(id, null, null, 0, true,
                List.of(UnitSpec.builder("w").slot(100, 100).desired(slots).priority(priority).build()));
    }

    private static List<String> waitingOrder(Engine e) {
        List<String> order = new ArrayList<>();
        e.view().waiting("default").forEach(u -> order.add(u.job().id()));
        return order;
    }

    @Test
    void priorityThenWindowThenSmallerRequestThenSubmitTime() {
        Engine e = engine(new SubmitWindowPolicy(5_000));
        e.handle(new JobSubmitted(gang("filler", 8, 0)));
        submitAt(e, 1_000, gang("big-w0", 6, 0));
        submitAt(e, 2_000, gang("small-w0", 2, 0));
        submitAt(e, 3_000, gang("small-w0-later", 2, 0));
        submitAt(e, 6_000, gang("tiny-w1", 1, 0));
        submitAt(e, 7_000, gang("big-w1-high", 7, 5));
        assertEquals(List.of("big-w1-high", "small-w0", "small-w0-later", "big-w0", "tiny-w1"), waitingOrder(e));
    }

    @Test
    void theWindowIsConfigurable() {
        Engine e = engine(new SubmitWindowPolicy(1_000));
        e.handle(new JobSubmitted(gang("filler", 8, 0)));
        submitAt(e, 1_000, gang("big", 6, 0));
        submitAt(e, 2_000, gang("small", 2, 0));
        assertEquals(List.of("big", "small"), waitingOrder(e));   // different 1-second windows: submit order
        assertThrows(IllegalArgumentException.class, () -> new SubmitWindowPolicy(0));
    }

    private void submitAt(Engine e, long t, JobSpec job) {
        clock.set(t);
        e.handle(new JobSubmitted(job));
    }

    /**
     * The fragmentation case: eight slots are busy until t=10 s; in the same window a job of eight
     * arrives, then three of two. FIFO gives the big job the eight slots the moment they free up and
     * the small ones wait its whole minute; SubmitWindow starts the three small ones first and the
     * big one waits for their five seconds. Waits over 10 s are wait-for-resource timeouts.
     */
    @Test
    void fewerWaitForResourceTimeoutsThanFifoInTheFragmentationCase() {
        assertEquals(3, timeouts(new FifoPolicy()));
        assertEquals(1, timeouts(new SubmitWindowPolicy()));
    }

    private int timeouts(UnitOrder order) {
        clock = new ManualClock(0);
        Engine e = engine(order);
        Map<String, Long> duration = Map.of("filler", 10_000L, "big", 60_000L, "s1", 5_000L, "s2", 5_000L, "s3", 5_000L);
        Map<String, Long> submitted = new HashMap<>();
        Map<String, Long> started = new HashMap<>();
        PriorityQueue<Object[]> releases = new PriorityQueue<>((a, b) -> Long.compare((long) a[0], (long) b[0]));
        e.subscribe(o -> {
            if (o instanceof Granted g && started.putIfAbsent(g.unit().job(), clock.millis()) == null) {
                releases.add(new Object[] {clock.millis() + duration.get(g.unit().job()), g.unit().job()});
            }
        });
        List<Object[]> arrivals = List.of(new Object[] {0L, gang("filler", 8, 0)}, new Object[] {1_000L, gang("big", 8, 0)},
                new Object[] {1_500L, gang("s1", 2, 0)}, new Object[] {2_000L, gang("s2", 2, 0)},
                new Object[] {2_500L, gang("s3", 2, 0)});
        int next = 0;
        while (next < arrivals.size() || !releases.isEmpty()) {
            long tArrive = next < arrivals.size() ? (long) arrivals.get(next)[0] : Long.MAX_VALUE;
            long tRelease = releases.isEmpty() ? Long.MAX_VALUE : (long) releases.peek()[0];
            if (tArrive <= tRelease) {
                JobSpec j = (JobSpec) arrivals.get(next++)[1];
                clock.set(tArrive);
                submitted.put(j.id(), tArrive);
                e.handle(new JobSubmitted(j));
            } else {
                String job = (String) releases.poll()[1];
                clock.set(tRelease);
                UnitView u = e.view().unit(new UnitId(job, "w"));
                List<InputEvent> done = new ArrayList<>();
                u.allocations().forEach((node, k) -> done.add(new GrantReleased(u.id(), node, k)));
                done.forEach(e::handle);
            }
        }
        assertEquals(5, started.size(), "every job ran: " + started);
        return (int) submitted.entrySet().stream().filter(s -> started.get(s.getKey()) - s.getValue() > 10_000).count();
    }
}

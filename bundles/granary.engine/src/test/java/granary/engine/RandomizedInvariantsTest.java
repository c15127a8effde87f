package granary.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

import granary.api.model.InvalidRequestException;
import granary.api.model.JobSpec;
import granary.api.model.Locality;
import granary.api.model.NodeSpec;
import granary.api.model.Resources;
import granary.api.model.UnitId;
import granary.api.model.UnitKind;
import granary.api.model.UnitSpec;
import granary.api.event.ClockTick;
import granary.api.event.GrantReleased;
import granary.api.event.InputEvent;
import granary.api.event.JobCancelled;
import granary.api.event.JobMoved;
import granary.api.event.JobSubmitted;
import granary.api.event.NodeAdded;
import granary.api.event.NodeBlacklisted;
import granary.api.event.NodeCapacityChanged;
import granary.api.event.NodeRemoved;
import granary.api.event.PolicyActivated;
import granary.api.event.PolicyInstalled;
import granary.api.event.PolicyUninstalled;
import granary.api.event.UnitCancelled;
import granary.api.event.UnitDesireChanged;
import granary.api.spi.EngineView;
import granary.api.spi.JobView;
import granary.api.spi.NodeView;
import granary.api.spi.UnitView;
import granary.engine.state.JobState;
import granary.engine.state.NodeState;
import granary.engine.state.UnitState;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Long random event sequences — nodes joining, leaving, shrinking and growing, blacklists, jobs of
 * every shape, releases, cancellations, desire changes, policy swaps and removals, bad events mixed
 * in — with every invariant checked after every event (strict mode), and besides: a refused event
 * changes nothing; what job masters and agents were told (the output log, minus releases) always
 * equals what the engine holds; and a policy change never changes a grant or a desire.
 */
class RandomizedInvariantsTest {

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8})
    void invariantsHoldAfterEveryEvent(long seed) {
        Random rnd = new Random(seed);
        Harness h = new Harness(List.of("fifo"));
        h.install(new Harness.ArrivalOrder("fifo"));
        Harness.ArrivalOrder fifo2 = new Harness.ArrivalOrder("fifo");
        PassiveSchedulingTest.FewestFirst fair = new PassiveSchedulingTest.FewestFirst();
        h.install(fair);
        h.install(new GangTest.FirstFit());
        h.handle(new PolicyActivated("gang"));
        Map<String, Integer> released = new TreeMap<>();
        int jobs = 0;
        for (int step = 0; step < 1500; step++) {
            h.clock.advance(rnd.nextInt(2000));
            InputEvent e = next(rnd, h, jobs);
            if (e instanceof JobSubmitted) {
                jobs++;
            }
            String before = h.fingerprint();
            boolean policyEvent = e instanceof PolicyActivated || e instanceof PolicyInstalled || e instanceof PolicyUninstalled;
            Map<UnitId, String> desires = policyEvent ? desires(h.engine.view()) : null;
            try {
                h.handle(e);
            } catch (InvalidRequestException refused) {
                assertEquals(before, h.fingerprint(), "step " + step + ": refused " + e + " changed the state");
                continue;
            }
            if (e instanceof GrantReleased r) {
                released.merge(r.unit() + "@" + r.node(), r.slots(), Integer::sum);
            }
            if (policyEvent) {
                assertEquals(desires, desires(h.engine.view()), "step " + step + ": " + e + " changed a desire");
            }
            assertEquals(held(h.engine.view()), minus(h.netFromLog(), released), "step " + step + " after " + e);
            if (step % 10 == 0) {
                assertWorkConserving(h.engine, step);
            }
            if (rnd.nextInt(200) == 0) {   // swap the fifo instance, as a bundle update does
                Harness.ArrivalOrder old = fifo2;
                fifo2 = new Harness.ArrivalOrder("fifo");
                h.install(fifo2);
                h.handle(new PolicyUninstalled(old));
            }
        }
        assertTrue(jobs > 50, "the run submitted too few jobs to mean anything: " + jobs);
    }

    private static InputEvent next(Random rnd, Harness h, int jobs) {
        EngineView v = h.engine.view();
        List<? extends NodeView> nodes = new ArrayList<>(v.cluster().nodes());
        List<UnitView> units = new ArrayList<>();
        for (JobView j : v.jobs()) {
            for (UnitView u : j.units()) {
                if (u.live()) {
                    units.add(u);
                }
            }
        }
        int dice = rnd.nextInt(100);
        if (nodes.size() < 3 || dice < 8) {
            return new NodeAdded(new NodeSpec("n" + rnd.nextInt(60), "r" + rnd.nextInt(3),
                    Resources.of(100 * (1 + rnd.nextInt(8)), 1024L * (1 + rnd.nextInt(8)),
                            rnd.nextInt(4) == 0 ? Map.of("gpu", (long) rnd.nextInt(3)) : Map.of())));
        }
        NodeView node = nodes.get(rnd.nextInt(nodes.size()));
        if (dice < 11) {
            return new NodeRemoved(node.name(), rnd.nextBoolean());
        }
        if (dice < 15) {
            return new NodeCapacityChanged(node.name(), Resources.of(100 * rnd.nextInt(9), 1024L * rnd.nextInt(9)));
        }
        if (dice < 18) {
            return new NodeBlacklisted(node.name(), rnd.nextBoolean());
        }
        if (dice < 45 || units.isEmpty()) {
            return new JobSubmitted(job(rnd, "j" + jobs, nodes));
        }
        UnitView u = units.get(rnd.nextInt(units.size()));
        if (dice < 75 && !u.allocations().isEmpty()) {
            List<Map.Entry<String, Integer>> held = new ArrayList<>(u.allocations().entrySet());
            Map.Entry<String, Integer> g = held.get(rnd.nextInt(held.size()));
            return new GrantReleased(u.id(), g.getKey(), 1 + rnd.nextInt(g.getValue() + 1));   // sometimes too many
        }
        if (dice < 82) {
            return new UnitDesireChanged(u.id(), Math.max(0, u.granted() + rnd.nextInt(6) - 1));
        }
        if (dice < 86) {
            return new UnitCancelled(u.id());
        }
        if (dice < 89) {
            return new JobCancelled(u.job().id());
        }
        if (dice < 91) {
            return new JobMoved(u.job().id(), "g" + rnd.nextInt(4));
        }
        if (dice < 95) {
            return new PolicyActivated(rnd.nextBoolean() ? "fair" : "fifo");
        }
        return new ClockTick();
    }

    private static JobSpec job(Random rnd, String id, List<? extends NodeView> nodes) {
        int count = 1 + rnd.nextInt(3);
        boolean gang = rnd.nextInt(8) == 0;
        List<UnitSpec> units = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            UnitSpec.Builder b = UnitSpec.builder("u" + i)
                    .slot(Resources.of(50 * (1 + rnd.nextInt(6)), 256L * (1 + rnd.nextInt(6)),
                            rnd.nextInt(6) == 0 ? Map.of("gpu", 1L) : Map.of()))
                    .desired(rnd.nextInt(8)).priority(rnd.nextInt(4))
                    .maxPerNode(rnd.nextInt(3) == 0 ? 1 + rnd.nextInt(3) : 0)
                    .allOrNothing(rnd.nextInt(10) == 0)
                    .kind(rnd.nextInt(5) == 0 ? UnitKind.ONLINE : UnitKind.OFFLINE);
            if (rnd.nextInt(4) == 0) {
                NodeView n = nodes.get(rnd.nextInt(nodes.size()));
                b.prefer(Locality.machine(n.name(), 1 + rnd.nextInt(2)));
                b.prefer(rnd.nextBoolean() ? Locality.room(n.room(), 3) : Locality.cluster(5));
            }
            if (rnd.nextInt(6) == 0) {
                b.blacklist(nodes.get(rnd.nextInt(nodes.size())).name());
            }
            units.add(b.build());
        }
        return new JobSpec(id, "g" + rnd.nextInt(3), null, 0, gang, units);
    }

    /**
     * No waiting slot-by-slot unit has room on a node it may use, and no waiting gang has a plan the
     * gang placement in effect would find now: free resources are never left idle.
     */
    private static void assertWorkConserving(Engine engine, int step) {
        if (!engine.workload().ordered()) {
            return;
        }
        GangTest.FirstFit planner = new GangTest.FirstFit();
        List<UnitState> units = new ArrayList<>();
        engine.workload().jobs().forEach(j -> units.addAll(j.units()));
        for (UnitState u : units) {
            if (u.queued() && u.allOrNothing()) {
                List<UnitState> gang = new ArrayList<>();
                for (UnitState m : u.job().gang() ? JobState.of(u).units() : List.of(u)) {
                    if (m.queued()) {
                        gang.add(m);
                    }
                }
                assertEquals(null, planner.plan(gang, (granary.api.spi.PlacementContext) engine.view()),
                        "step " + step + ": gang " + gang + " waits but fits now");
            }
            if (!u.queued() || u.allOrNothing()) {
                continue;
            }
            for (NodeState n : engine.cluster().nodes()) {
                assertEquals(0, engine.eligibility().room(u, n),
                        "step " + step + ": " + u + " waits for " + u.remaining() + " but " + n + " has room, free " + n.free());
            }
        }
    }

    private static Map<UnitId, String> desires(EngineView v) {
        Map<UnitId, String> m = new TreeMap<>();
        for (JobView j : v.jobs()) {
            for (UnitView u : j.units()) {
                m.put(u.id(), u.desired() + " " + u.live() + " " + new TreeMap<>(u.allocations()));
            }
        }
        return m;
    }

    private static Map<String, Integer> held(EngineView v) {
        Map<String, Integer> m = new TreeMap<>();
        for (NodeView n : v.cluster().nodes()) {
            n.allocations().forEach((u, k) -> m.put(u + "@" + n.name(), k));
        }
        return m;
    }

    private static Map<String, Integer> minus(Map<String, Integer> log, Map<String, Integer> released) {
        Map<String, Integer> m = new TreeMap<>(log);
        released.forEach((k, v) -> m.merge(k, -v, Integer::sum));
        m.values().removeIf(x -> x == 0);
        return m;
    }
}

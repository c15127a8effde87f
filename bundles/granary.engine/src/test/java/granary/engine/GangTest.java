package granary.engine;

import static granary.engine.Harness.unit;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import granary.api.model.JobSpec;
import granary.api.model.UnitId;
import granary.api.model.UnitSpec;
import granary.api.event.JobSubmitted;
import granary.api.spi.GangPlacement;
import granary.api.spi.GangPlan;
import granary.api.spi.NodeView;
import granary.api.spi.PlacementContext;
import granary.api.spi.ReasonCode;
import granary.api.spi.UnitView;

import org.junit.jupiter.api.Test;

/** The engine's side of all-or-nothing: a plan is checked whole and granted whole, or not at all. */
class GangTest {

    /** Greedy first-fit planner over the candidates, as simple as a gang placement can be. */
    static final class FirstFit implements GangPlacement {
        boolean lie;

        @Override
        public String name() {
            return "gang";
        }

        @Override
        public GangPlan plan(List<? extends UnitView> gang, PlacementContext ctx) {
            Map<String, granary.api.model.Resources> used = new HashMap<>();
            Map<UnitId, Map<String, Integer>> plan = new HashMap<>();
            for (UnitView u : gang) {
                int left = u.remaining();
                Map<String, Integer> slots = new HashMap<>();
                for (NodeView n : ctx.candidates(u)) {
                    granary.api.model.Resources free = n.free().minus(used.getOrDefault(n.name(), granary.api.model.Resources.ZERO));
                    int k = Math.min(left, Math.min(ctx.room(u, n), u.slot().copiesIn(free)));
                    if (k > 0) {
                        slots.put(n.name(), k);
                        used.merge(n.name(), u.slot().times(k), granary.api.model.Resources::plus);
                        left -= k;
                    }
                }
                if (left > 0 && !lie) {
                    return null;
                }
                plan.put(u.id(), slots);
            }
            return new GangPlan(plan);
        }
    }

    private static Harness withGang(FirstFit g) {
        Harness h = new Harness(List.of("fifo", "gang"));
        h.install(new Harness.ArrivalOrder("fifo"));
        h.install(g);
        return h;
    }

    @Test
    void aGangIsGrantedWholeOrWaitsWhole() {
        Harness h = withGang(new FirstFit()).nodes("n", "r1", 2, 400, 4096);
        h.submit("small", unit("u", 100, 512, 3));
        h.submit("g", UnitSpec.builder("u").slot(100, 512).desired(6).allOrNothing(true).build());
        assertEquals(0, h.granted("g/u"));   // 5 slots free, 6 wanted: nothing, no partial hold
        h.release("small/u", "n0", 1);
        assertEquals(6, h.granted("g/u"));
    }

    @Test
    void aGangJobTakesAllItsUnitsInOneStep() {
        Harness h = withGang(new FirstFit()).nodes("n", "r1", 2, 400, 4096);
        h.handle(new JobSubmitted(new JobSpec("g", null, null, 0, true,
                List.of(unit("ps", 200, 512, 2), unit("worker", 100, 512, 5)))));
        assertEquals(0, h.granted("g/ps") + h.granted("g/worker"));
        h.node("n2", "r1", 400, 4096);
        assertEquals(2, h.granted("g/ps"));
        assertEquals(5, h.granted("g/worker"));
    }

    @Test
    void aPlanThatDoesNotHoldGrantsNothing() {
        FirstFit liar = new FirstFit();
        liar.lie = true;   // returns partial plans
        // the cluster has room for 6 slots, so the quick checks pass and the plan is asked; at most 2
        // per node leave it 4 on 2 nodes, and the planner returns them as if they were all
        Harness h = withGang(liar).nodes("n", "r1", 2, 400, 4096);
        h.submit("g", UnitSpec.builder("u").slot(100, 512).desired(6).maxPerNode(2).allOrNothing(true).build());
        assertEquals(0, h.granted("g/u"));
        assertEquals(ReasonCode.NO_PLACEMENT, h.engine.view().unit(UnitId.parse("g/u")).waitReason().code());
        assertEquals(List.of(), h.log);
    }
}

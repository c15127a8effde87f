package granary.engine;

import static granary.engine.Harness.unit;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;

import granary.api.model.Allocation;
import granary.api.model.InvalidRequestException;
import granary.api.model.JobSpec;
import granary.api.model.Resources;
import granary.api.model.UnitId;
import granary.api.event.JobMoved;
import granary.api.event.JobSubmitted;
import granary.api.event.PolicyActivated;
import granary.api.event.PolicyReconfigured;
import granary.api.spi.EngineView;
import granary.api.spi.GroupResolver;
import granary.api.spi.GroupView;
import granary.api.spi.Reconfigurable;

import org.junit.jupiter.api.Test;

/** Group resolution, moving jobs between groups, reconfiguring a policy at run time, grant ages. */
class GroupsTest {

    /** Short names get a "root." prefix; "nope" is refused. */
    static final class Prefix implements GroupResolver {
        @Override
        public String name() {
            return "prefix";
        }

        @Override
        public String resolve(String requested, EngineView view) {
            if (requested.equals("nope")) {
                throw new InvalidRequestException("queue nope", "group", "unknown queue 'nope'");
            }
            return requested.startsWith("root.") ? requested : "root." + requested;
        }
    }

    private static Harness withPrefix() {
        Harness h = new Harness(List.of("fifo", "prefix"));
        h.install(new Harness.ArrivalOrder("fifo"));
        h.install(new Prefix());
        return h.nodes("n", "r1", 2, 400, 4096);
    }

    @Test
    void theGroupResolverNamesTheQueueAJobWaitsIn() {
        Harness h = withPrefix();
        h.submit("j", "a", unit("u", 100, 512, 2));
        assertEquals("root.a", h.engine.view().job("j").group());
        assertEquals(2, h.engine.view().group("root.a").usedSlots());
        InvalidRequestException e = assertThrows(InvalidRequestException.class,
                () -> h.submit("k", "nope", unit("u", 100, 512, 1)));
        assertTrue(e.getMessage().contains("unknown queue 'nope'"));
        assertEquals(null, h.engine.view().job("k"));
    }

    @Test
    void movingAJobMovesItsUsageAndItsWaitingSlots() {
        Harness h = withPrefix();
        h.submit("j", "a", unit("u", 200, 512, 6));
        assertEquals(4, h.granted("j/u"));
        h.handle(new JobMoved("j", "b"));
        GroupView b = h.engine.view().group("root.b");
        assertEquals(4, b.usedSlots());
        assertEquals(2, b.waitingSlots());
        assertEquals(1, b.runningJobs());
        assertEquals(1, b.runningJobs("anonymous"));
        assertEquals(null, h.engine.view().group("root.a"));
        List<String> waiting = new java.util.ArrayList<>();
        h.engine.view().waiting("root.b").forEach(u -> waiting.add(u.id().toString()));
        assertEquals(List.of("j/u"), waiting);
        InvalidRequestException same = assertThrows(InvalidRequestException.class, () -> h.handle(new JobMoved("j", "root.b")));
        assertTrue(same.getMessage().contains("is already in root.b"), same.getMessage());
        h.release("j/u", "n0", 2);
        assertEquals(4, h.granted("j/u"));   // the moved job's waiting slots are served from its new queue
    }

    /** An admission cap that can be changed at run time. */
    static final class Cap extends ActiveSchedulingTest.GroupCapBase implements Reconfigurable {
        Cap() {
            super(2);
        }

        @Override
        public List<String> reconfigure(Object settings, EngineView view) {
            if (!(settings instanceof Integer n) || n < 0) {
                throw new InvalidRequestException("cap", "settings", "expected a cap >= 0, got " + settings);
            }
            int old = limit;
            limit = n;
            return List.of("cap: " + old + " -> " + n);
        }
    }

    @Test
    void reconfiguringAPolicyAppliesBetweenDecisionsAndARefusalKeepsTheOld() {
        Harness h = new Harness(List.of("fifo", "cap"));
        h.install(new Harness.ArrivalOrder("fifo"));
        h.install(new Cap());
        h.nodes("n", "r1", 2, 400, 4096);
        h.submit("j", unit("u", 100, 512, 6));
        assertEquals(2, h.granted("j/u"));
        String before = h.fingerprint();
        assertThrows(InvalidRequestException.class, () -> h.handle(new PolicyReconfigured("cap", "lots")));
        assertEquals(before, h.fingerprint());
        var r = h.handle(new PolicyReconfigured("cap", 5));
        assertEquals(List.of("cap: 2 -> 5"), r.notes());
        assertEquals(5, h.granted("j/u"));
        assertThrows(InvalidRequestException.class, () -> h.handle(new PolicyReconfigured("fifo", 1)));
    }

    @Test
    void grantsKnowTheirAge() {
        Harness h = Harness.withFifo().nodes("n", "r1", 2, 400, 4096);
        h.submit("j", unit("u", 100, 512, 1));
        h.clock.advance(5000);
        h.handle(new granary.api.event.UnitDesireChanged(UnitId.parse("j/u"), 3));
        List<Allocation> g = h.engine.view().unit(UnitId.parse("j/u")).grants();
        assertEquals(2, g.size());
        assertEquals("n0", g.get(0).node());
        assertTrue(g.get(0).since() < g.get(1).since());
        assertEquals(Map.of("n0", 2, "n1", 1), h.placement("j/u"));
        assertEquals(1, h.engine.view().job("j").requestedSlots());   // as submitted, whatever came later
    }

    @Test
    void theBuiltInResolverIsFlatAndAlwaysThere() {
        Harness h = Harness.withFifo().nodes("n", "r1", 1, 400, 4096);
        h.handle(new JobSubmitted(JobSpec.of("j", "plain", unit("u", 100, 512, 1))));
        assertEquals("plain", h.engine.view().job("j").group());
        assertEquals("flat", h.engine.view().status().policies().get("group-resolver"));
        assertThrows(InvalidRequestException.class, () -> h.handle(new PolicyActivated("nothing")));
        assertEquals(Resources.of(100, 512), h.engine.view().group("plain").used());
    }
}

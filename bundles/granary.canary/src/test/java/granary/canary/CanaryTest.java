package granary.canary;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

import granary.api.event.ClockTick;
import granary.api.event.GrantAdopted;
import granary.api.event.GrantReleased;
import granary.api.event.InputEvent;
import granary.api.event.JobSubmitted;
import granary.api.event.NodeAdded;
import granary.api.event.PolicyInstalled;
import granary.api.event.Receipt;
import granary.api.model.InvalidRequestException;
import granary.api.model.JobSpec;
import granary.api.model.ManualClock;
import granary.api.model.NodeSpec;
import granary.api.model.Resources;
import granary.api.model.UnitId;
import granary.api.model.UnitSpec;
import granary.api.spi.UnitView;
import granary.engine.Engine;
import granary.engine.EngineOptions;

import org.junit.jupiter.api.Test;

/** The shadow canary on a plain class path with a manual clock (docs/canary.md). */
class CanaryTest {

    private ManualClock clock = new ManualClock(0);
    private final CandidatePolicies source = DeclaredPolicies.onClassPath(CanaryTest.class.getClassLoader());
    private final List<String> logged = new ArrayList<>();

    private Engine engine(String... selection) {
        Engine e = new Engine(clock, new EngineOptions(List.of(selection), List.of("fifo", "fair"), true));
        for (String n : List.of("fifo", "fair")) {
            CandidatePolicies.Made m = source.make(n);
            e.handle(new PolicyInstalled(m.policy(), m.origin()));
        }
        return e;
    }

    private Canary canary(Engine live) {
        return new Canary(live, clock, source, 10_000, logged::add);
    }

    private static JobSubmitted job(String id, String group, int slots) {
        return new JobSubmitted(JobSpec.of(id, group, UnitSpec.builder("u").slot(100, 100).desired(slots).build()));
    }

    private static UnitId unit(String job) {
        return new UnitId(job, "u");
    }

    /** One node of 4 slots; job a (8 slots, group ga) holds it, b (8 slots, group gb) waits. */
    private Engine crowded() {
        Engine live = engine("fifo");
        live.handle(new NodeAdded(new NodeSpec("n1", "r1", Resources.of(400, 400))));
        live.handle(job("a", "ga", 8));
        clock.advance(1000);
        live.handle(job("b", "gb", 8));
        return live;
    }

    @Test
    void theReportShowsWhereFifoAndFairDiffer() {
        Engine live = engine("fifo");
        live.handle(new NodeAdded(new NodeSpec("n1", "r1", Resources.of(400, 400))));
        Canary c = canary(live);
        c.start(List.of("fair"), 600);
        live.handle(job("a", "g", 8));
        clock.advance(1000);
        live.handle(job("b", "g", 8));
        clock.advance(1000);
        live.handle(new GrantReleased(unit("a"), "n1", 1));   // fifo: a again; fair: b (holds fewer)
        clock.advance(10_000);
        live.handle(new GrantReleased(unit("a"), "n1", 1));   // fifo: a; fair: b

        assertEquals(0, live.view().unit(unit("b")).granted(), "the shadow never grants on live");
        assertEquals(4, live.view().unit(unit("a")).granted());
        CanaryReport r = c.report();
        assertEquals(6, r.row(Metric.GRANTS, "g").live());
        assertEquals(6, r.row(Metric.GRANTS, "g").shadow());
        assertEquals(1, r.row(Metric.TIMEOUTS, "g").live(), "b waited past 10 s on live");
        assertEquals(0, r.row(Metric.TIMEOUTS, "*").shadow());
        assertEquals(11_000, r.row(Metric.WAIT_P90, "g").live(), "b still waits: its wait so far");
        assertEquals(1000, r.row(Metric.WAIT_P90, "g").shadow());
        assertEquals(0, r.row(Metric.WAIT_P50, "*").live());
        assertEquals(1.0, r.row(Metric.UTILISATION, "*").live(), 1e-9);
        assertEquals(1.0, r.row(Metric.UTILISATION, "*").shadow(), 1e-9);
        assertEquals(0, r.divergences(), "every release was held by the shadow on that node");
        assertTrue(r.text().contains("timeouts"), r.text());
    }

    @Test
    void aShadowOfTheLiveSetStartedFromTheLiveStateAgreesWithIt() {
        Engine live = crowded();
        Canary c = canary(live);
        c.start(List.of("fifo"), 600);
        clock.advance(2000);
        live.handle(new GrantReleased(unit("a"), "n1", 2));
        clock.advance(2000);
        live.handle(new ClockTick());
        CanaryReport r = c.report();
        for (CanaryReport.Row row : r.rows()) {
            assertEquals(row.live(), row.shadow(), 1e-9, row.toString());
        }
        assertEquals(2, r.row(Metric.GRANTS, "*").shadow(), "adopted grants are not new grants; the freed two are");
        assertEquals(0, r.divergences());
    }

    @Test
    void promoteSwapsTheSelectionAtomicallyAndKeepsEveryGrantAndWaitingSlot() {
        Engine live = crowded();
        Canary c = canary(live);
        c.start(List.of("fair"), 5);
        clock.advance(6000);
        live.handle(new ClockTick());
        assertEquals(Canary.Phase.WINDOW_DONE, c.phase());
        String said = c.promote("waitP90", 50, 60);
        assertTrue(said.contains("promoted: policies fifo -> fair"), said);
        assertEquals(List.of("fair"), live.options().policies());
        assertEquals(4, live.view().unit(unit("a")).granted());
        assertEquals(8, live.view().unit(unit("b")).remaining(), "no waiting slot lost");
        live.handle(new GrantReleased(unit("a"), "n1", 1));
        assertEquals(1, live.view().unit(unit("b")).granted(), "fair is in effect now");
        c.rollback();
        assertEquals(List.of("fifo"), live.options().policies());
        assertEquals(Canary.Phase.ROLLED_BACK, c.phase());
    }

    @Test
    void aGuardRegressionRollsBackByItself() {
        Engine live = engine("fifo");
        live.handle(new NodeAdded(new NodeSpec("n1", "r1", Resources.of(400, 400))));
        Canary c = canary(live);
        c.start(List.of("fair"), 30);
        live.handle(job("a", "ga", 4));
        clock.advance(30_000);
        live.handle(new ClockTick());   // window done: no timeout on live
        c.promote("timeouts", 10, 120);
        live.handle(job("b", "gb", 1));   // the node is full: b waits
        clock.advance(11_000);
        Receipt r = live.handle(new ClockTick());
        assertEquals(Canary.Phase.ROLLED_BACK, c.phase());
        assertEquals(List.of("fifo"), live.options().policies());
        assertTrue(r.notes().stream().anyMatch(n -> n.contains("unit-order")), "the rollback's notes join the tick's receipt: " + r.notes());
        assertTrue(logged.stream().anyMatch(l -> l.contains("rolled back automatically: timeouts")), logged.toString());
        assertTrue(c.report().text().contains("rolled back automatically"), c.report().text());
    }

    /** docs/canary.md, "Releases": live gives back slots the shadow holds elsewhere or not at all. */
    @Test
    void aReleaseTheShadowDoesNotHoldIsMappedAndCountedAsADivergence() {
        Engine live = engine("fifo");
        live.handle(new NodeAdded(new NodeSpec("n1", "r1", Resources.of(400, 400))));
        live.handle(job("a", "g", 4));
        clock.advance(1000);
        live.handle(job("b", "g", 2));   // waits: n1 is full
        Shadow s = Shadow.seed(live.view(), clock, List.of("fair"), List.of(), source);
        assertEquals(4, s.view().unit(unit("a")).granted(), "adopted");
        assertEquals(2, s.view().unit(unit("b")).remaining());
        live.handle(new NodeAdded(new NodeSpec("n2", "r1", Resources.of(400, 400))));
        s.feed(new NodeAdded(new NodeSpec("n2", "r1", Resources.of(400, 400))));
        assertEquals(Map.of("n2", 2), s.view().unit(unit("b")).allocations());
        // live gives a's slots on n1 back, as the shadow holds them: the same release, no divergence
        s.feed(new GrantReleased(unit("a"), "n1", 1));
        assertEquals(0, s.divergences());
        // the shadow holds nothing of b on n1 (live never placed b there either: a made-up release
        // of a unit whose slots the shadow placed elsewhere): oldest first, counted
        s.feed(new GrantReleased(unit("b"), "n1", 1));
        assertEquals(1, s.divergences());
        assertEquals(1, s.view().unit(unit("b")).granted());
        assertEquals(1, s.view().unit(unit("b")).desired(), "the work is done either way");
        s.feed(new GrantReleased(unit("a"), "n1", 3));   // held there: no divergence
        assertEquals(1, s.divergences());
        // more than it holds at all: the rest comes off its desire
        s.feed(new GrantReleased(unit("b"), "n2", 2));
        assertEquals(2, s.divergences());
        assertTrue(s.messages().get(1).contains("the shadow held only 1; 1 taken off its desire"), s.messages().toString());
        assertEquals(null, s.view().job("b"), "b is finished in the shadow");
        s.close();
    }

    @Test
    void badInputIsRefusedNamingTheValueAndTheLimit() {
        Engine live = crowded();
        Canary c = canary(live);
        assertTrue(assertThrows(InvalidRequestException.class, c::report).getMessage().contains("no canary running"));
        assertTrue(assertThrows(InvalidRequestException.class, () -> c.start(List.of("nosuch"), 60)).getMessage()
                .contains("'nosuch' is not installed; policies: fair, fifo"));
        assertTrue(assertThrows(InvalidRequestException.class, () -> c.start(List.of("fair"), 0)).getMessage()
                .contains("between 1 and 604800 seconds, got 0"));
        c.start(List.of("fair"), 60);
        assertTrue(assertThrows(InvalidRequestException.class, () -> c.promote("timeouts", -5, 60)).getMessage()
                .contains("between 0 and 1000 percent, got -5.0"));
        assertTrue(assertThrows(InvalidRequestException.class, () -> c.promote("speed", 5, 60)).getMessage()
                .contains("'speed' is not a metric"));
        assertTrue(assertThrows(InvalidRequestException.class, () -> c.start(List.of("fair"), 60)).getMessage()
                .contains("canary-stop first"));
        c.stop();
        assertEquals(Canary.Phase.IDLE, c.phase());
    }

    @Test
    void grantAdoptedIsValidatedWhole() {
        Engine live = crowded();
        InvalidRequestException e = assertThrows(InvalidRequestException.class,
                () -> live.handle(new GrantAdopted(unit("b"), "n1", 1)));
        assertTrue(e.getMessage().contains("has room for 0 slots"), e.getMessage());
        assertThrows(InvalidRequestException.class, () -> live.handle(new GrantAdopted(unit("b"), "nope", 1)));
        assertThrows(InvalidRequestException.class, () -> live.handle(new GrantAdopted(unit("b"), "n1", 0)));
        assertThrows(InvalidRequestException.class, () -> live.handle(new GrantAdopted(unit("zz"), "n1", 1)));
        live.handle(new NodeAdded(new NodeSpec("n2", "r1", Resources.of(400, 400))));
        assertEquals(4, live.view().unit(unit("b")).granted(), "n2 is filled by the cycle");
    }

    @Test
    void grantAdoptedTakesOnAGrantWithoutAPolicyAndRefusesWhatCouldNotBeHeld() {
        Engine e = new Engine(clock, new EngineOptions(List.of(), List.of(), true));   // no unit order: nothing decided
        e.handle(new NodeAdded(new NodeSpec("n1", "r1", Resources.of(400, 400))));
        e.handle(new JobSubmitted(JobSpec.of("m", "g", UnitSpec.builder("u").slot(100, 100).desired(6).maxPerNode(3).build())));
        InvalidRequestException tooMany = assertThrows(InvalidRequestException.class,
                () -> e.handle(new GrantAdopted(unit("m"), "n1", 4)));
        assertTrue(tooMany.getMessage().contains("maxPerNode 3 on node n1"), tooMany.getMessage());
        assertEquals(0, e.view().unit(unit("m")).granted(), "a refusal changes nothing");
        Receipt r = e.handle(new GrantAdopted(unit("m"), "n1", 3));
        assertEquals(3, e.view().unit(unit("m")).granted());
        assertEquals(3, e.view().unit(unit("m")).remaining());
        assertEquals(1, r.outputs().size(), "the receipt carries the Granted: " + r.outputs());
        e.handle(new NodeAdded(new NodeSpec("n2", "r1", Resources.of(800, 800))));
        InvalidRequestException beyond = assertThrows(InvalidRequestException.class,
                () -> e.handle(new GrantAdopted(unit("m"), "n2", 4)));
        assertTrue(beyond.getMessage().contains("waits for 3 slots, cannot adopt 4"), beyond.getMessage());
        e.checkInvariants();
    }

    /** Property: live decisions and state are the same with and without a shadow attached (fixed seeds). */
    @Test
    void liveIsIdenticalWithAndWithoutAShadow() {
        for (long seed = 1; seed <= 5; seed++) {
            assertEquals(run(seed, false), run(seed, true), "seed " + seed);
        }
    }

    private List<Object> run(long seed, boolean shadow) {
        clock = new ManualClock(0);
        Random rnd = new Random(seed);
        Engine live = engine("fifo");
        for (int i = 0; i < 6; i++) {
            live.handle(new NodeAdded(new NodeSpec("n" + i, "r" + (i % 2), Resources.of(400, 800))));
        }
        List<Object> seen = new ArrayList<>();
        Canary c = shadow ? canary(live) : null;
        for (int step = 0; step < 300; step++) {
            if (c != null && step == 20) {
                c.start(List.of("fair"), 100);
            }
            clock.advance(rnd.nextInt(2000));
            InputEvent e;
            int pick = rnd.nextInt(10);
            List<UnitView> holding = live.view().jobs().stream().flatMap(j -> j.units().stream())
                    .filter(u -> u.granted() > 0).map(u -> (UnitView) u).toList();
            if (pick < 4 || holding.isEmpty()) {
                e = job("j" + step, "g" + rnd.nextInt(3), 1 + rnd.nextInt(6));
            } else if (pick < 9) {
                UnitView u = holding.get(rnd.nextInt(holding.size()));
                Map.Entry<String, Integer> a = new TreeMap<>(u.allocations()).firstEntry();
                e = new GrantReleased(u.id(), a.getKey(), 1 + rnd.nextInt(a.getValue()));
            } else {
                e = new ClockTick();
            }
            Receipt r = live.handle(e);
            seen.add(r.outputs());
        }
        live.view().jobs().forEach(j -> j.units().forEach(u -> seen.add(u.id() + "=" + u.allocations() + "/" + u.remaining())));
        if (c != null) {
            assertTrue(c.report().rows().stream().anyMatch(row -> row.metric() == Metric.GRANTS && row.live() > 0));
        }
        return seen;
    }
}

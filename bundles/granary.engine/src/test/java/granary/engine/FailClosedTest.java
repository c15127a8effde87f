package granary.engine;

import static granary.engine.Harness.unit;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;

import granary.api.event.PolicyDeactivated;
import granary.api.event.PolicyFailed;
import granary.api.event.PolicyInstalled;
import granary.api.spi.EngineStatus;

import org.junit.jupiter.api.Test;

/**
 * Fail closed (docs/operations.md, "Fail closed"): while a selected policy's configuration is refused
 * and no instance of it is installed, the engine keeps every event but grants nothing; an instance of
 * the policy, or deselecting it, releases the hold and the waiting work is scheduled.
 */
class FailClosedTest {

    private static Harness heldByQuota() {
        Harness h = new Harness(List.of("fifo", "quota"));
        h.install(new Harness.ArrivalOrder("fifo"));
        h.nodes("n", "r1", 2, 400, 4096);
        h.handle(new PolicyFailed("quota", "configuration granary.policy.quota refused: tableFile: no such file q.json"));
        h.submit("a", unit("u", 100, 512, 3));
        return h;
    }

    @Test
    void aRefusedSelectedPolicyHoldsEveryGrantAndSaysWhy() {
        Harness h = heldByQuota();
        assertEquals(0, h.granted("a/u"), "nothing is granted while quota's configuration is refused");
        EngineStatus s = h.engine.view().status();
        assertEquals("held", s.health());
        assertEquals(1, s.held().size());
        assertTrue(s.held().get(0).contains("policy quota is selected but its configuration was refused: "
                + "configuration granary.policy.quota refused: tableFile: no such file q.json"), s.held().toString());
        assertEquals(3, s.waitingSlots(), "the submission is kept");
        assertEquals(Map.of("quota", "configuration granary.policy.quota refused: tableFile: no such file q.json"), s.problems());
    }

    @Test
    void aWorkingInstanceReleasesTheHoldAndClearsTheProblem() {
        Harness h = heldByQuota();
        h.handle(new PolicyInstalled(new Harness.ArrivalOrder("quota"), "test"));
        assertEquals(3, h.granted("a/u"), "the waiting work is scheduled at once");
        EngineStatus s = h.engine.view().status();
        assertEquals("ok", s.health());
        assertEquals(Map.of(), s.problems());
    }

    @Test
    void deselectingTheFailedPolicyReleasesTheHold() {
        Harness h = heldByQuota();
        h.handle(new PolicyDeactivated("quota"));
        assertEquals(3, h.granted("a/u"));
        assertEquals("ok", h.engine.view().status().health());
        assertEquals(1, h.engine.view().status().problems().size(), "the problem is still reported");
    }

    @Test
    void aRefusedPolicyThatIsNotSelectedHoldsNothing() {
        Harness h = new Harness(List.of("fifo"));
        h.install(new Harness.ArrivalOrder("fifo"));
        h.nodes("n", "r1", 1, 400, 4096);
        h.handle(new PolicyFailed("fair", "configuration granary.policy.fair refused: measure: 'COUNT' is not one of FRACTION, SLOTS"));
        h.submit("a", unit("u", 100, 512, 2));
        assertEquals(2, h.granted("a/u"));
        assertEquals("ok", h.engine.view().status().health());
    }

    @Test
    void aRefusedReconfigurationOfAnInstalledPolicyHoldsNothing() {
        Harness h = new Harness(List.of("fifo", "quota"));
        h.install(new Harness.ArrivalOrder("fifo"));
        h.install(new Harness.ArrivalOrder("quota"));
        h.nodes("n", "r1", 1, 400, 4096);
        h.handle(new PolicyFailed("quota", "configuration granary.policy.quota refused: preemption: 'maybe' is neither true nor false"));
        h.submit("a", unit("u", 100, 512, 2));
        assertEquals(2, h.granted("a/u"), "the running instance and its settings stay in force");
        assertEquals("ok", h.engine.view().status().health());
    }
}

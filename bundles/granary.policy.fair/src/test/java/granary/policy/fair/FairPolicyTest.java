package granary.policy.fair;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;

import granary.api.model.JobSpec;
import granary.api.model.ManualClock;
import granary.api.model.NodeSpec;
import granary.api.model.Resources;
import granary.api.model.UnitId;
import granary.api.model.UnitSpec;
import granary.api.event.GrantReleased;
import granary.api.event.JobSubmitted;
import granary.api.event.NodeAdded;
import granary.api.event.PolicyInstalled;
import granary.engine.Engine;
import granary.engine.EngineOptions;

import org.junit.jupiter.api.Test;

/** FAIR on the real engine: at equal priority the unit holding fewer slots goes first. */
class FairPolicyTest {

    private final ManualClock clock = new ManualClock(0);

    private Engine engine(FairPolicy policy, long nodeCpu) {
        Engine e = new Engine(clock, new EngineOptions(List.of("fair"), List.of(), true));
        e.handle(new PolicyInstalled(policy, "test"));
        e.handle(new NodeAdded(new NodeSpec("n0", "r1", Resources.of(nodeCpu, 100_000))));
        submit(e, "fill", 0, (int) (nodeCpu / 100));   // the node is full; everything after waits
        return e;
    }

    private void submit(Engine e, String job, int priority, int desired) {
        clock.advance(1000);
        e.handle(new JobSubmitted(JobSpec.of(job, null,
                UnitSpec.builder("u").slot(100, 10).desired(desired).priority(priority).build())));
    }

    private static int granted(Engine e, String job) {
        return e.view().unit(new UnitId(job, "u")).granted();
    }

    private static void release(Engine e, String job, int slots) {
        e.handle(new GrantReleased(new UnitId(job, "u"), "n0", slots));
    }

    @Test
    void equalPriorityUnitsEndUpWithAboutTheSameSlots() {
        Engine e = engine(new FairPolicy(), 1200);
        submit(e, "a", 1, 10);
        submit(e, "b", 1, 10);
        submit(e, "c", 1, 10);
        release(e, "fill", 12);
        assertEquals(List.of(4, 4, 4), List.of(granted(e, "a"), granted(e, "b"), granted(e, "c")));
    }

    @Test
    void tieBreakFavoursTheUnitHoldingFewerSlotsNotTheOlderOne() {
        Engine e = engine(new FairPolicy(), 300);
        submit(e, "old", 1, 5);
        release(e, "fill", 2);                       // old takes both freed slots: nobody else waits
        assertEquals(2, granted(e, "old"));
        submit(e, "young", 1, 5);
        release(e, "fill", 1);
        assertEquals(1, granted(e, "young"));        // FIFO would have given it to "old"
        assertEquals(2, granted(e, "old"));
    }

    @Test
    void priorityStillComesFirst() {
        Engine e = engine(new FairPolicy(), 200);
        submit(e, "low", 1, 5);
        submit(e, "high", 7, 5);
        release(e, "fill", 2);
        assertEquals(2, granted(e, "high"));
        assertEquals(0, granted(e, "low"));
    }

    @Test
    void fractionMeasureComparesProgressNotCounts() {
        Engine e = engine(new FairPolicy(FairPolicy.Measure.FRACTION), 600);
        submit(e, "small", 1, 2);
        submit(e, "large", 1, 8);
        release(e, "fill", 5);
        // by fraction small 1/2 and large 4/8 progress alike; counting slots would give small 2, large 3
        assertEquals(1, granted(e, "small"));
        assertEquals(4, granted(e, "large"));
    }
}

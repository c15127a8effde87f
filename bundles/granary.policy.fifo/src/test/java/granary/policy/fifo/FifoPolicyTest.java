package granary.policy.fifo;

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

/** FIFO on the real engine: priority first, then the earlier submission; strict arrival as an option. */
class FifoPolicyTest {

    private final ManualClock clock = new ManualClock(0);

    private Engine engine(FifoPolicy policy) {
        Engine e = new Engine(clock, new EngineOptions(List.of("fifo"), List.of(), true));
        e.handle(new PolicyInstalled(policy, "test"));
        e.handle(new NodeAdded(new NodeSpec("n0", "r1", Resources.of(100, 1000))));
        submit(e, "fill", 0, 1);   // the node is full; everything after waits
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

    @Test
    void equalPriorityEarlierSubmitFirst() {
        Engine e = engine(new FifoPolicy());
        submit(e, "first", 1, 1);
        submit(e, "second", 1, 1);
        e.handle(new GrantReleased(new UnitId("fill", "u"), "n0", 1));
        assertEquals(1, granted(e, "first"));
        assertEquals(0, granted(e, "second"));
    }

    @Test
    void higherPriorityFirstWhateverItsAge() {
        Engine e = engine(new FifoPolicy());
        submit(e, "old-low", 1, 1);
        submit(e, "new-high", 5, 1);
        e.handle(new GrantReleased(new UnitId("fill", "u"), "n0", 1));
        assertEquals(1, granted(e, "new-high"));
        assertEquals(0, granted(e, "old-low"));
    }

    @Test
    void strictArrivalOrderIgnoresPriorityWhenConfigured() {
        Engine e = engine(new FifoPolicy(false));
        submit(e, "old-low", 1, 1);
        submit(e, "new-high", 5, 1);
        e.handle(new GrantReleased(new UnitId("fill", "u"), "n0", 1));
        assertEquals(1, granted(e, "old-low"));
        assertEquals(0, granted(e, "new-high"));
    }

    @Test
    void fifoGivesTheWholeNodeToTheFirstUnitBeforeTheNext() {
        Engine e = engine(new FifoPolicy());
        e.handle(new NodeAdded(new NodeSpec("n1", "r1", Resources.of(300, 1000))));
        submit(e, "a", 0, 0 + 3);
        assertEquals(3, granted(e, "a"));
        submit(e, "b", 0, 2);
        submit(e, "c", 0, 2);
        e.handle(new GrantReleased(new UnitId("a", "u"), "n1", 3));
        assertEquals(2, granted(e, "b"));   // b first, whole; c gets what is left
        assertEquals(1, granted(e, "c"));
    }
}

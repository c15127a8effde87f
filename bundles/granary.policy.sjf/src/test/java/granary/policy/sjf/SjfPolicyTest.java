package granary.policy.sjf;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Map;

import granary.api.event.GrantReleased;
import granary.api.event.JobSubmitted;
import granary.api.event.NodeAdded;
import granary.api.event.PolicyInstalled;
import granary.api.model.JobSpec;
import granary.api.model.ManualClock;
import granary.api.model.NodeSpec;
import granary.api.model.Resources;
import granary.api.model.UnitId;
import granary.api.model.UnitSpec;
import granary.engine.Engine;
import granary.engine.EngineOptions;

import org.junit.jupiter.api.Test;

/** The freed slot goes to the smallest waiting job, whatever the order of arrival. */
class SjfPolicyTest {

    @Test
    void theSmallestWaitingJobGetsTheFreedSlot() {
        ManualClock clock = new ManualClock(0);
        Engine e = new Engine(clock, new EngineOptions(List.of(SjfPolicy.NAME), List.of(), true));
        e.handle(new PolicyInstalled(SjfProvider.DECLARATION.create(Map.of()), "test"));
        e.handle(new NodeAdded(new NodeSpec("n1", "r1", Resources.of(100, 1000))));
        e.handle(new JobSubmitted(JobSpec.of("running", null, unit(1))));
        clock.advance(1);
        e.handle(new JobSubmitted(JobSpec.of("big", null, unit(50))));
        clock.advance(1);
        e.handle(new JobSubmitted(JobSpec.of("small", null, unit(2))));

        e.handle(new GrantReleased(UnitId.parse("running/u"), "n1", 1));

        assertEquals(1, e.view().unit(UnitId.parse("small/u")).granted(), "small (2 slots) before big (50)");
        assertEquals(0, e.view().unit(UnitId.parse("big/u")).granted());
    }

    /**
     * SJF reads no run time: a job that declares none is ordered by its size and arrival like one
     * that declares a short one, in either order of arrival (docs/policies.md, "sjf").
     */
    @Test
    void aDeclaredRunTimeChangesNothing() {
        assertEquals("undeclared", firstServed(false), "earlier, same size, no run time declared");
        assertEquals("declared", firstServed(true), "earlier, same size, 5 s declared");
    }

    /** Of two 2-slot jobs, one declaring 5 s and one declaring nothing, which gets the freed slot. */
    private static String firstServed(boolean declaredFirst) {
        ManualClock clock = new ManualClock(0);
        Engine e = new Engine(clock, new EngineOptions(List.of(SjfPolicy.NAME), List.of(), true));
        e.handle(new PolicyInstalled(SjfProvider.DECLARATION.create(Map.of()), "test"));
        e.handle(new NodeAdded(new NodeSpec("n1", "r1", Resources.of(100, 1000))));
        e.handle(new JobSubmitted(JobSpec.of("running", null, unit(1))));
        JobSpec declared = JobSpec.of("declared", null,
                UnitSpec.builder("u").slot(100, 1000).desired(2).expectedSeconds(5).build());
        JobSpec undeclared = JobSpec.of("undeclared", null, unit(2));
        for (JobSpec j : declaredFirst ? List.of(declared, undeclared) : List.of(undeclared, declared)) {
            clock.advance(1);
            e.handle(new JobSubmitted(j));
        }
        e.handle(new GrantReleased(UnitId.parse("running/u"), "n1", 1));
        int d = e.view().unit(UnitId.parse("declared/u")).granted();
        int u = e.view().unit(UnitId.parse("undeclared/u")).granted();
        assertEquals(1, d + u, "one freed slot");
        return d == 1 ? "declared" : "undeclared";
    }

    private static UnitSpec unit(int desired) {
        return UnitSpec.builder("u").slot(100, 1000).desired(desired).build();
    }
}

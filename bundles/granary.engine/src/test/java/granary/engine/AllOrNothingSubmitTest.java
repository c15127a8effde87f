package granary.engine;

import static granary.engine.Harness.unit;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import granary.api.event.JobsSubmitted;
import granary.api.model.InvalidRequestException;
import granary.api.model.JobSpec;
import granary.api.model.UnitSpec;

import org.junit.jupiter.api.Test;

/** Several jobs in one submission: all of them are accepted, or none and every problem is named. */
class AllOrNothingSubmitTest {

    private static Harness cluster() {
        Harness h = Harness.withFifo().nodes("n", "r1", 2, 400, 4096);
        h.submit("running", unit("u", 100, 512, 1));
        return h;
    }

    @Test
    void oneRefusedJobRefusesTheBatchWithEveryProblem() {
        Harness h = cluster();
        JobsSubmitted batch = new JobsSubmitted(List.of(
                JobSpec.of("a", null, unit("u", 100, 512, 2)),
                JobSpec.of("running", null, unit("v", 100, 512, 1)),
                JobSpec.of("b", null, UnitSpec.builder("u").slot(100, 512).desired(0).build()),
                JobSpec.of("a", null, unit("w", 100, 512, 1))));
        InvalidRequestException e = assertThrows(InvalidRequestException.class, () -> h.handle(batch));
        assertEquals(3, e.problems().size(), e.getMessage());
        assertTrue(e.getMessage().contains("job running: id: a job with id 'running' is already running"), e.getMessage());
        assertTrue(e.getMessage().contains("job b: units: every unit has desired 0"), e.getMessage());
        assertTrue(e.getMessage().contains("job a: id: is given more than once in this submission"), e.getMessage());
        assertEquals(1, h.engine.view().status().jobs(), "nothing of the batch was accepted");
        assertEquals(1, h.engine.view().status().grantedSlots());
    }

    @Test
    void aGoodBatchIsAcceptedWholeAndScheduledInOneCycle() {
        Harness h = cluster();
        var r = h.handle(new JobsSubmitted(List.of(JobSpec.of("a", null, unit("u", 100, 512, 2)),
                JobSpec.of("b", null, unit("u", 100, 512, 3)))));
        assertEquals(3, h.engine.view().status().jobs());
        assertEquals(2, h.granted("a/u"));
        assertEquals(3, h.granted("b/u"));
        assertEquals(5, r.outputs().stream().mapToInt(o -> ((granary.api.event.Granted) o).slots()).sum());
    }

    @Test
    void anEmptyBatchIsRefused() {
        Harness h = cluster();
        InvalidRequestException e = assertThrows(InvalidRequestException.class, () -> h.handle(new JobsSubmitted(List.of())));
        assertTrue(e.getMessage().contains("submission: jobs: holds no job"), e.getMessage());
    }
}

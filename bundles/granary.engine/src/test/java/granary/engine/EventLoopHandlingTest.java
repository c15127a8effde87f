package granary.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import granary.api.event.ClockTick;
import granary.api.event.InputEvent;
import granary.api.event.JobSubmitted;
import granary.api.event.JobsSubmitted;
import granary.api.event.NodeAdded;
import granary.api.event.NodeRemoved;
import granary.api.event.PolicyInstalled;
import granary.api.model.Clock;
import granary.api.model.InvalidRequestException;
import granary.api.model.JobSpec;
import granary.api.model.NodeSpec;
import granary.api.model.Resources;
import granary.api.spi.EngineView;
import granary.api.spi.Reason;
import granary.api.spi.ReasonCode;
import granary.api.spi.SubmitFilter;
import granary.api.spi.Verdict;

import org.junit.jupiter.api.Test;

/**
 * The live loop tells its handling listeners of every event it hands the engine, timed, accepted or
 * not, and why the engine refused one: the reason word the metrics and the console count refusals by.
 */
class EventLoopHandlingTest {

    private record Seen(InputEvent event, long nanos, String refusal) {
        boolean accepted() {
            return refusal == null;
        }
    }

    /** A submit filter that refuses every job of group "unfunded" with a reason code of its own. */
    private static final class Funding implements SubmitFilter {
        static final ReasonCode UNFUNDED = ReasonCode.of("UNFUNDED", "group not funded", null);

        @Override
        public String name() {
            return "funding";
        }

        @Override
        public Verdict check(JobSpec job, EngineView view) {
            return job.group().equals("unfunded")
                    ? Verdict.reject(Reason.of(UNFUNDED, "group " + job.group(), "no quota"))
                    : Verdict.ALLOW;
        }
    }

    @Test
    void everyEventIsReportedWithItsDurationAndWhetherItWasAccepted() throws Exception {
        List<Seen> seen = new CopyOnWriteArrayList<>();
        try (EventLoop loop = new EventLoop(new Engine(Clock.system(), EngineOptions.DEFAULTS), 60_000, "test-loop").start()) {
            AutoCloseable handle = loop.watchHandling((e, nanos, ok) -> seen.add(new Seen(e, nanos, ok)));
            NodeAdded add = new NodeAdded(new NodeSpec("n0", "r1", Resources.of(400, 4096)));
            loop.submit(add).get(5, TimeUnit.SECONDS);
            ExecutionException refused = assertThrows(ExecutionException.class,
                    () -> loop.submit(new NodeRemoved("nope", false)).get(5, TimeUnit.SECONDS));
            assertInstanceOf(granary.api.model.InvalidRequestException.class, refused.getCause());
            loop.submit(new ClockTick()).get(5, TimeUnit.SECONDS);

            assertEquals(3, seen.size());
            assertEquals(add, seen.get(0).event());
            assertTrue(seen.get(0).accepted());
            assertTrue(seen.get(0).nanos() >= 0);
            assertFalse(seen.get(1).accepted());
            assertEquals(InvalidRequestException.NOT_FOUND, seen.get(1).refusal(), "no node 'nope'");
            assertInstanceOf(ClockTick.class, seen.get(2).event());

            handle.close();
            loop.submit(new ClockTick()).get(5, TimeUnit.SECONDS);
            assertEquals(3, seen.size(), "a closed handle hears nothing more");
        }
    }

    @Test
    void aRefusedSubmissionTellsTheListenerWhy() throws Exception {
        List<Seen> seen = new CopyOnWriteArrayList<>();
        EngineOptions options = new EngineOptions(List.of("fifo", "funding"), List.of("fifo"), true);
        try (EventLoop loop = new EventLoop(new Engine(Clock.system(), options), 60_000, "test-loop").start()) {
            loop.submit(new PolicyInstalled(new Harness.ArrivalOrder("fifo"), "test")).get(5, TimeUnit.SECONDS);
            loop.submit(new PolicyInstalled(new Funding(), "test")).get(5, TimeUnit.SECONDS);
            loop.submit(new NodeAdded(new NodeSpec("n0", "r1", Resources.of(400, 4096)))).get(5, TimeUnit.SECONDS);
            loop.watchHandling((e, nanos, refusal) -> seen.add(new Seen(e, nanos, refusal)));
            JobSpec a = JobSpec.of("a", "root", Harness.unit("u", 100, 512, 1));
            loop.submit(new JobSubmitted(a)).get(5, TimeUnit.SECONDS);

            refuse(loop, new JobSubmitted(a));                                                         // its id is in use
            refuse(loop, new JobSubmitted(JobSpec.of("big", "root", Harness.unit("u", 800, 512, 1)))); // larger than every node
            refuse(loop, new JobSubmitted(JobSpec.of("b", "unfunded", Harness.unit("u", 100, 512, 1)))); // the policy's code
            refuse(loop, new JobsSubmitted(List.of(                                                    // a batch: its first refusal
                    JobSpec.of("c", "unfunded", Harness.unit("u", 100, 512, 1)),
                    JobSpec.of("a", "root", Harness.unit("u", 100, 512, 1)))));
            refuse(loop, new JobSubmitted(JobSpec.of("d", "root", Harness.unit("u", 100, 512, 0))));   // nothing to schedule

            assertEquals(java.util.Arrays.asList(null, "duplicate", "too_large", "unfunded", "unfunded", "invalid"),
                    seen.stream().map(Seen::refusal).toList());
            assertEquals(1, loop.query(v -> v.jobs().size()).get(5, TimeUnit.SECONDS), "only a was accepted");
        }
    }

    private static void refuse(EventLoop loop, InputEvent event) {
        ExecutionException e = assertThrows(ExecutionException.class, () -> loop.submit(event).get(5, TimeUnit.SECONDS));
        assertInstanceOf(InvalidRequestException.class, e.getCause());
    }

    @Test
    void aListenerThatThrowsDoesNotTouchScheduling() throws Exception {
        try (EventLoop loop = new EventLoop(new Engine(Clock.system(), EngineOptions.DEFAULTS), 60_000, "test-loop").start()) {
            loop.watchHandling((e, nanos, ok) -> {
                throw new IllegalStateException("broken monitor");
            });
            loop.submit(new NodeAdded(new NodeSpec("n0", "r1", Resources.of(400, 4096)))).get(5, TimeUnit.SECONDS);
            assertEquals(1, loop.query(v -> v.status().nodes()).get(5, TimeUnit.SECONDS));
        }
    }

    @Test
    void idleTicksAreReportedToo() throws Exception {
        List<InputEvent> seen = new CopyOnWriteArrayList<>();
        try (EventLoop loop = new EventLoop(new Engine(Clock.system(), EngineOptions.DEFAULTS), 10, "test-loop")) {
            loop.watchHandling((e, nanos, ok) -> seen.add(e));
            loop.start();
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (seen.isEmpty() && System.nanoTime() < until) {
                Thread.sleep(5);
            }
            assertFalse(seen.isEmpty());
            assertInstanceOf(ClockTick.class, seen.get(0));
        }
    }
}

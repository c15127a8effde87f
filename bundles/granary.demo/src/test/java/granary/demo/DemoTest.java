package granary.demo;

import static granary.testkit.LiveEngine.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;

import granary.api.model.JobSpec;
import granary.api.model.NodeSpec;
import granary.api.model.Resources;
import granary.api.model.UnitSpec;
import granary.api.event.JobCancelled;
import granary.api.event.JobSubmitted;
import granary.api.event.NodeAdded;
import granary.policy.fifo.FifoPolicy;
import granary.testkit.LiveEngine;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The demo driving a real engine and event loop with the FIFO policy; no mocks. */
class DemoTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    private final LiveEngine live = new LiveEngine(List.of("fifo"), List.of("fifo", "fair"), new FifoPolicy());
    private Demo demo;

    @AfterEach
    void tearDown() {
        if (demo != null) {
            demo.stop();
        }
        live.close();
    }

    /** 1 room × 4 small nodes, fast arrivals and short tasks. */
    private static DemoSettings small(int cap, long minTask, long maxTask) {
        return new DemoSettings(1, 4, 800, 16_384, 200, cap, minTask, maxTask, 4, List.of("root.batch", "root.service"),
                7, "demo");
    }

    private Demo start(DemoSettings s) {
        demo = new Demo(live.loop, s);
        demo.start();
        return demo;
    }

    @Test
    void jobsStartAndFinish() {
        start(small(5, 5, 30));
        await("200 slots released", () -> demo.counters().slotsReleased() >= 200, demo::counters, TIMEOUT);
        assertEquals(0, demo.counters().failures(), () -> "failures, last: " + demo.lastFailure());
        assertEquals(4, live.status().nodes());
        assertTrue(demo.counters().slotsGranted() >= demo.counters().slotsReleased());
        live.checkInvariants();
    }

    @Test
    void theDefaultClusterHas200NodesOf64Cores() {
        start(DemoSettings.DEFAULTS);
        await("200 nodes and a grant", () -> live.status().nodes() == 200 && demo.counters().slotsGranted() > 0,
                live::status, TIMEOUT);
        assertEquals(Resources.of(200 * 6400L, 200 * 262_144L), live.status().capacity());
        assertNull(demo.lastFailure());
    }

    @Test
    void runningJobsStayUnderTheCap() {
        start(small(3, 3_600_000, 3_600_000));   // tasks never end within the test
        await("arrivals held back by the cap", () -> demo.counters().arrivalsCapped() >= 10, demo::counters, TIMEOUT);
        assertEquals(3, demo.counters().jobsSubmitted());
        assertEquals(List.of("demo-1", "demo-2", "demo-3"), live.jobIds());
    }

    @Test
    void stopCancelsOnlyItsJobsAndRemovesOnlyItsNodes() {
        live.submit(new NodeAdded(new NodeSpec("other", "elsewhere", Resources.of(400, 4096))));
        live.submit(new JobSubmitted(JobSpec.of("mine", "root.batch",
                UnitSpec.builder("u").slot(100, 1024).desired(2).build())));
        start(small(3, 3_600_000, 3_600_000));
        await("three demo jobs", () -> demo.counters().jobsSubmitted() == 3, demo::counters, TIMEOUT);

        demo.stop();

        assertTrue(demo.terminated(), "the demo thread has ended");
        assertEquals(List.of("mine"), live.jobIds());
        assertEquals(1, live.status().nodes());
        assertEquals(2, live.status().grantedSlots());
        live.checkInvariants();
    }

    @Test
    void releasesOfCancelledJobsAreIgnored() {
        start(small(2, 1_000, 1_000));
        // cancel the demo's jobs until one of them had a release pending (robust on a slow machine)
        await("an ignored release", () -> {
            live.jobIds().forEach(job -> live.submitQuietly(new JobCancelled(job)));
            return demo.counters().releasesIgnored() > 0;
        }, demo::counters, TIMEOUT);
        await("the demo goes on", () -> demo.counters().slotsReleased() > 0, demo::counters, TIMEOUT);
        assertEquals(0, demo.counters().failures(), () -> "failures, last: " + demo.lastFailure());
    }

    @Test
    void noJobsAtRateZero() {
        DemoSettings quiet = new DemoSettings(2, 3, 800, 16_384, 0, 5, 1, 1, 1, List.of("g"), 1, "demo");
        start(quiet);
        await("6 nodes", () -> live.status().nodes() == 6, live::status, TIMEOUT);
        assertEquals(List.of(), live.jobIds());
    }
}

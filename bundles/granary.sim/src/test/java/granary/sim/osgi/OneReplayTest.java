package granary.sim.osgi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import granary.sim.cli.Runner;
import granary.sim.run.ClassPathPolicies;
import granary.sim.run.Progress;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** granary:sim's rules without OSGi: its own thread, one replay at a time, cancel, Ctrl-C, the limits. */
@Timeout(30)
class OneReplayTest {

    private final CountDownLatch started = new CountDownLatch(1);
    private final CountDownLatch interrupted = new CountDownLatch(1);
    private final AtomicReference<Thread> ranOn = new AtomicReference<>();
    private final AtomicReference<Long> units = new AtomicReference<>();

    /** "quick" returns at once; anything else runs until interrupted, as a replay checks between events. */
    private final OneReplay replay = new OneReplay((args, maxUnits, option) -> {
        ranOn.set(Thread.currentThread());
        units.set(maxUnits);
        if (args.contains("quick")) {
            return new Runner.Outcome(0, "done\n");
        }
        started.countDown();
        try {
            // a replay that runs until it is interrupted (bounded: a stuck test ends after a minute)
            new CountDownLatch(1).await(60, TimeUnit.SECONDS);
            return new Runner.Outcome(0, "not interrupted\n");
        } catch (InterruptedException e) {
            interrupted.countDown();
            return new Runner.Outcome(1, "replay cancelled");
        }
    });

    /** Runs {@code granary:sim ARGS} on a console thread of its own; its error, once it ends, in {@code error}. */
    private Thread console(AtomicReference<String> error, String... args) {
        Thread t = new Thread(() -> {
            try {
                replay.sim(List.of(args));
            } catch (IllegalArgumentException e) {
                error.set(e.getMessage());
            }
        }, "console");
        t.start();
        return t;
    }

    private void awaitIdle() throws InterruptedException {
        for (int i = 0; i < 500 && replay.busy(); i++) {
            Thread.sleep(10);
        }
        assertFalse(replay.busy());
    }

    @Test
    void aFinishedReplayPrintsItsResultAndRanOnAnotherThreadWithTheDefaultLimit() {
        assertEquals("done\n", replay.sim(List.of("quick")));
        assertNotSame(Thread.currentThread(), ranOn.get());
        assertEquals(OneReplay.DEFAULT_MAX_UNITS, units.get());
        assertEquals("done\n", replay.sim(List.of("--max-units", "5", "quick")));
        assertEquals(5L, units.get());
    }

    @Test
    void oneAtATimeAndCancelStopsTheRunningOne() throws InterruptedException {
        AtomicReference<String> first = new AtomicReference<>();
        Thread c = console(first, "--trace", "swf:log.swf");
        assertTrue(started.await(10, TimeUnit.SECONDS));
        String second = assertThrows(IllegalArgumentException.class, () -> replay.sim(List.of("quick"))).getMessage();
        assertTrue(second.startsWith("granary:sim: a replay is already running (started "), second);
        assertTrue(second.endsWith(": --trace swf:log.swf); one at a time: wait for it, or stop it with granary:sim --cancel"), second);
        String cancelled = replay.sim(List.of("--cancel"));
        assertTrue(cancelled.startsWith("cancelled the replay started ") && cancelled.endsWith(": --trace swf:log.swf\n"), cancelled);
        assertTrue(interrupted.await(10, TimeUnit.SECONDS), "the replay's thread was interrupted");
        c.join(10_000);
        assertEquals("granary:sim: cancelled by granary:sim --cancel", first.get());
        awaitIdle();
        assertEquals("done\n", replay.sim(List.of("quick")), "the next replay may start");
    }

    @Test
    void anInterruptOfTheConsoleThreadStopsTheReplay() throws InterruptedException {
        AtomicReference<String> error = new AtomicReference<>();
        Thread c = console(error, "--trace", "x");
        assertTrue(started.await(10, TimeUnit.SECONDS));
        c.interrupt();   // Ctrl-C
        assertTrue(interrupted.await(10, TimeUnit.SECONDS));
        c.join(10_000);
        assertEquals("granary:sim: cancelled (the console was interrupted)", error.get());
        awaitIdle();
    }

    @Test
    void theWallClockLimitStopsTheReplay() throws InterruptedException {
        String e = assertThrows(IllegalArgumentException.class,
                () -> replay.sim(List.of("--wall-limit-seconds", "1", "--trace", "x"))).getMessage();
        assertEquals("granary:sim: stopped after the wall-clock limit of 1 s (--wall-limit-seconds); replay part of the trace "
                + "(--max-jobs, --until-seconds) or raise the limit", e);
        assertTrue(interrupted.await(10, TimeUnit.SECONDS));
        awaitIdle();
    }

    @Test
    void badUsesAreRefused() {
        assertEquals("granary:sim --cancel: no replay is running",
                assertThrows(IllegalArgumentException.class, () -> replay.sim(List.of("--cancel"))).getMessage());
        assertEquals("--wall-limit-seconds: must be a whole number within 1..86,400, got '0'",
                assertThrows(IllegalArgumentException.class, () -> replay.sim(List.of("--wall-limit-seconds", "0"))).getMessage());
        assertEquals("--max-units: must be a whole number within 1..10,000,000, got 'lots'",
                assertThrows(IllegalArgumentException.class, () -> replay.sim(List.of("--max-units", "lots"))).getMessage());
    }

    @Test
    void aWorkloadAboveTheUnitLimitIsRefusedUpFront() {
        Runner.Outcome o = Runner.run(List.of("--trace", "json:examples/workload.json"), new ClassPathPolicies(), Progress.NONE,
                1, "--max-units");
        assertEquals(2, o.exit());
        assertTrue(o.text().matches("examples/workload.json: \\d+ units to replay, more than the limit of 1 \\(--max-units\\); "
                + "replay part of it with --max-jobs N or --until-seconds S"), o.text());
    }
}

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
import granary.api.event.NodeAdded;
import granary.api.event.NodeRemoved;
import granary.api.model.Clock;
import granary.api.model.NodeSpec;
import granary.api.model.Resources;

import org.junit.jupiter.api.Test;

/** The live loop tells its handling listeners of every event it hands the engine, timed, accepted or not. */
class EventLoopHandlingTest {

    private record Seen(InputEvent event, long nanos, boolean accepted) {
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
            assertInstanceOf(ClockTick.class, seen.get(2).event());

            handle.close();
            loop.submit(new ClockTick()).get(5, TimeUnit.SECONDS);
            assertEquals(3, seen.size(), "a closed handle hears nothing more");
        }
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

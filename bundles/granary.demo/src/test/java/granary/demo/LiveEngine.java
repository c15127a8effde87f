package granary.demo;

import static org.junit.jupiter.api.Assertions.fail;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import java.util.function.Supplier;

import granary.api.model.Clock;
import granary.api.spi.EngineStatus;
import granary.api.event.InputEvent;
import granary.api.event.PolicyInstalled;
import granary.api.spi.EngineView;
import granary.engine.Engine;
import granary.engine.EngineOptions;
import granary.engine.EventLoop;
import granary.policy.fifo.FifoPolicy;

/**
 * A real engine in strict mode (invariants checked after every event) behind a real event loop,
 * with the FIFO policy installed: what the demo meets in a runtime, minus OSGi.
 */
final class LiveEngine implements AutoCloseable {

    final Engine engine = new Engine(Clock.system(), new EngineOptions(List.of("fifo"), List.of("fifo", "fair"), true));
    final EventLoop loop = new EventLoop(engine, 1000, "test-engine").start();

    LiveEngine() {
        submit(new PolicyInstalled(new FifoPolicy(), "test"));
    }

    void submit(InputEvent e) {
        get(loop.submit(e));
    }

    /** Submits and waits, ignoring a refusal (e.g. the job ended meanwhile). */
    void submitQuietly(InputEvent e) {
        try {
            loop.submit(e).get(10, TimeUnit.SECONDS);
        } catch (Exception ignored) {
            // refused or raced: fine for the caller
        }
    }

    <T> T query(Function<? super EngineView, T> q) {
        return get(loop.query(q));
    }

    EngineStatus status() {
        return query(EngineView::status);
    }

    List<String> jobIds() {
        return query(v -> v.jobs().stream().map(j -> j.id()).sorted().toList());
    }

    void checkInvariants() {
        get(loop.call(e -> {
            e.checkInvariants();
            return null;
        }));
    }

    private static <T> T get(java.util.concurrent.CompletableFuture<T> f) {
        try {
            return f.get(10, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    @Override
    public void close() {
        loop.close();
    }

    /** Polls {@code done} until it holds or the deadline passes; the message shows the last observed state. */
    static void await(String what, BooleanSupplier done, Supplier<?> state, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!done.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                fail("not within " + timeout.toSeconds() + " s: " + what + "; last state: " + state.get());
            }
            try {
                Thread.sleep(10);   // the demo runs on real time (its own executor): polled with a deadline
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                fail("interrupted while waiting for " + what);
            }
        }
    }
}

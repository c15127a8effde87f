package granary.testkit;

import static org.junit.jupiter.api.Assertions.fail;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import java.util.function.Supplier;

import granary.api.event.InputEvent;
import granary.api.event.PolicyInstalled;
import granary.api.model.Clock;
import granary.api.spi.EngineStatus;
import granary.api.spi.EngineView;
import granary.api.spi.JobView;
import granary.api.spi.Policy;
import granary.engine.Engine;
import granary.engine.EngineOptions;
import granary.engine.EventLoop;

/**
 * A real engine in strict mode behind a real {@link EventLoop}, on the system clock: what a client
 * meets in a runtime, minus OSGi. Every wait is bounded ({@link #TIMEOUT}).
 */
public final class LiveEngine implements AutoCloseable {

    /** The bound of every wait. */
    public static final Duration TIMEOUT = Duration.ofSeconds(10);

    public final Engine engine;
    public final EventLoop loop;

    /** An engine with this selection and fallback, the given policies installed, its loop started. */
    public LiveEngine(List<String> selection, List<String> fallback, Policy... policies) {
        engine = new Engine(Clock.system(), new EngineOptions(selection, fallback, true));
        loop = new EventLoop(engine, 1000, "test-engine").start();
        for (Policy p : policies) {
            submit(new PolicyInstalled(p, "test"));
        }
    }

    /** Submits and waits for the receipt; a refusal fails the test. */
    public void submit(InputEvent e) {
        get(loop.submit(e));
    }

    /** Submits and waits, ignoring a refusal (e.g. the job ended meanwhile). */
    public void submitQuietly(InputEvent e) {
        try {
            loop.submit(e).get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (Exception ignored) {
            // refused or raced: fine for the caller
        }
    }

    public <T> T query(Function<? super EngineView, T> q) {
        return get(loop.query(q));
    }

    public EngineStatus status() {
        return query(EngineView::status);
    }

    public List<String> jobIds() {
        return query(v -> v.jobs().stream().map(JobView::id).sorted().toList());
    }

    public void checkInvariants() {
        get(loop.call(e -> {
            e.checkInvariants();
            return null;
        }));
    }

    private static <T> T get(CompletableFuture<T> f) {
        try {
            return f.get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    @Override
    public void close() {
        loop.close();
    }

    /** Polls {@code done} until it holds or the deadline passes; the message shows the last observed state. */
    public static void await(String what, BooleanSupplier done, Supplier<?> state, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!done.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                fail("not within " + timeout.toSeconds() + " s: " + what + "; last state: " + state.get());
            }
            try {
                Thread.sleep(10);   // real time (the loop's own thread): polled with a deadline
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                fail("interrupted while waiting for " + what);
            }
        }
    }
}

package granary.conformance;

import granary.api.event.InputEvent;
import granary.api.event.OutputEvent;
import granary.api.event.Receipt;
import granary.api.event.Scheduler;
import granary.engine.Engine;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * The engine as a {@link Scheduler} that runs every event and query on the caller's thread, at
 * once: the world is single-threaded, so what happens depends only on the seed.
 */
final class DirectScheduler implements Scheduler {

    private final Engine engine;
    private final Consumer<String> trace;

    DirectScheduler(Engine engine, Consumer<String> trace) {
        this.engine = engine;
        this.trace = trace;
    }

    @Override
    public CompletableFuture<Receipt> submit(InputEvent event) {
        try {
            return CompletableFuture.completedFuture(handle(event));
        } catch (RuntimeException ex) {
            return CompletableFuture.failedFuture(ex);
        }
    }

    private Receipt handle(InputEvent event) {
        try {
            Receipt r = engine.handle(event);
            trace.accept(event.toString());
            return r;
        } catch (RuntimeException ex) {
            trace.accept(event + " REFUSED: " + ex.getMessage());
            throw ex;
        }
    }

    @Override
    public <T> CompletableFuture<T> query(Function<? super granary.api.spi.EngineView, T> query) {
        try {
            return CompletableFuture.completedFuture(query.apply(engine.view()));
        } catch (RuntimeException ex) {
            return CompletableFuture.failedFuture(ex);
        }
    }

    @Override
    public <T> CompletableFuture<T> onEngine(Function<? super granary.api.event.EngineAccess, T> work) {
        try {
            return CompletableFuture.completedFuture(work.apply(access));
        } catch (RuntimeException ex) {
            return CompletableFuture.failedFuture(ex);
        }
    }

    /** Events applied at once, traced as {@link #submit} traces them. */
    private final granary.api.event.EngineAccess access = new granary.api.event.EngineAccess() {
        @Override
        public Receipt apply(InputEvent event) {
            return handle(event);
        }

        @Override
        public granary.api.spi.EngineView view() {
            return engine.view();
        }
    };

    @Override
    public AutoCloseable subscribe(Consumer<? super OutputEvent> listener) {
        engine.subscribe(listener);
        return () -> engine.unsubscribe(listener);
    }
}

package granary.engine;

import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * Runs work on the thread that owns a live {@link Engine}: what a tool that must stand beside the
 * live engine (a shadow canary, docs/canary.md) needs, and no more. The runtime's engine component
 * registers its event loop as this service, beside the {@code Scheduler}.
 */
public interface EngineHost {

    /** Runs {@code work} on the engine thread, between two events; completes with its result. */
    <T> CompletableFuture<T> call(Function<Engine, T> work);
}

package granary.engine;

import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

import org.osgi.annotation.versioning.ProviderType;

/**
 * Runs work on the thread that owns a live {@link Engine}: what a tool that must stand beside the
 * live engine (a shadow canary, docs/canary.md) needs, and no more. The runtime's engine component
 * registers its event loop as this service, beside the {@code Scheduler}. Implemented by
 * {@link EventLoop} only.
 */
@ProviderType
public interface EngineHost {

    /** Runs {@code work} on the engine thread, between two events; completes with its result. */
    <T> CompletableFuture<T> call(Function<Engine, T> work);

    /**
     * Adds a listener told of every input event the loop hands the engine and how long handling it
     * took (see {@link HandlingListener}); closing the handle removes it.
     */
    AutoCloseable watchHandling(HandlingListener listener);
}

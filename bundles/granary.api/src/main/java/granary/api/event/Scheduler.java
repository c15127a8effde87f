package granary.api.event;

import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.function.Function;

import granary.api.event.InputEvent;
import granary.api.event.OutputEvent;
import granary.api.spi.EngineView;

import org.osgi.annotation.versioning.ProviderType;

/**
 * The scheduler of a live runtime, as an OSGi service: a single-threaded event loop around the
 * engine. Every call may come from any thread.
 */
@ProviderType
public interface Scheduler {

    /**
     * Queues an input event. The future completes after the event was applied and its scheduling
     * cycle ran, or exceptionally with {@link InvalidRequestException} if it was refused (nothing
     * changed then).
     */
    CompletableFuture<Receipt> submit(InputEvent event);

    /** Runs a read-only query on the engine thread, between two decisions. */
    <T> CompletableFuture<T> query(Function<? super EngineView, T> query);

    /**
     * Runs {@code work} on the engine thread, between two events, with the engine at hand: what it
     * applies takes effect at once and in order, with no other event between. For a component whose
     * own single-threaded state machine shares the engine's thread (the protocol master,
     * docs/architecture.md "The master's loop"): it reads and changes the engine without waiting.
     * On the engine thread itself (a task, a subscriber) it runs at once. The future completes with
     * what {@code work} returns, or exceptionally with what it threw.
     */
    <T> CompletableFuture<T> onEngine(Function<? super EngineAccess, T> work);

    /**
     * Delivers every grant and revocation, in decision order, on the engine thread; the listener
     * must not block. Closing the handle unsubscribes.
     */
    AutoCloseable subscribe(Consumer<? super OutputEvent> listener);
}

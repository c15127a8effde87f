package granary.api.event;

import granary.api.spi.EngineView;
import org.osgi.annotation.versioning.ProviderType;

/**
 * The engine as a task on its own thread sees it (see {@link Scheduler#onEngine}): an event applied
 * here takes effect at once, its scheduling cycle runs and its outputs reach the subscribers before
 * {@link #apply} returns — or, inside {@link #batch}, once for the whole batch when it ends. Valid
 * only inside the task it was given to, on the engine thread.
 */
@ProviderType
public interface EngineAccess {

    /**
     * Applies {@code event} and runs its cycle; {@link granary.api.model.InvalidRequestException}
     * if it is refused (nothing changed then).
     */
    Receipt apply(InputEvent event);

    /** The engine's state now, read-only. */
    EngineView view();

    /**
     * Runs {@code work}, whose events are validated and applied at once (a refused one throws, as
     * ever), with one scheduling cycle for all of them when it ends instead of one per event: what
     * many small inputs (a round of heartbeats' releases) decide together, with their outputs at the
     * end (docs/architecture.md, "The master's loop"). Within a batch, {@link #view} shows the
     * applied events without the grants of their cycle yet. Nested, the outer batch's end runs the
     * cycle. An engine that cannot batch runs each event's cycle at once.
     */
    default void batch(Runnable work) {
        work.run();
    }
}

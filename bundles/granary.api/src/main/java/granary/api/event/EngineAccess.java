package granary.api.event;

import granary.api.spi.EngineView;
import org.osgi.annotation.versioning.ProviderType;

/**
 * The engine as a task on its own thread sees it (see {@link Scheduler#onEngine}): an event applied
 * here takes effect at once, its scheduling cycle runs and its outputs reach the subscribers before
 * {@link #apply} returns. Valid only inside the task it was given to, on the engine thread.
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
}

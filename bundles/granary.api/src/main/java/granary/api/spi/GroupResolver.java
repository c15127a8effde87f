package granary.api.spi;

import org.osgi.annotation.versioning.ConsumerType;

/**
 * Extension point {@code group-resolver} (exclusive): turns the group a job names at submission (or
 * a move) into the full name of the group queue it waits in. The engine's built-in {@code flat}
 * resolver takes names as they are; a queue tree resolves short names to full paths.
 *
 * <p>Called on the engine thread before a job is accepted or moved; the job's group is replaced by
 * the answer. Throw {@link granary.api.model.InvalidRequestException} to refuse (an unknown or ambiguous
 * name); nothing changes then.
 */
@ConsumerType
public interface GroupResolver extends Policy {

    /** The full group name for {@code requested}. */
    String resolve(String requested, EngineView view);
}

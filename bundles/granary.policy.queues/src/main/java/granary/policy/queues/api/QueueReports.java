package granary.policy.queues.api;

import java.util.List;

import granary.api.spi.EngineView;

import org.osgi.annotation.versioning.ConsumerType;

/**
 * Implemented by a queue policy so that the console and the HTTP API can read the tree (through
 * {@link EngineView#policy}). Called on the engine thread.
 */
@ConsumerType
public interface QueueReports {

    /** Every queue, root first, parents before children. */
    List<QueueRow> queues(EngineView view);

    /** The tree in force, or null. */
    QueueTree tree();
}

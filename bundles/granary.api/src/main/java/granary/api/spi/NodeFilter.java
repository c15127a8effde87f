package granary.api.spi;

import java.util.Set;

import granary.api.model.UnitId;

import org.osgi.annotation.versioning.ConsumerType;

/**
 * Extension point {@code node-filter} (composable): whether a unit may use a node now (reservation
 * locks, partitions). Blacklists, labels, locality and per-node limits are the engine's own checks
 * and need no filter.
 *
 * <p>Called on the engine thread on the decision path. A unit may use a node only if every active
 * filter allows it.
 */
@ConsumerType
public interface NodeFilter extends Policy {

    /** {@code ALLOW} or {@code WAIT} with the reason. */
    Verdict filter(UnitView unit, NodeView node);

    /**
     * If only some units may use this node (a locked node), those units; otherwise null. Lets the
     * engine serve a locked node without searching the queues. Must agree with {@link #filter}.
     */
    default Set<UnitId> reservedFor(NodeView node) {
        return null;
    }
}

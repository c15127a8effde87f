package granary.api.spi;

import org.osgi.annotation.versioning.ConsumerType;

/**
 * Extension point {@code group-order} (exclusive): the order in which group queues are served when
 * resources are free. The engine's built-in {@code hunger} order serves the group with the lowest
 * used share first (docs/scheduling.md, "Passive scheduling").
 *
 * <p>Called on the engine thread for each free node; groups without waiting units are not asked.
 */
@ConsumerType
public interface GroupOrder extends Policy {

    /** Negative if group {@code a} is served first. Ties are broken by group name. */
    int compare(GroupView a, GroupView b, EngineView view);
}

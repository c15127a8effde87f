package granary.api.event;

import granary.api.model.NodeSpec;

/**
 * A node joins the cluster. Its name must be new. With {@code blacklisted} it joins on the global
 * blacklist, so that nothing is granted there before the caller adopted what already runs on it
 * (a master taking back an agent that returned after its recovery window, docs/recovery.md).
 */
public record NodeAdded(NodeSpec node, boolean blacklisted) implements InputEvent {

    /** A node that takes work at once. */
    public NodeAdded(NodeSpec node) {
        this(node, false);
    }
}

package granary.api.event;

import granary.api.model.NodeSpec;

/** A node joins the cluster. Its name must be new. */
public record NodeAdded(NodeSpec node) implements InputEvent {
}

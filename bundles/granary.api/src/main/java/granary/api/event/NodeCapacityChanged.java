package granary.api.event;

import granary.api.model.Resources;

/**
 * A node's capacity changes. If the new capacity is below what is granted there, offline grants are
 * revoked (newest first) until it fits; if online grants alone exceed it, the change is refused.
 */
public record NodeCapacityChanged(String node, Resources capacity) implements InputEvent {
}

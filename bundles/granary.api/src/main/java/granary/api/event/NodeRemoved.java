package granary.api.event;

/**
 * A node leaves the cluster. Its offline grants are revoked and their slots wait again. A node that
 * holds online grants is only removed with {@code force} (an operator's decision): the master never
 * revokes online work on its own.
 */
public record NodeRemoved(String node, boolean force) implements InputEvent {
}

package granary.api.event;

/**
 * An operator selects a policy: it becomes active at each of its extension points, replacing the
 * selected policy of every exclusive point it shares.
 */
public record PolicyActivated(String name) implements InputEvent {
}

package granary.api.event;

/** An operator deselects a policy. On an exclusive point the fallback order then decides. */
public record PolicyDeactivated(String name) implements InputEvent {
}

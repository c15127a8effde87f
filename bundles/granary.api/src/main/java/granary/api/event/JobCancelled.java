package granary.api.event;

/** A job is withdrawn with all its units; its grants are released. */
public record JobCancelled(String job) implements InputEvent {
}

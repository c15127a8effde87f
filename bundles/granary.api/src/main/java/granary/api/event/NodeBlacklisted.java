package granary.api.event;

/** An operator puts a node on, or takes it off, the global blacklist. Running grants stay. */
public record NodeBlacklisted(String node, boolean blacklisted) implements InputEvent {
}

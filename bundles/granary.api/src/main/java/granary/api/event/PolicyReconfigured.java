package granary.api.event;

/**
 * Hands new settings to an installed policy (e.g. a new quota table) between two decisions. The
 * policy must implement {@link granary.api.spi.Reconfigurable}; if it refuses the settings, nothing
 * changes.
 */
public record PolicyReconfigured(String policy, Object settings) implements InputEvent {
}

package granary.api.event;

import granary.api.spi.Policy;

/** A policy implementation went away (its bundle stopped or is being updated). */
public record PolicyUninstalled(Policy policy) implements InputEvent {
}

package granary.api.event;

import granary.api.spi.Policy;

/**
 * A policy implementation became available (a bundle started, or a simulator set it up).
 * {@code origin} says where it comes from, e.g. {@code granary.policy.fifo 0.1.0}.
 */
public record PolicyInstalled(Policy policy, String origin) implements InputEvent {
}

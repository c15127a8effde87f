package granary.api.event;

/** Time passed: runs a scheduling cycle so that time-driven policies (windows, timeouts) act. */
public record ClockTick() implements InputEvent {
}

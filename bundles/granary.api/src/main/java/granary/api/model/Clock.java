package granary.api.model;

/**
 * The engine's time source, injectable so that the simulator and tests drive virtual time and a
 * live runtime uses the wall clock. Millisecond resolution.
 */
@FunctionalInterface
public interface Clock {

    /** Current time in milliseconds since the epoch (or since the start of a simulation). */
    long millis();

    /** The system wall clock. */
    static Clock system() {
        return System::currentTimeMillis;
    }
}

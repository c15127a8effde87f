package granary.api.model;

/** A clock that moves only when told to: for tests and the simulator. Not thread-safe by design. */
public final class ManualClock implements Clock {

    private long now;

    public ManualClock(long start) {
        this.now = start;
    }

    @Override
    public long millis() {
        return now;
    }

    /** Moves time forward; time never goes back. */
    public void advance(long ms) {
        if (ms < 0) {
            throw new IllegalArgumentException("clock: cannot move back by " + ms + " ms");
        }
        now += ms;
    }

    /** Sets the time; it must not be earlier than now. */
    public void set(long ms) {
        if (ms < now) {
            throw new IllegalArgumentException("clock: cannot move back from " + now + " to " + ms);
        }
        now = ms;
    }
}

package granary.testkit;

import java.time.Instant;

import granary.api.model.ManualClock;

/** Manual clocks for tests: time moves only when the test moves it, so every run is the same. */
public final class Clocks {

    public static final long SECOND = 1_000;
    public static final long MINUTE = 60 * SECOND;
    public static final long HOUR = 60 * MINUTE;

    /** Where {@link #manual()} starts: an arbitrary instant, far enough from 0 that "t - wait" stays positive. */
    public static final long START = 1_000_000;

    /** Midnight UTC of a Monday (2026-11-02), for policies that read the time of day. */
    public static final long MIDNIGHT = Instant.parse("2026-11-02T00:00:00Z").toEpochMilli();

    private Clocks() {
    }

    /** A manual clock at {@link #START}. */
    public static ManualClock manual() {
        return new ManualClock(START);
    }

    /** A manual clock at {@code millis}. */
    public static ManualClock at(long millis) {
        return new ManualClock(millis);
    }

    /** A manual clock at an ISO-8601 instant, e.g. {@code 2026-11-02T08:00:00Z}. */
    public static ManualClock at(String instant) {
        return new ManualClock(Instant.parse(instant).toEpochMilli());
    }

    /** A manual clock at midnight UTC ({@link #MIDNIGHT}). */
    public static ManualClock midnight() {
        return new ManualClock(MIDNIGHT);
    }
}

package granary.planner.table.model;

import granary.policy.quota.api.TimeSlice;

/**
 * Hour arithmetic of the day's 24 hours, where a slice may wrap past midnight ({@code 22-6}). The
 * editor works with hours that are not yet wrapped — a drag that starts at 22 and ends past the
 * right edge at 26 means 22-2 — and these methods turn them into the {@link TimeSlice} the format
 * can say. A slice is never empty; a whole day can only be written {@code 0-24}, so a 24-hour span
 * that does not start at 0 is cut to 23 hours.
 */
public final class Hours {

    public static final int DAY = 24;

    private Hours() {
    }

    /** How many hours a range slice covers (1-24). */
    public static int length(TimeSlice s) {
        if (s.isDefault()) {
            throw new IllegalArgumentException("the default slice has no hours of its own");
        }
        return s.to() > s.from() ? s.to() - s.from() : s.to() + DAY - s.from();
    }

    /** The slice of {@code length} hours (clamped to 1-24) starting at {@code from} (any whole hour, wrapped into the day). */
    public static TimeSlice range(int from, int length) {
        int f = Math.floorMod(from, DAY);
        int len = Math.max(1, Math.min(length, f == 0 ? DAY : DAY - 1));
        int to = f + len;
        return new TimeSlice(f, to > DAY ? to - DAY : to);
    }

    /** The slice from hour {@code a} to hour {@code b} (exclusive) in either order, not yet wrapped: (22, 26) is 22-2. */
    public static TimeSlice between(int a, int b) {
        return range(Math.min(a, b), Math.abs(b - a));
    }

    /** The slice with its end moved by {@code delta} hours, its start kept. */
    public static TimeSlice moveEnd(TimeSlice s, int delta) {
        return range(s.from(), length(s) + delta);
    }

    /** The slice with its start moved by {@code delta} hours, its end kept. */
    public static TimeSlice moveStart(TimeSlice s, int delta) {
        int end = s.to();
        int len = Math.max(1, Math.min(length(s) - delta, end == DAY ? DAY : DAY - 1));
        return range(end - len, len);
    }
}

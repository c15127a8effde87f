package granary.policy.quota.api;

import granary.api.model.InvalidRequestException;
import granary.api.model.Text;

/**
 * A time slice of the quota table: {@code default}, or hours {@code from-to} of the day —
 * {@code "0-9"} is 00:00 to 09:00 (hour 9 excluded). A range may wrap past midnight: {@code "22-6"}.
 */
public record TimeSlice(int from, int to) {

    /** The slice of every hour no other slice covers. */
    public static final TimeSlice DEFAULT = new TimeSlice(-1, -1);

    public TimeSlice {
        if (!(from == -1 && to == -1) && (from < 0 || from > 23 || to < 1 || to > 24 || from == to)) {
            throw new InvalidRequestException("slice " + from + "-" + to, "hours",
                    "hours must be 0 <= from <= 23, 1 <= to <= 24, from != to; got " + from + "-" + to);
        }
    }

    /** Parses a table key: {@code default} or {@code from-to}. */
    public static TimeSlice parse(String key) {
        if ("default".equals(key)) {
            return DEFAULT;
        }
        String[] parts = key == null ? new String[0] : key.split("-", -1);
        if (parts.length != 2) {
            throw new InvalidRequestException("slice '" + Text.escape(key) + "'", "key",
                    "is neither 'default' nor an hour range 'from-to' such as '0-9'");
        }
        try {
            return new TimeSlice(Integer.parseInt(parts[0].trim()), Integer.parseInt(parts[1].trim()));
        } catch (NumberFormatException e) {
            throw new InvalidRequestException("slice '" + Text.escape(key) + "'", "key",
                    "hours must be whole numbers, as in '0-9', got '" + Text.escape(key) + "'");
        }
    }

    public boolean isDefault() {
        return from == -1;
    }

    /** True if the slice covers {@code hour} (0-23); the default slice covers none by itself. */
    public boolean covers(int hour) {
        if (isDefault()) {
            return false;
        }
        return from < to ? hour >= from && hour < to : hour >= from || hour < to;
    }

    /** The hours covered, as bits 0-23. */
    public int hourBits() {
        int bits = 0;
        for (int h = 0; h < 24; h++) {
            if (covers(h)) {
                bits |= 1 << h;
            }
        }
        return bits;
    }

    /** The table key. */
    @Override
    public String toString() {
        return isDefault() ? "default" : from + "-" + to;
    }
}

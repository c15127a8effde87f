package granary.policy.queues.api;

import java.util.Locale;

import granary.api.model.InvalidRequestException;
import granary.api.model.Resources;
import granary.api.model.Text;

/**
 * A queue's capacity: an absolute resource vector, or a fraction of its parent's (so that it follows
 * the cluster as it grows). Text forms: {@code "40%"}, {@code 0.4}, or {@code cpu=4000,mem=16384}.
 */
public record Capacity(Resources absolute, double fraction) {

    /** All of the parent. */
    public static final Capacity ALL = new Capacity(null, 1.0);

    public Capacity {
        if (absolute == null && (fraction < 0 || fraction > 1 || Double.isNaN(fraction))) {
            throw new InvalidRequestException("capacity", "fraction", "must be between 0% and 100%, got "
                    + String.format(Locale.ROOT, "%.4g%%", fraction * 100));
        }
        if (absolute != null && !absolute.isNonNegative()) {
            throw new InvalidRequestException("capacity", absolute.firstNegative(), "must not be negative, got " + absolute);
        }
    }

    public static Capacity fraction(double f) {
        return new Capacity(null, f);
    }

    public static Capacity of(Resources r) {
        return new Capacity(r, -1);
    }

    /** Parses {@code "40%"}, {@code "0.4"} or a resource text {@code cpu=4000,mem=16384}. */
    public static Capacity parse(String text) {
        String t = text == null ? "" : text.trim();
        try {
            if (t.endsWith("%")) {
                return fraction(Double.parseDouble(t.substring(0, t.length() - 1).trim()) / 100);
            }
            if (!t.contains("=")) {
                return fraction(Double.parseDouble(t));
            }
        } catch (NumberFormatException e) {
            throw new InvalidRequestException("capacity '" + Text.escape(text) + "'", "value",
                    "is neither a percentage (40%), a fraction (0.4) nor resources (cpu=4000,mem=16384)");
        }
        try {
            return of(Resources.parse(t));
        } catch (IllegalArgumentException e) {
            throw new InvalidRequestException("capacity '" + Text.escape(text) + "'", "value", e.getMessage()
                    + "; a capacity is a percentage (40%), a fraction (0.4) or resources (cpu=4000,mem=16384)");
        }
    }

    public boolean isFraction() {
        return absolute == null;
    }

    /** The capacity in resources, given the parent's. */
    public Resources resolve(Resources parent) {
        if (!isFraction()) {
            return absolute;
        }
        Resources r = Resources.of(Math.round(parent.cpu() * fraction), Math.round(parent.memMb() * fraction));
        for (int i = 0; i < parent.extendedCount(); i++) {
            r = r.with(parent.extendedName(i), Math.round(parent.extendedValue(i) * fraction));
        }
        return r;
    }

    @Override
    public String toString() {
        return isFraction() ? String.format(Locale.ROOT, "%.4g%%", fraction * 100).replaceAll("\\.?0+%$", "%") : absolute.toString();
    }
}

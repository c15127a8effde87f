package granary.planner.whatif;

import java.util.List;

/**
 * A value over the replay's real time: points (hours since the replay's start, value), in time order.
 * A step (a quota changing at a slice boundary) is two points at the same hour.
 */
public record Curve(List<Double> hours, List<Double> values) {

    public Curve {
        hours = List.copyOf(hours);
        values = List.copyOf(values);
        if (hours.size() != values.size()) {
            throw new IllegalArgumentException("a curve needs as many hours as values");
        }
    }

    public static final Curve EMPTY = new Curve(List.of(), List.of());

    public int size() {
        return hours.size();
    }

    /** The value in force at an hour (the last point at or before it), NaN before the first. */
    public double at(double hour) {
        double v = Double.NaN;
        for (int i = 0; i < hours.size() && hours.get(i) <= hour; i++) {
            v = values.get(i);
        }
        return v;
    }
}

package granary.planner.whatif;

import java.util.ArrayList;
import java.util.List;

/**
 * Time-weighted means per hour of the day (0-23) of a value that holds over intervals of trace time:
 * an interval crossing hours counts in each for the part it spends there, so a sample every 30 s and
 * one every 6 h give the same means. Trace time 0 is {@code offsetS} seconds after a midnight (the
 * replay's start time of day; 0 for the simulator's default start).
 */
final class HourOfDay {

    private static final long HOUR_S = 3600;

    private final double[] weighted = new double[24];
    private final double[] seconds = new double[24];
    private final long offsetS;

    HourOfDay() {
        this(0);
    }

    /** @param offsetS the replay's start, seconds after midnight */
    HourOfDay(long offsetS) {
        this.offsetS = Math.floorMod(offsetS, 24 * HOUR_S);
    }

    /** {@code value} held over {@code (fromS, toS]}. */
    void add(long fromS, long toS, double value) {
        if (Double.isNaN(value)) {
            return;
        }
        long t = Math.max(0, fromS);
        while (t < toS) {
            long hourEnd = ((t + offsetS) / HOUR_S + 1) * HOUR_S - offsetS;
            long end = Math.min(hourEnd, toS);
            int hour = (int) (((t + offsetS) / HOUR_S) % 24);
            weighted[hour] += value * (end - t);
            seconds[hour] += end - t;
            t = end;
        }
    }

    /** 24 means; NaN for an hour without time. */
    List<Double> means() {
        List<Double> out = new ArrayList<>(24);
        for (int h = 0; h < 24; h++) {
            out.add(seconds[h] == 0 ? Double.NaN : weighted[h] / seconds[h]);
        }
        return out;
    }
}

package granary.sim.metrics;

import java.util.Map;
import java.util.TreeMap;

/**
 * Counts of durations by whole second, for the per-slot waits of traces with millions of slots:
 * percentiles to the second without keeping every value.
 */
public final class SecondsHistogram {

    private final TreeMap<Long, Long> counts = new TreeMap<>();
    private long total;
    private double sumMs;

    public void add(long ms, long times) {
        if (times <= 0) {
            return;
        }
        counts.merge(ms / 1000, times, Long::sum);
        total += times;
        sumMs += (double) ms * times;
    }

    /** Percentiles in ms, each the lower bound of its second (the mean is exact). */
    public Stats stats() {
        if (total == 0) {
            return Stats.EMPTY;
        }
        return new Stats(total, sumMs / total, rank(50), rank(90), rank(99), counts.lastKey() * 1000);
    }

    private long rank(double p) {
        long r = Math.max(1, (long) Math.ceil(p / 100.0 * total));
        long seen = 0;
        for (Map.Entry<Long, Long> e : counts.entrySet()) {
            seen += e.getValue();
            if (seen >= r) {
                return e.getKey() * 1000;
            }
        }
        return counts.lastKey() * 1000;
    }
}

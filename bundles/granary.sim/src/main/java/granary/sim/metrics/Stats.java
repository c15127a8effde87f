package granary.sim.metrics;

import java.util.Arrays;

/**
 * Summary of a set of durations (milliseconds): count, mean and nearest-rank percentiles (the value
 * at rank ⌈p/100 · n⌉ of the sorted values), so every reported percentile is a value that occurred.
 */
public record Stats(long count, double mean, long p50, long p90, long p99, long max) {

    public static final Stats EMPTY = new Stats(0, 0, 0, 0, 0, 0);

    public static Stats of(long[] values, int n) {
        if (n == 0) {
            return EMPTY;
        }
        long[] v = Arrays.copyOf(values, n);
        Arrays.sort(v);
        double sum = 0;
        for (long x : v) {
            sum += x;
        }
        return new Stats(n, sum / n, rank(v, 50), rank(v, 90), rank(v, 99), v[n - 1]);
    }

    static long rank(long[] sorted, double p) {
        int r = (int) Math.ceil(p / 100.0 * sorted.length);
        return sorted[Math.max(0, Math.min(sorted.length - 1, r - 1))];
    }
}

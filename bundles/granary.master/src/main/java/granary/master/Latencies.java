package granary.master;

import java.util.Arrays;

/**
 * The last {@value #KEPT} delivery latencies (milliseconds from a grant decided to the envelope that
 * carries it leaving the master), for the benchmark and the status line. Guarded by the master's lock.
 */
final class Latencies {

    static final int KEPT = 65_536;

    private final long[] samples = new long[KEPT];
    private long count;

    void add(long millis) {
        samples[(int) (count++ % KEPT)] = millis;
    }

    /** Total samples ever added. */
    long count() {
        return count;
    }

    /** The {@code q}-quantile (0..1) of the kept samples, or -1 with none. */
    long quantile(double q) {
        int n = (int) Math.min(count, KEPT);
        if (n == 0) {
            return -1;
        }
        long[] copy = Arrays.copyOf(samples, n);
        Arrays.sort(copy);
        return copy[Math.min(n - 1, (int) Math.floor(q * n))];
    }
}

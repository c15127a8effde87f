package granary.master;

import java.util.Arrays;

/**
 * The last {@value #KEPT} delivery latencies (milliseconds from a grant decided to the envelope that
 * carries it leaving the master), for the benchmark, the status line and {@link MasterMonitor#deliveryStats}.
 * Touched only in turns of the master's loop.
 */
final class Latencies {

    static final int KEPT = 65_536;

    private final long[] samples = new long[KEPT];
    private long count;
    private long sum;

    void add(long millis) {
        samples[(int) (count++ % KEPT)] = millis;
        sum += millis;
    }

    /** The sum of every sample ever added, in milliseconds. */
    long sum() {
        return sum;
    }

    /** Total samples ever added. */
    long count() {
        return count;
    }

    /** The {@code q}-quantile (0..1) of the kept samples, or -1 with none. */
    long quantile(double q) {
        return quantile(sorted(), q);
    }

    /** A copy of the kept samples, unsorted: sort it outside the master's loop. */
    long[] kept() {
        return Arrays.copyOf(samples, (int) Math.min(count, KEPT));
    }

    private long[] sorted() {
        long[] copy = kept();
        Arrays.sort(copy);
        return copy;
    }

    /** The {@code q}-quantile (0..1) of sorted samples, or -1 with none. */
    static long quantile(long[] sorted, double q) {
        int n = sorted.length;
        return n == 0 ? -1 : sorted[Math.min(n - 1, (int) Math.floor(q * n))];
    }
}

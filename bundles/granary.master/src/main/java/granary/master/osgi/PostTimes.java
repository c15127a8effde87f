package granary.master.osgi;

import java.util.Arrays;

/**
 * How long the master took to answer peers' posts, from their headers arriving at the edge to the
 * ack written: the body's read, the wait for a peers' thread and the master's handling, but none of
 * the network or the peer's own delays. The last {@value #KEPT} are kept, for {@code granary:wire}
 * and the wire benchmark, which must tell the master's share of a round trip from the load
 * generator's (benchmarks/RESULTS.md). Thread-safe: posts end on any of the peers' threads.
 */
final class PostTimes {

    static final int KEPT = 65_536;

    private final long[] micros = new long[KEPT];
    private long count;

    synchronized void add(long nanos) {
        micros[(int) (count++ % KEPT)] = nanos / 1_000;
    }

    /** {@code posts=N postP50=X.Yms postP99=X.Yms} over the kept ones ({@code -1} with none). */
    String line() {
        long[] copy;
        long n;
        synchronized (this) {
            n = count;
            copy = Arrays.copyOf(micros, (int) Math.min(count, KEPT));
        }
        Arrays.sort(copy);
        return "posts=" + n + " postP50=" + millis(copy, 0.50) + "ms postP99=" + millis(copy, 0.99) + "ms";
    }

    private static String millis(long[] sorted, double q) {
        if (sorted.length == 0) {
            return "-1";
        }
        long us = sorted[Math.min(sorted.length - 1, (int) Math.floor(q * sorted.length))];
        return String.format(java.util.Locale.ROOT, "%.1f", us / 1000.0);
    }
}

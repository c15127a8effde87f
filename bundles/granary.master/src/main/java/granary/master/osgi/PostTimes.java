package granary.master.osgi;

import java.util.Arrays;

/**
 * How long the master took to answer peers' posts, from their headers arriving at the edge to the
 * ack handed to the container to write: the body's read, the wait for a peers' thread and the master's handling, but none of
 * the network or the peer's own delays. The last {@value #KEPT} are kept, for {@code granary:wire}
 * and the wire benchmark, which must tell the master's share of a round trip from the load
 * generator's (benchmarks/RESULTS.md); and how many came over HTTP/2 (docs/protocol.md, "Transport":
 * a peer's link moves to HTTP/2 with its first long poll). Thread-safe: posts end on any of the
 * peers' threads.
 */
final class PostTimes {

    static final int KEPT = 65_536;

    private final long[] micros = new long[KEPT];
    private long count;
    private long http2;

    /** A post answered {@code nanos} after its headers came; {@code overHttp2}: it came as an HTTP/2 stream. */
    synchronized void add(long nanos, boolean overHttp2) {
        micros[(int) (count++ % KEPT)] = nanos / 1_000;
        http2 += overHttp2 ? 1 : 0;
    }

    /**
     * {@code posts=N postP50=X.Yms postP99=X.Yms postsHttp2=M}: the percentiles over the kept ones
     * ({@code -1} with none), the counts over all.
     */
    String line() {
        long[] copy;
        long n;
        long h2;
        synchronized (this) {
            n = count;
            h2 = http2;
            copy = Arrays.copyOf(micros, (int) Math.min(count, KEPT));
        }
        Arrays.sort(copy);
        return "posts=" + n + " postP50=" + millis(copy, 0.50) + "ms postP99=" + millis(copy, 0.99) + "ms postsHttp2=" + h2;
    }

    private static String millis(long[] sorted, double q) {
        if (sorted.length == 0) {
            return "-1";
        }
        long us = sorted[Math.min(sorted.length - 1, (int) Math.floor(q * sorted.length))];
        return String.format(java.util.Locale.ROOT, "%.1f", us / 1000.0);
    }
}

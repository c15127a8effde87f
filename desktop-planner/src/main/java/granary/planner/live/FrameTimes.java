package granary.planner.live;

import java.util.Arrays;
import java.util.Locale;

/**
 * How long the latest heatmap redraws took: a ring of the last {@value #KEPT} durations, read as
 * median and 99th percentile. Written on the UI thread, read from anywhere (a benchmark).
 */
public final class FrameTimes {

    static final int KEPT = 1024;

    private final long[] nanos = new long[KEPT];
    private int next;
    private int size;
    private long total;

    public synchronized void record(long durationNanos) {
        nanos[next] = durationNanos;
        next = (next + 1) % KEPT;
        size = Math.min(size + 1, KEPT);
        total++;
    }

    /** Frames recorded since this was made (not only those kept). */
    public synchronized long count() {
        return total;
    }

    /** The {@code p}-th percentile (0-100) of the kept durations, in ms; 0 before the first frame. */
    public synchronized double percentileMillis(double p) {
        if (size == 0) {
            return 0;
        }
        long[] sorted = Arrays.copyOf(nanos, size);
        Arrays.sort(sorted);
        int rank = (int) Math.ceil(p / 100.0 * size) - 1;
        return sorted[Math.max(0, Math.min(size - 1, rank))] / 1e6;
    }

    /** Forgets the kept durations (a benchmark's warm-up). */
    public synchronized void clear() {
        next = 0;
        size = 0;
    }

    /** e.g. {@code frame 1.4 ms p50, 3.2 ms p99}. */
    public String summary() {
        return String.format(Locale.ROOT, "frame %.1f ms p50, %.1f ms p99", percentileMillis(50), percentileMillis(99));
    }
}

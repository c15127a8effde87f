package granary.bench.wire;

import java.util.Arrays;

/** Latency samples in microseconds, recorded from many threads; percentiles at the end. */
final class Samples {

    private long[] values = new long[1024];
    private int count;
    private volatile boolean on;

    /** Start (or stop) keeping samples: only the measured window counts. */
    void recording(boolean value) {
        on = value;
    }

    synchronized void reset() {
        count = 0;
    }

    void add(long micros) {
        if (!on) {
            return;
        }
        synchronized (this) {
            if (count == values.length) {
                values = Arrays.copyOf(values, count * 2);
            }
            values[count++] = micros;
        }
    }

    synchronized int count() {
        return count;
    }

    /** The largest sample in milliseconds, or -1 without samples. */
    synchronized double maxMillis() {
        long max = -1;
        for (int i = 0; i < count; i++) {
            max = Math.max(max, values[i]);
        }
        return max < 0 ? -1 : max / 1000.0;
    }

    /** How many samples exceed {@code micros}. */
    synchronized long countAbove(long micros) {
        long n = 0;
        for (int i = 0; i < count; i++) {
            if (values[i] > micros) {
                n++;
            }
        }
        return n;
    }

    /** The q-quantile in milliseconds (nearest rank), or -1 without samples. */
    synchronized double quantileMillis(double q) {
        if (count == 0) {
            return -1;
        }
        long[] sorted = Arrays.copyOf(values, count);
        Arrays.sort(sorted);
        int i = (int) Math.min(count - 1, Math.max(0, Math.ceil(q * count) - 1));
        return sorted[i] / 1000.0;
    }
}

package granary.sim.metrics;

import java.util.Arrays;

/** A growable list of longs (waits of many units without boxing). */
public final class LongList {

    private long[] values = new long[64];
    private int size;

    public void add(long v) {
        if (size == values.length) {
            values = Arrays.copyOf(values, size * 2);
        }
        values[size++] = v;
    }

    public int size() {
        return size;
    }

    public Stats stats() {
        return Stats.of(values, size);
    }
}

package granary.planner.live.model;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What the master granted each group over the last hour, one sample per period of wall time
 * (docs/planner.md, "Live view"). It outlives a connection: the live view keeps one per master, so a
 * reconnect (a dropped stream, Disconnect and Connect) goes on with the same hour, the time it was not
 * connected being a gap — never a value it did not see.
 *
 * <p>Memory is bounded: {@code samples} values per group and resource, for at most {@code maxGroups}
 * groups; a group past that is not recorded (and counted), a group with no sample left in the hour is
 * dropped. Samples sit at absolute periods ({@code time / sampleMillis}), so a sample is where its
 * time is, whatever came before it. Synchronized: the stream's coalescer records, the UI reads frames.
 */
public final class UsageHistory {

    /** Not seen: the planner was not connected, or the group did not exist then. */
    public static final long UNKNOWN = -1;

    private static final class Series {
        final long[] slots;
        final long[] cpu;

        Series(int n) {
            slots = new long[n];
            cpu = new long[n];
            Arrays.fill(slots, UNKNOWN);
            Arrays.fill(cpu, UNKNOWN);
        }
    }

    private final long sampleMillis;
    private final int samples;
    private final int maxGroups;
    /** For each ring position, the period it holds; positions of other periods are unknown. */
    private final long[] periodAt;
    private final Map<String, Series> groups = new TreeMap<>();
    private long lastPeriod = Long.MIN_VALUE;
    private long refused;
    private long version;

    /**
     * @param sampleMillis one sample per this many ms of wall time (10,000: 360 an hour)
     * @param spanMillis   how far back it reaches (an hour)
     * @param maxGroups    the most groups kept
     */
    public UsageHistory(long sampleMillis, long spanMillis, int maxGroups) {
        if (sampleMillis <= 0 || spanMillis < sampleMillis || maxGroups <= 0) {
            throw new IllegalArgumentException("history: one sample every " + sampleMillis + " ms over " + spanMillis + " ms for at most "
                    + maxGroups + " groups: each must be positive and the span at least one sample");
        }
        this.sampleMillis = sampleMillis;
        this.samples = (int) (spanMillis / sampleMillis);
        this.maxGroups = maxGroups;
        this.periodAt = new long[samples];
        Arrays.fill(periodAt, Long.MIN_VALUE);
    }

    /** One sample per 10 s over the last hour, for at most 1,000 groups (under 6 MB). */
    public UsageHistory() {
        this(10_000, 3_600_000, 1000);
    }

    public long sampleMillis() {
        return sampleMillis;
    }

    /** Whether {@code nowMillis} falls in a period not sampled yet. */
    public synchronized boolean due(long nowMillis) {
        return Math.floorDiv(nowMillis, sampleMillis) != lastPeriod;
    }

    /** A group's use now, as the master's stream says it. */
    public record Use(String path, long slots, long cpu) {
    }

    /** Records the groups' use at {@code nowMillis} (a group not named has no sample for the period). */
    public synchronized void record(long nowMillis, List<Use> now) {
        long period = Math.floorDiv(nowMillis, sampleMillis);
        int p = position(period);
        if (periodAt[p] != period) {
            periodAt[p] = period;
            for (Series s : groups.values()) {
                s.slots[p] = UNKNOWN;
                s.cpu[p] = UNKNOWN;
            }
        }
        for (Use u : now) {
            Series s = groups.get(u.path());
            if (s == null) {
                if (groups.size() >= maxGroups) {
                    refused++;
                    continue;
                }
                s = new Series(samples);
                groups.put(u.path(), s);
            }
            s.slots[p] = u.slots();
            s.cpu[p] = u.cpu();
        }
        lastPeriod = period;
        version++;
        forgetEmpty(period);
    }

    /** Groups with nothing known in the hour ending at {@code period} go. */
    private void forgetEmpty(long period) {
        for (Iterator<Series> it = groups.values().iterator(); it.hasNext(); ) {
            Series s = it.next();
            boolean any = false;
            for (int k = 0; k < samples && !any; k++) {
                any = periodAt[k] > period - samples && s.slots[k] != UNKNOWN;
            }
            if (!any) {
                it.remove();
            }
        }
    }

    private int position(long period) {
        return (int) Math.floorMod(period, (long) samples);
    }

    /** Changes with every sample: a frame copies the history only when it moved. */
    public synchronized long version() {
        return version;
    }

    /** Groups seen but not recorded, the limit being reached. */
    public synchronized long refused() {
        return refused;
    }

    public int maxGroups() {
        return maxGroups;
    }

    /**
     * Every group's last hour ending at the latest sample, oldest first, {@link #UNKNOWN} where not seen;
     * empty before the first sample.
     */
    public synchronized List<Frame.GroupHistory> read() {
        List<Frame.GroupHistory> out = new ArrayList<>(groups.size());
        if (lastPeriod == Long.MIN_VALUE) {
            return out;
        }
        long first = lastPeriod - samples + 1;
        for (Map.Entry<String, Series> e : groups.entrySet()) {
            long[] slots = new long[samples];
            long[] cpu = new long[samples];
            for (int k = 0; k < samples; k++) {
                int p = position(first + k);
                boolean seen = periodAt[p] == first + k;
                slots[k] = seen ? e.getValue().slots[p] : UNKNOWN;
                cpu[k] = seen ? e.getValue().cpu[p] : UNKNOWN;
            }
            out.add(new Frame.GroupHistory(e.getKey(), slots, cpu, sampleMillis, (lastPeriod + 1) * sampleMillis));
        }
        return out;
    }
}

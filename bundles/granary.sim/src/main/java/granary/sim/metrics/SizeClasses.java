package granary.sim.metrics;

import java.util.ArrayList;
import java.util.List;

/**
 * Job waits by the job's size: the slots it requested, in decades (1, 2–10, 11–100, …). An order that
 * serves small work first must not starve the big (docs/multi-tenancy.md, "Choices and their
 * defaults"); the longest wait of the largest class says whether it does.
 */
public final class SizeClasses {

    /** Upper bounds (inclusive) of the classes; the last class has none. */
    private static final long[] UPPER = {1, 10, 100, 1_000, 10_000};

    private final LongList[] waits = new LongList[UPPER.length + 1];

    public SizeClasses() {
        for (int i = 0; i < waits.length; i++) {
            waits[i] = new LongList();
        }
    }

    /** One job: the slots it requested and how long it waited (its slowest unit), in ms. */
    public void add(long requestedSlots, long waitMs) {
        if (requestedSlots < 1) {
            throw new IllegalArgumentException("a job requests at least one slot, got " + requestedSlots);
        }
        int i = 0;
        while (i < UPPER.length && requestedSlots > UPPER[i]) {
            i++;
        }
        waits[i].add(waitMs);
    }

    /** The classes that had jobs, smallest first. */
    public List<SizeClass> classes() {
        List<SizeClass> out = new ArrayList<>();
        for (int i = 0; i < waits.length; i++) {
            if (waits[i].size() > 0) {
                long from = i == 0 ? 1 : UPPER[i - 1] + 1;
                long to = i < UPPER.length ? UPPER[i] : -1;
                out.add(new SizeClass(from, to, waits[i].stats()));
            }
        }
        return out;
    }

    /**
     * One class: jobs that requested {@code fromSlots} to {@code toSlots} slots ({@code toSlots} -1: no
     * upper bound), and their waits.
     */
    public record SizeClass(long fromSlots, long toSlots, Stats waits) {

        /** As the summary prints it: {@code 1}, {@code 2-10}, {@code >10000}. */
        public String label() {
            if (toSlots < 0) {
                return ">" + (fromSlots - 1);
            }
            return fromSlots == toSlots ? Long.toString(fromSlots) : fromSlots + "-" + toSlots;
        }
    }
}

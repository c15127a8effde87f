package granary.policy.fifo;

import java.util.Map;

import granary.api.spi.UnitOrder;
import granary.api.spi.UnitView;

/**
 * FIFO unit order (docs/scheduling.md, "Passive scheduling"): higher priority first; at equal priority the unit submitted earlier.
 * Units submitted at the same instant keep their arrival order (the engine's last tie-break).
 */
public class FifoPolicy implements UnitOrder {

    /** The policy's name: console, status and HTTP use it. */
    public static final String NAME = "fifo";

    private final boolean priorityFirst;

    /** FIFO with priority first, as the spec orders it. */
    public FifoPolicy() {
        this(true);
    }

    /** @param priorityFirst false for strict arrival order regardless of priority */
    public FifoPolicy(boolean priorityFirst) {
        this.priorityFirst = priorityFirst;
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public int compare(UnitView a, UnitView b) {
        if (priorityFirst && a.priority() != b.priority()) {
            return Integer.compare(b.priority(), a.priority());
        }
        return Long.compare(a.submitTime(), b.submitTime());
    }

    /** Sort key (docs/scheduling.md, "Sort keys"): [-priority,] submit time — what {@link #compare} reads. */
    @Override
    public int sortKeyWidth() {
        return priorityFirst ? 2 : 1;
    }

    @Override
    public void sortKey(UnitView u, long[] key, int at) {
        if (priorityFirst) {
            key[at++] = -(long) u.priority();
        }
        key[at] = u.submitTime();
    }

    @Override
    public Map<String, String> status() {
        return Map.of("priorityFirst", Boolean.toString(priorityFirst));
    }
}

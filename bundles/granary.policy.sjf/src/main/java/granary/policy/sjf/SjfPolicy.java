package granary.policy.sjf;

import granary.api.spi.UnitOrder;
import granary.api.spi.UnitView;

/**
 * Shortest job first, by size (docs/policies.md, "sjf"): at equal priority, units of the job that
 * asked for the fewest slots go first, then the earlier submission. The engine knows no run times,
 * so the job's size at submission stands in for its length; it never changes while the job waits,
 * which keeps the queues' order stable.
 */
public final class SjfPolicy implements UnitOrder {

    /** The policy's name: console, status and HTTP use it. */
    public static final String NAME = "sjf";

    private final boolean priorityFirst;

    public SjfPolicy(boolean priorityFirst) {
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
        int c = Long.compare(a.job().requestedSlots(), b.job().requestedSlots());
        return c != 0 ? c : Long.compare(a.submitTime(), b.submitTime());
    }

    /** Sort key (docs/scheduling.md, "Sort keys"): [-priority,] the job's requested slots, submit time. */
    @Override
    public int sortKeyWidth() {
        return priorityFirst ? 3 : 2;
    }

    @Override
    public void sortKey(UnitView u, long[] key, int at) {
        if (priorityFirst) {
            key[at++] = -(long) u.priority();
        }
        key[at] = u.job().requestedSlots();
        key[at + 1] = u.submitTime();
    }
}

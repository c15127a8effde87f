package granary.policy.submitwindow;

import java.util.Map;

import granary.api.spi.UnitOrder;
import granary.api.spi.UnitView;

/**
 * SubmitWindow unit order (docs/policies.md, "submitwindow"). With all-or-nothing scheduling, plain submit order leaves
 * fragments that small jobs cannot use, so small jobs wait too long. Each step breaks the ties of
 * the one before:
 * <ol>
 *   <li>priority, higher first;</li>
 *   <li>submit window {@code floor(submitTime / W)}, earlier first — jobs of one window are peers;</li>
 *   <li>total all-or-nothing request, smaller first — inside a window small jobs go first and fill
 *       the gaps a big one would leave;</li>
 *   <li>submit time, earlier first.</li>
 * </ol>
 * The request of a gang job is the slots the job asked for in all; of a unit, its desired slots.
 * A unit of the next window never overtakes, so a big job waits at most one window for small ones.
 */
public class SubmitWindowPolicy implements UnitOrder {

    /** The policy's name: console, status and HTTP use it. */
    public static final String NAME = "submitwindow";

    /** The default window, 5 seconds: short enough that a job waits little for its window to close (docs/policies.md, "submitwindow"). */
    public static final long DEFAULT_WINDOW_MILLIS = 5_000;

    private final long windowMillis;

    public SubmitWindowPolicy() {
        this(DEFAULT_WINDOW_MILLIS);
    }

    public SubmitWindowPolicy(long windowMillis) {
        if (windowMillis <= 0) {
            throw new IllegalArgumentException("submitwindow: windowMillis must be at least 1, got " + windowMillis);
        }
        this.windowMillis = windowMillis;
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public int compare(UnitView a, UnitView b) {
        if (a.priority() != b.priority()) {
            return Integer.compare(b.priority(), a.priority());
        }
        int c = Long.compare(Math.floorDiv(a.submitTime(), windowMillis), Math.floorDiv(b.submitTime(), windowMillis));
        if (c != 0) {
            return c;
        }
        c = Long.compare(request(a), request(b));
        return c != 0 ? c : Long.compare(a.submitTime(), b.submitTime());
    }

    /** Sort key (docs/scheduling.md, "Sort keys"): -priority, window, request, submit time. */
    @Override
    public int sortKeyWidth() {
        return 4;
    }

    @Override
    public void sortKey(UnitView u, long[] key, int at) {
        key[at] = -(long) u.priority();
        key[at + 1] = Math.floorDiv(u.submitTime(), windowMillis);
        key[at + 2] = request(u);
        key[at + 3] = u.submitTime();
    }

    /** The all-or-nothing request the order compares: the gang job's total, else the unit's desire. */
    static long request(UnitView u) {
        return u.job().gang() ? u.job().requestedSlots() : u.desired();
    }

    public long windowMillis() {
        return windowMillis;
    }

    @Override
    public Map<String, String> status() {
        return Map.of("windowMillis", Long.toString(windowMillis));
    }
}

package granary.policy.fair;

import java.util.Map;

import granary.api.spi.UnitOrder;
import granary.api.spi.UnitView;

/**
 * FAIR unit order (docs/scheduling.md, "Passive scheduling"): higher priority first; at equal priority the unit that holds fewer
 * slots, so that units of equal priority end up with about the same number; then the earlier
 * submission. The order reads grants, so the engine grants such units one slot at a time.
 */
public class FairPolicy implements UnitOrder {

    /** The policy's name: console, status and HTTP use it. */
    public static final String NAME = "fair";

    /** What "fewer" counts. */
    public enum Measure {
        /** Slots held (the spec's rule). */
        SLOTS,
        /** Slots held as a fraction of slots desired: small and large units progress alike. */
        FRACTION
    }

    private final Measure measure;

    public FairPolicy() {
        this(Measure.SLOTS);
    }

    public FairPolicy(Measure measure) {
        this.measure = measure;
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
        int c = measure == Measure.SLOTS
                ? Integer.compare(a.granted(), b.granted())
                : Long.compare((long) a.granted() * b.desired(), (long) b.granted() * a.desired());
        return c != 0 ? c : Long.compare(a.submitTime(), b.submitTime());
    }

    @Override
    public boolean readsGrants() {
        return true;
    }

    @Override
    public Map<String, String> status() {
        return Map.of("measure", measure.name());
    }
}

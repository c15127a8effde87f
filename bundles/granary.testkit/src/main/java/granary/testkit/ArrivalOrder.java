package granary.testkit;

import granary.api.spi.UnitOrder;
import granary.api.spi.UnitView;

/**
 * A plain unit order, priority first and then arrival, under a name of the test's choosing: the
 * stand-in the contract falls back to, so that a test needs no policy bundle besides the one it tests.
 */
public final class ArrivalOrder implements UnitOrder {

    /** The name {@link #ArrivalOrder()} uses. */
    public static final String NAME = "arrival";

    private final String name;

    public ArrivalOrder() {
        this(NAME);
    }

    public ArrivalOrder(String name) {
        this.name = name;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public int compare(UnitView a, UnitView b) {
        return a.priority() != b.priority() ? Integer.compare(b.priority(), a.priority())
                : Long.compare(a.submitTime(), b.submitTime());
    }
}

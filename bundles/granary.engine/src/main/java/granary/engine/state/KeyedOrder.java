package granary.engine.state;

import java.util.Comparator;

import granary.api.spi.UnitView;

/**
 * A unit order whose comparisons a {@link FitQueue} can make on primitive keys kept beside its heaps
 * instead of calling the comparator on unit objects (docs/scheduling.md, "Sort keys"). A record is
 * {@link #keyLongs()} longs per unit: the policy's sort key, then the unit's sequence (the engine's
 * last tie-break). Comparing two records as signed longs, component by component, must give the
 * comparator's sign.
 */
interface KeyedOrder extends Comparator<UnitState> {

    /** Longs per unit record, the sequence included; 0 if this order has no keys (use {@link #compare}). */
    int keyLongs();

    /** Writes {@code u}'s record into {@code into[at] .. into[at + keyLongs() - 1]}. */
    void key(UnitState u, long[] into, int at);

    /**
     * Compares two views the way {@link #compare} compares units: what a re-order built off the engine
     * thread compares, on {@link FrozenUnit}s (docs/scheduling.md, "Swapping the order off the engine
     * thread"). Orders that are only used on the engine thread need not support it.
     */
    default int compareViews(UnitView a, UnitView b) {
        throw new UnsupportedOperationException(this + " cannot compare frozen units");
    }

    /** The longs per record {@code order} needs, 0 for a plain comparator. */
    static int keyLongsOf(Comparator<UnitState> order) {
        return order instanceof KeyedOrder k ? k.keyLongs() : 0;
    }
}

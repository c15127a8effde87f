package granary.api.spi;

import org.osgi.annotation.versioning.ConsumerType;

/**
 * Extension point {@code unit-order} (exclusive): the order of waiting units inside a group queue.
 * Passive scheduling gives a free node to the first unit in this order that fits it.
 *
 * <p>Called on the engine thread whenever a unit is queued or re-queued. The engine keeps each
 * queue sorted by this order. When another unit order takes effect the engine may build the new
 * order <b>off the engine thread</b>, from frozen copies of the waiting units, while the old order
 * keeps deciding (docs/scheduling.md, "Swapping the order off the engine thread"): {@code compare}
 * and {@code sortKey} must therefore be pure functions of the units they are given — no state of
 * their own that changes, nothing read from elsewhere. Ties left by {@code compare} are broken by
 * {@link UnitView#sequence()}.
 *
 * <p>An order that does not read grants may also declare a <b>sort key</b> ({@link #sortKeyWidth()},
 * {@link #sortKey}): a few longs per unit, computed once when the unit is queued, that the engine
 * compares instead of calling {@code compare} — a swap to such an order re-orders a million waiting
 * units in a fraction of the time (docs/scheduling.md, "Sort keys"). Orders without a key keep working
 * through {@code compare} alone.
 */
@ConsumerType
public interface UnitOrder extends Policy {

    /**
     * Negative if {@code a} goes first, positive if {@code b} does, 0 for a tie. Must be a
     * consistent total pre-order over the fields it reads, and must not read fields that change
     * while the unit waits, except {@link UnitView#granted()} when {@link #readsGrants()} is true.
     */
    int compare(UnitView a, UnitView b);

    /**
     * True if {@link #compare} reads how many slots a unit holds (FAIR). The engine then grants such
     * units one slot at a time and re-positions them after every grant and release.
     */
    default boolean readsGrants() {
        return false;
    }

    /** The most longs a sort key may have; a wider declaration is ignored (the engine calls {@link #compare}). */
    int MAX_SORT_KEY_WIDTH = 4;

    /**
     * How many longs {@link #sortKey} writes per unit: 0 (the default) if this order has no sort key,
     * else 1 to {@link #MAX_SORT_KEY_WIDTH}. Read once when the order takes effect. Ignored when
     * {@link #readsGrants()} is true (a key is computed once per queuing, grants change while a unit
     * waits).
     */
    default int sortKeyWidth() {
        return 0;
    }

    /**
     * Writes {@code u}'s sort key into {@code key[at] .. key[at + sortKeyWidth() - 1]}. Called once
     * each time the unit is queued (engine thread) and once per waiting unit when this order takes
     * effect (possibly on the thread that builds the new order); it may read what {@link #compare} may read and nothing else, and must not keep
     * {@code key}. Contract: for any two units, comparing their keys as signed longs, component by
     * component, gives the same sign as {@code compare(a, b)} (equal keys exactly when
     * {@code compare} returns 0); the engine then breaks ties by {@link UnitView#sequence()} as
     * before, so its decisions are the same as with {@code compare}. If this throws, the policy is set
     * aside as for a throwing {@code compare}.
     */
    default void sortKey(UnitView u, long[] key, int at) {
        throw new UnsupportedOperationException(name() + ": unit order without a sort key");
    }
}

package granary.api.spi;

import org.osgi.annotation.versioning.ConsumerType;

/**
 * Extension point {@code unit-order} (exclusive): the order of waiting units inside a group queue.
 * Passive scheduling gives a free node to the first unit in this order that fits it.
 *
 * <p>Called on the engine thread whenever a unit is queued or re-queued. The engine keeps each
 * queue sorted by this order; when another unit order takes effect the engine re-sorts every queue
 * between two decisions. Ties left by {@code compare} are broken by {@link UnitView#sequence()}.
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
}

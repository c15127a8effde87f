package granary.api.spi;

import granary.api.model.UnitId;

import org.osgi.annotation.versioning.ProviderType;

/**
 * What a {@link CycleAction} may do during a cycle, besides reading the engine state and asking what
 * a {@link PlacementContext} answers.
 */
@ProviderType
public interface CycleContext extends PlacementContext {

    /**
     * Schedules a unit now, before the others, the way a newly requested unit is scheduled
     * (locality, limits, filters, admission; all-or-nothing units through gang placement).
     *
     * @return slots granted
     */
    int schedule(UnitId unit);

    /**
     * Takes back {@code slots} slots of an offline unit on a node; they wait again.
     *
     * @throws IllegalStateException if the unit is online (online grants are never revoked by the
     *         master) or holds fewer slots there
     */
    void revoke(UnitId unit, String node, int slots, String reason);

    /**
     * Asks the engine to look at every node and every waiting gang again after this action, because
     * something the action controls changed (a quota slice switched, locks were released).
     */
    void reconsider();
}

package granary.api.spi;

import java.util.List;

import org.osgi.annotation.versioning.ConsumerType;

/**
 * Extension point {@code gang-placement} (exclusive): places an all-or-nothing gang whole.
 *
 * <p>A gang is one all-or-nothing unit, or all units of a gang job that still want slots. Called on
 * the engine thread when a gang is requested and, while it waits, when resources are freed. The
 * policy returns a plan that gives every unit exactly its remaining desire, or null if none fits now.
 * The engine checks the plan against capacity, limits and filters, then grants it in one step; a
 * plan that does not hold is undone entirely and the gang waits. Without a gang placement in
 * effect, gangs wait.
 */
@ConsumerType
public interface GangPlacement extends Policy {

    /** A plan for all of {@code gang}, or null. */
    GangPlan plan(List<? extends UnitView> gang, PlacementContext ctx);
}

package granary.api.spi;

import java.util.Map;

import org.osgi.annotation.versioning.ConsumerType;

/**
 * A scheduling policy. A policy takes part in scheduling through the extension-point interfaces it
 * implements ({@link UnitOrder}, {@link GroupOrder}, {@link Admission}, {@link NodeFilter},
 * {@link SubmitFilter}, {@link GangPlacement}, {@link CycleAction}); {@link ExtensionPoint#of}
 * tells which.
 *
 * <p><b>Threading.</b> The engine calls every method of a policy on its one scheduling thread,
 * never concurrently. A policy needs no locks for state it only touches from these calls.
 *
 * <p><b>Lifecycle.</b> {@link #attach} is called when the policy becomes active (selected and
 * installed) and {@link #detach} when it stops being active (deselected, replaced at an exclusive
 * point, or uninstalled). Both happen between two scheduling decisions. State a policy keeps for
 * scheduling (reservation locks, an emergent job) must be dropped in {@code detach}; the engine then
 * schedules as if the policy had never been there, and no grant changes because of it.
 */
@ConsumerType
public interface Policy {

    /**
     * The policy's name: lower case, the last segment of its bundle's symbolic name (e.g. {@code fifo}
     * for {@code granary.policy.fifo}). Constant for the life of the object.
     */
    String name();

    /** Called on the engine thread when the policy becomes active; {@code view} stays live until detach. */
    default void attach(EngineView view) {
    }

    /** Called on the engine thread when the policy stops being active. */
    default void detach() {
    }

    /** Lines of {@code key=value} the policy reports in status (e.g. its options); read on the engine thread. */
    default Map<String, String> status() {
        return Map.of();
    }
}

package granary.api.spi;

import org.osgi.annotation.versioning.ConsumerType;

/**
 * Extension point {@code cycle-action} (composable): work done in every scheduling cycle around
 * allocation, in the order elect → allocate → reserve of docs/policies.md, "reservation": {@link #beforeAllocate} for every
 * active action (by policy name), then the engine allocates, then {@link #afterAllocate}.
 *
 * <p>A cycle runs after every input event, including {@code ClockTick}. Actions may change state
 * only through the {@link CycleContext} they are given.
 */
@ConsumerType
public interface CycleAction extends Policy {

    default void beforeAllocate(CycleContext ctx) {
    }

    default void afterAllocate(CycleContext ctx) {
    }

    /**
     * Slots came back because their work finished ({@code GrantReleased}), just before the engine
     * frees them: {@code heldMillis} is how long the oldest of them had been held. Lets a policy learn
     * how long a group's work runs. Must not change state.
     */
    default void released(UnitView unit, int slots, long heldMillis, EngineView view) {
    }
}

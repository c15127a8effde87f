package granary.api.event;

import granary.api.model.UnitId;

/**
 * A job master changes how many slots a unit wants in all. It may not go below what the unit holds:
 * slots are given back with {@link GrantReleased}.
 */
public record UnitDesireChanged(UnitId unit, int desired) implements InputEvent {
}

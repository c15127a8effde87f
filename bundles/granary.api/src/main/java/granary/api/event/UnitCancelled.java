package granary.api.event;

import granary.api.model.UnitId;

/** A unit is withdrawn: its waiting desire is dropped and its grants are released. */
public record UnitCancelled(UnitId unit) implements InputEvent {
}

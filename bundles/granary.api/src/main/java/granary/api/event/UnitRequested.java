package granary.api.event;

import granary.api.model.UnitSpec;

/** A job master adds a unit to its running job. */
public record UnitRequested(String job, UnitSpec unit) implements InputEvent {
}

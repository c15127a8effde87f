package granary.api.event;

import granary.api.model.UnitId;

/**
 * A job master gives back {@code slots} slots of a unit on a node because their work is done: the
 * unit holds that many fewer slots and wants that many fewer. Releasing more than the unit holds
 * there is an error.
 */
public record GrantReleased(UnitId unit, String node, int slots) implements InputEvent {
}

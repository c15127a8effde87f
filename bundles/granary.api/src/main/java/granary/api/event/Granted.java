package granary.api.event;

import granary.api.model.UnitId;
import granary.api.model.UnitKind;

/**
 * {@code slots} more slots of a unit on a node. A job master learns node → slots from these (its
 * Hint); a node's agent learns unit → slots (its Cap). {@code seq} increases with every decision.
 */
public record Granted(UnitId unit, String node, int slots, UnitKind kind, long seq) implements OutputEvent {
}

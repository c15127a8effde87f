package granary.api.event;

import granary.api.model.UnitId;
import granary.api.model.UnitKind;

/**
 * The master takes back {@code slots} slots of a unit on a node (preemption, lost node, shrunk
 * capacity, or an operator's forced removal). The unit still wants them: they wait again unless the
 * unit was cancelled.
 */
public record Revoked(UnitId unit, String node, int slots, UnitKind kind, String reason, long seq)
        implements OutputEvent {
}

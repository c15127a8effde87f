package granary.api.event;

import granary.api.model.UnitId;
import granary.api.model.UnitKind;

/**
 * A job master gave back {@code slots} slots of a unit on a node: their work is done (a
 * {@link GrantReleased} the engine applied). Not a decision: {@code seq} is the number of the last
 * decision before it, so a reader can order it among grants and revocations. Tools that show the
 * cluster live (the HTTP API's allocation stream, metrics) learn freed capacity from it; the
 * protocol master ignores it, since it learned of the release from the job master itself.
 */
public record Released(UnitId unit, String node, int slots, UnitKind kind, long seq) implements OutputEvent {
}

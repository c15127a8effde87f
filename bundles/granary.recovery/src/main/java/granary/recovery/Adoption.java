package granary.recovery;

import granary.api.model.UnitId;

/** {@code slots} slots of {@code unit} on {@code node} that the rebuilt master takes on as granted. */
public record Adoption(UnitId unit, String node, int slots, boolean online) {
}

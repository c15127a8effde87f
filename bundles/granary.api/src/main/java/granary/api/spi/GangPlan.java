package granary.api.spi;

import java.util.Map;

import granary.api.model.UnitId;

/** Slots per node per unit for a whole gang. */
public record GangPlan(Map<UnitId, Map<String, Integer>> slots) {

    public GangPlan {
        slots = Map.copyOf(slots);
    }
}

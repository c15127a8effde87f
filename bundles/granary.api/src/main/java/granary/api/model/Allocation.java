package granary.api.model;

/**
 * Slots a unit holds on one node, with their age: {@code since} is the engine time of the oldest
 * grant still held there, {@code seq} the decision number of the latest. Preemption takes the
 * oldest preemptible grants first (docs/multi-tenancy.md, "The elastic quota loop") by these.
 */
public record Allocation(UnitId unit, String node, int slots, long since, long seq) {
}

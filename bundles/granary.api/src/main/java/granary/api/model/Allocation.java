package granary.api.model;

/**
 * Slots a unit holds on one node, with their age: {@code since} is the engine time of the oldest
 * grant still held there, {@code seq} the decision number of the latest, {@code latest} the engine
 * time of the latest. A revocation loses the work of the slots it takes; taking the newest slots of a
 * node loses the least, so preemption reads {@code latest} to choose victims that lose the least work
 * (docs/multi-tenancy.md, "Choices and their defaults").
 */
public record Allocation(UnitId unit, String node, int slots, long since, long seq, long latest) {

    /** An allocation whose slots were all granted at {@code since}. */
    public Allocation(UnitId unit, String node, int slots, long since, long seq) {
        this(unit, node, slots, since, seq, since);
    }
}

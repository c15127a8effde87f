package granary.planner.live;

/** A queue's waiting work, as the stream last sampled it. */
public record QueueRow(String path, long waitingUnits, long waitingSlots, long usedSlots) {
}

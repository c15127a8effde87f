package granary.planner.live;

/** A job seen on the stream: the slots it holds from grants since the last snapshot. */
public record JobRow(String job, long slots, int grants) {
}

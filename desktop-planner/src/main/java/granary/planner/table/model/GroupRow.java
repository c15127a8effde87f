package granary.planner.table.model;

/**
 * A group as the editor lists it: a row of the timeline. {@code groupId} is the id a new cell of
 * the group gets; the cells keep the ids they were read with, so a file whose ids disagree still
 * shows the disagreement as a problem.
 */
public record GroupRow(String name, int groupId) {
}

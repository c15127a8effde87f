package granary.recovery;

import granary.api.model.UnitId;

/**
 * Slots a peer reported that the rebuilt master does not take on, and why: the agent's cap is
 * withdrawn (its workers stop) and the job master is told the pair holds nothing; offline work is
 * then run again wherever the scheduler puts it. Online slots are dropped only when their job
 * master says it no longer runs the job, or when a node reports less capacity than they need.
 */
public record Dropped(UnitId unit, String node, int slots, String jobMaster, boolean online, String reason) {
}

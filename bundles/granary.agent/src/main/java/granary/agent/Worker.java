package granary.agent;

import granary.api.model.UnitId;

/**
 * One worker process this agent started.
 *
 * @param unit    the unit it belongs to
 * @param slot    its slot of that unit on this node
 * @param process the operating system process
 * @param order   when it was started relative to the others (larger: newer); withdrawals stop the newest first
 */
record Worker(UnitId unit, int slot, Process process, long order) {
}

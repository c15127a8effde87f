package granary.policy.reservation;

import java.util.List;

import granary.api.model.Resources;

/**
 * The reservation in force (docs/policies.md, "reservation"): the target job (null if none), how long it has waited, the
 * nodes locked for it so far, and progress — what the locked nodes hold in all against what the
 * target needs.
 *
 * @param target        job id, or null when no job is elected
 * @param waitedMillis  how long the target has waited
 * @param lockedNodes   nodes locked for it, in locking order
 * @param lockedCapacity capacity of the locked nodes
 * @param needed        what the target still wants
 * @param plannedNodes  how many nodes the reservation will lock in all
 * @param expiresInMillis time left before the reservation times out
 */
public record ReservationReport(String target, long waitedMillis, List<String> lockedNodes, Resources lockedCapacity,
                                Resources needed, int plannedNodes, long expiresInMillis) {

    public ReservationReport {
        lockedNodes = List.copyOf(lockedNodes);
    }
}

package granary.policy.reservation;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import granary.api.model.Resources;
import granary.api.model.UnitId;
import granary.api.spi.CycleContext;
import granary.api.spi.EngineView;
import granary.api.spi.JobView;
import granary.api.spi.NodeView;
import granary.api.spi.Reason;
import granary.api.spi.UnitView;
import granary.api.spi.Verdict;

/**
 * One reservation: its target job, when it was elected, and the nodes locked for it, in locking
 * order, each with the answer other units get there.
 *
 * <p>The reservation is <b>fulfilled</b> when the target no longer starves: nothing of it waits; or,
 * if none of its waiting units is all-or-nothing, each of them has got slots since the election —
 * an elastic unit is served again and competes as usual (and can be elected again if it starves
 * again), so a job that wants more than the cluster never keeps the cluster locked. A gang is
 * fulfilled only when it is placed whole.
 */
final class Reservation {

    private final String target;
    private final long electedAt;
    private final Map<String, Verdict> locked = new LinkedHashMap<>();
    /** Slots each unit held at the election (units added later held none). */
    private final Map<UnitId, Integer> grantedAtElection = new HashMap<>();
    private Set<UnitId> units = Set.of();
    private int plannedNodes;
    /** The target's waiting slots when the locks were found to cover them; -1 while they do not. */
    private long coveredAt = -1;
    /** What the cluster and the target were when no node was left to lock, or null. */
    private Object exhaustedAt;

    Reservation(JobView target, long electedAt) {
        this.target = target.id();
        this.electedAt = electedAt;
        target.units().forEach(u -> grantedAtElection.put(u.id(), u.granted()));
    }

    String target() {
        return target;
    }

    /**
     * The target job while the reservation holds, else null: the target is gone (cancelled,
     * finished) or the reservation is fulfilled. Cheap: O(units of the target).
     */
    JobView activeTarget(EngineView view) {
        JobView j = view.job(target);
        return j != null && !fulfilled(j) ? j : null;
    }

    private boolean fulfilled(JobView job) {
        for (UnitView u : job.units()) {
            boolean starving = u.allOrNothing() || u.granted() <= grantedAtElection.getOrDefault(u.id(), 0);
            if (u.live() && u.remaining() > 0 && starving) {
                return false;
            }
        }
        return true;
    }

    boolean expired(long now, long timeout) {
        return timeout > 0 && now - electedAt >= timeout;
    }

    boolean hasLocks() {
        return !locked.isEmpty();
    }

    /** The answer of the node filter for a unit that is not the target's, or null if the node is not locked. */
    Verdict lockedAnswer(String node) {
        return locked.get(node);
    }

    List<String> lockedNames() {
        return List.copyOf(locked.keySet());
    }

    Set<UnitId> units() {
        return units;
    }

    /**
     * The reserve step of one cycle: forgets departed nodes, and unless the locks already cover
     * what the target still wants, locks the next node of the group — one per cycle.
     */
    void reserve(JobView job, Mode mode, CycleContext ctx) {
        refresh(job, ctx);
        long waiting = waitingSlots(job);
        if (coveredAt >= 0 && waiting <= coveredAt) {
            return;   // covered, and the target wants no more than then
        }
        Object cluster = List.of(ctx.cluster().size(), ctx.cluster().capacity(), waiting, locked.size());
        if (cluster.equals(exhaustedAt)) {
            return;   // no node was left to lock, and neither the cluster nor the target changed since
        }
        NodeGroup.Plan plan = NodeGroup.plan(job, locked.keySet(), mode, ctx);
        plannedNodes = locked.size() + (int) plan.nodes().stream().filter(n -> !locked.containsKey(n.name())).count();
        if (plan.lockedCover()) {
            coveredAt = waiting;
            return;
        }
        coveredAt = -1;
        for (NodeView n : plan.nodes()) {
            if (!locked.containsKey(n.name())) {
                lock(n.name());
                return;
            }
        }
        exhaustedAt = cluster;   // the cluster cannot hold all of it: keep what is locked, do not re-plan every cycle
    }

    private void lock(String node) {
        locked.put(node, Verdict.waitFor(Reason.of(ReservationProvider.LOCKED, "node " + node,
                "locked for job " + target + " (reservation against starvation); running work drains, no new work"
                        + " but the target's")));
    }

    /** Drops nodes that left the cluster and takes in units the target added. */
    void refresh(JobView job, EngineView view) {
        if (locked.keySet().removeIf(n -> view.cluster().node(n) == null)) {
            coveredAt = -1;   // a locked node left: the rest may no longer cover the target
        }
        if (units.size() != job.units().size()) {
            Set<UnitId> ids = new HashSet<>();
            job.units().forEach(u -> ids.add(u.id()));
            units = Set.copyOf(ids);
        }
    }

    private static long waitingSlots(JobView job) {
        long n = 0;
        for (UnitView u : Jobs.waitingUnits(job)) {
            n += u.remaining();
        }
        return n;
    }

    ReservationReport report(JobView job, EngineView view, long timeout) {
        long now = view.now();
        Resources capacity = Resources.ZERO;
        List<String> nodes = new ArrayList<>();
        for (String name : locked.keySet()) {
            NodeView n = view.cluster().node(name);
            if (n != null) {
                nodes.add(name);
                capacity = capacity.plus(n.capacity());
            }
        }
        long since = Jobs.waitingSince(job);
        return new ReservationReport(target, since < 0 ? 0 : now - since, nodes, capacity, Jobs.need(job),
                Math.max(plannedNodes, nodes.size()), timeout > 0 ? Math.max(0, electedAt + timeout - now) : -1);
    }
}

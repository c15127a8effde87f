package granary.engine.state;

import java.util.HashMap;
import java.util.Map;

import granary.api.model.Resources;

/**
 * The engine's invariants, checked from scratch: nothing granted beyond capacity; the books of
 * nodes, units, groups and the cluster agree; granted + remaining = desired; a unit waits in a queue
 * exactly while it is live and wants slots.
 */
public final class Invariants {

    private Invariants() {
    }

    public static void check(Cluster cluster, Workload workload) {
        Resources clusterGranted = Resources.ZERO;
        for (NodeState n : cluster.nodes()) {
            Resources sum = Resources.ZERO;
            for (Map.Entry<UnitState, Integer> e : n.units().entrySet()) {
                require(e.getValue() > 0, n + ": empty allocation of " + e.getKey());
                require(e.getKey().slotsOn(n) == e.getValue(), n + ": holds " + e.getValue() + " of " + e.getKey()
                        + ", the unit says " + e.getKey().slotsOn(n));
                sum = sum.plus(e.getKey().slot().times(e.getValue()));
            }
            require(sum.equals(n.granted()), n + ": granted " + n.granted() + " but allocations sum to " + sum);
            require(n.granted().fitsIn(n.capacity()), n + ": granted " + n.granted() + " beyond capacity " + n.capacity());
            require(n.free().equals(n.capacity().minus(n.granted())), n + ": free is not capacity - granted");
            clusterGranted = clusterGranted.plus(sum);
        }
        require(clusterGranted.equals(cluster.granted()), "cluster granted " + cluster.granted() + " != " + clusterGranted);

        Map<String, Resources> used = new HashMap<>();
        Map<String, Long> waiting = new HashMap<>();
        long granted = 0;
        int queued = 0;
        for (UnitState u : workload.units()) {
            int sum = 0;
            for (Map.Entry<NodeState, Integer> e : u.nodes().entrySet()) {
                require(cluster.node(e.getKey().name()) == e.getKey(), u + ": holds slots on departed " + e.getKey());
                sum += e.getValue();
            }
            require(sum == u.granted(), u + ": granted " + u.granted() + " but holds " + sum);
            require(u.granted() >= 0 && u.remaining() >= 0, u + ": granted " + u.granted() + ", remaining " + u.remaining());
            require(u.granted() + u.remaining() == u.desired(), u + ": granted + remaining != desired");
            boolean shouldWait = u.live() && u.remaining() > 0;
            require(shouldWait == (u.queuedIn != null), u + ": queued=" + (u.queuedIn != null) + " but should be " + shouldWait);
            if (u.queuedIn != null) {
                queued++;
                waiting.merge(u.group(), (long) u.remaining(), Long::sum);
            }
            used.merge(u.group(), u.slot().times(u.granted()), Resources::plus);
            granted += u.granted();
        }
        require(granted == workload.grantedSlots(), "granted slots " + workload.grantedSlots() + " != " + granted);
        require(queued == workload.waitingUnits(), "waiting units " + workload.waitingUnits() + " != " + queued);
        long totalWaiting = 0;
        for (GroupState g : workload.groups()) {
            require(g.used().equals(used.getOrDefault(g.name(), Resources.ZERO)), g + ": used " + g.used() + " != "
                    + used.getOrDefault(g.name(), Resources.ZERO));
            require(g.waitingSlots() == waiting.getOrDefault(g.name(), 0L), g + ": waiting " + g.waitingSlots());
            require(g.queue.size() + g.gangs.size() == g.waitingUnits(), g + ": queue sizes");
            totalWaiting += g.waitingSlots();
        }
        require(totalWaiting == workload.waitingSlots(), "waiting slots " + workload.waitingSlots() + " != " + totalWaiting);
    }

    private static void require(boolean ok, String what) {
        if (!ok) {
            throw new IllegalStateException("invariant broken: " + what);
        }
    }
}

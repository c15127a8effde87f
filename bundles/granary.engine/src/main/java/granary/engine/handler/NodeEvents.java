package granary.engine.handler;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import granary.api.model.InvalidRequestException;
import granary.api.model.Text;
import granary.api.model.Problem;
import granary.api.model.Resources;
import granary.api.model.UnitKind;
import granary.api.event.NodeAdded;
import granary.api.event.NodeBlacklisted;
import granary.api.event.NodeCapacityChanged;
import granary.api.event.NodeRemoved;
import granary.engine.state.Agenda;
import granary.engine.state.Allocator;
import granary.engine.state.Cluster;
import granary.engine.state.Dims;
import granary.engine.state.NodeState;
import granary.engine.state.UnitState;
import granary.engine.state.Workload;

/** Handlers of the node events: each validates fully before it changes anything. */
public final class NodeEvents {

    private final Cluster cluster;
    private final Workload workload;
    private final Allocator allocator;
    private final Agenda agenda;
    private final Dims dims;

    public NodeEvents(Cluster cluster, Workload workload, Allocator allocator, Agenda agenda, Dims dims) {
        this.cluster = cluster;
        this.workload = workload;
        this.allocator = allocator;
        this.agenda = agenda;
        this.dims = dims;
    }

    public void added(NodeAdded e) {
        String name = e.node().name();
        if (cluster.node(name) != null) {
            throw new InvalidRequestException(InvalidRequestException.DUPLICATE,
                    Problem.of("node " + name, "name", "a node named '" + name + "' is already in the cluster"));
        }
        registerDims(e.node().capacity());
        NodeState n = cluster.add(e.node());
        if (e.blacklisted()) {
            cluster.blacklist(n, true); // before any cycle can look at it
        } else {
            agenda.freed(n);
        }
    }

    public void removed(NodeRemoved e) {
        NodeState n = require(e.node());
        List<String> online = new ArrayList<>();
        n.units().forEach((u, k) -> {
            if (u.kind() == UnitKind.ONLINE) {
                online.add(u.id() + "x" + k);
            }
        });
        if (!online.isEmpty() && !e.force()) {
            throw new InvalidRequestException("node " + n.name(), "force", "holds online grants " + online
                    + "; the master never revokes online work on its own: drain them, or remove with force");
        }
        for (Map.Entry<UnitState, Integer> g : n.units().entrySet()) {   // a copy: the takes change the node
            allocator.take(g.getKey(), n, g.getValue(), false, e.force() ? "node removed (forced)" : "node removed");
        }
        cluster.remove(n);
        agenda.forget(n);
    }

    public void capacityChanged(NodeCapacityChanged e) {
        NodeState n = require(e.node());
        Resources cap = e.capacity();
        if (cap == null || !cap.isNonNegative()) {
            String res = cap == null ? "" : "." + cap.firstNegative();
            throw new InvalidRequestException("node " + n.name(), "capacity" + res, "must not be negative, got " + cap);
        }
        List<Map.Entry<UnitState, Integer>> revoke = overflow(n, cap);
        registerDims(cap);
        for (Map.Entry<UnitState, Integer> g : revoke) {
            allocator.take(g.getKey(), n, g.getValue(), false, "node capacity shrank to " + cap);
        }
        Resources before = n.capacity();
        cluster.capacity(n, cap);
        if (!cap.fitsIn(before)) {   // grew in some resource
            agenda.freed(n);
        }
    }

    /**
     * The offline grants to revoke, newest first, so that the node fits {@code cap}; refuses the
     * change if online grants alone do not fit.
     */
    private static List<Map.Entry<UnitState, Integer>> overflow(NodeState n, Resources cap) {
        Resources online = Resources.ZERO;
        List<Map.Entry<UnitState, Integer>> offline = new ArrayList<>();
        for (Map.Entry<UnitState, Integer> g : n.units().entrySet()) {
            if (g.getKey().kind() == UnitKind.ONLINE) {
                online = online.plus(g.getKey().slot().times(g.getValue()));
            } else {
                offline.add(Map.entry(g.getKey(), g.getValue()));
            }
        }
        if (!online.fitsIn(cap)) {
            throw new InvalidRequestException(new Problem("node " + n.name(), "capacity",
                    "online grants hold " + online + ", more than the new capacity " + cap
                            + "; online work is never revoked by the master", null, null));
        }
        List<Map.Entry<UnitState, Integer>> revoke = new ArrayList<>();
        Resources held = n.granted();
        for (int i = offline.size() - 1; i >= 0 && !held.fitsIn(cap); i--) {
            Map.Entry<UnitState, Integer> g = offline.get(i);
            revoke.add(g);
            held = held.minus(g.getKey().slot().times(g.getValue()));
        }
        return revoke;
    }

    public void blacklisted(NodeBlacklisted e) {
        NodeState n = require(e.node());
        cluster.blacklist(n, e.blacklisted());
        if (!e.blacklisted()) {
            agenda.freed(n);
        }
    }

    private NodeState require(String name) {
        NodeState n = cluster.node(name);
        if (n == null) {
            throw new InvalidRequestException(InvalidRequestException.NOT_FOUND, Problem.of("node " + Text.escape(name), "node",
                    "no node named '" + Text.escape(name) + "' in the cluster (" + cluster.size() + " nodes)"));
        }
        return n;
    }

    private void registerDims(Resources r) {
        if (dims.register(r)) {
            cluster.rebuildVectors();
            workload.rebuildVectors();
        }
    }
}

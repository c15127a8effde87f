package granary.engine;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Set;

import granary.api.spi.EngineStatus;
import granary.api.model.Locality;
import granary.api.spi.PolicyInfo;
import granary.api.model.UnitId;
import granary.api.model.UnitKind;
import granary.api.spi.CycleContext;
import granary.api.spi.Policy;
import granary.api.spi.NodeView;
import granary.api.spi.PlacementContext;
import granary.api.spi.UnitView;

/** The engine state as policies, the console and the simulator see it, and what actions may do. */
final class EngineContext implements CycleContext, PlacementContext {

    private final Engine engine;

    EngineContext(Engine engine) {
        this.engine = engine;
    }

    @Override
    public long now() {
        return engine.now();
    }

    @Override
    public Cluster cluster() {
        return engine.cluster();
    }

    @Override
    public Collection<GroupState> groups() {
        return engine.groups();
    }

    @Override
    public GroupState group(String name) {
        return engine.workload().group(name);
    }

    @Override
    public Collection<JobState> jobs() {
        return engine.workload().jobs();
    }

    @Override
    public JobState job(String id) {
        return engine.workload().job(id);
    }

    @Override
    public UnitState unit(UnitId id) {
        return engine.workload().unit(id);
    }

    @Override
    public Iterable<UnitState> waiting(String group) {
        GroupState g = group(group);
        if (g == null) {
            return Collections.emptyList();
        }
        return () -> merge(g.queue.iterator(), g.gangs.iterator(), engine.workload().order());
    }

    /** Merges two iterators that are each in {@code order}. */
    private static Iterator<UnitState> merge(Iterator<UnitState> a, Iterator<UnitState> b, Comparator<UnitState> order) {
        return new Iterator<>() {
            private UnitState x = a.hasNext() ? a.next() : null;
            private UnitState y = b.hasNext() ? b.next() : null;

            @Override
            public boolean hasNext() {
                return x != null || y != null;
            }

            @Override
            public UnitState next() {
                if (!hasNext()) {
                    throw new NoSuchElementException();
                }
                UnitState r;
                if (y == null || (x != null && order.compare(x, y) <= 0)) {
                    r = x;
                    x = a.hasNext() ? a.next() : null;
                } else {
                    r = y;
                    y = b.hasNext() ? b.next() : null;
                }
                return r;
            }
        };
    }

    @Override
    public EngineStatus status() {
        return engine.status();
    }

    @Override
    public List<PolicyInfo> policies() {
        return engine.policyInfos();
    }

    @Override
    public Policy policy(String name) {
        return engine.installedPolicy(name);
    }

    @Override
    public String resolveGroup(String group) {
        return engine.resolveGroup(group);
    }

    // ---- CycleContext ----

    @Override
    public int schedule(UnitId unit) {
        return engine.scheduleNow(unit);
    }

    @Override
    public void revoke(UnitId unit, String node, int slots, String reason) {
        UnitState u = unit(unit);
        NodeState n = cluster().node(node);
        if (u == null || n == null) {
            throw new IllegalStateException("revoke: unknown " + (u == null ? "unit " + unit : "node " + node));
        }
        if (u.kind() == UnitKind.ONLINE) {
            throw new IllegalStateException("revoke: " + unit + " is online; online grants are never revoked by the master");
        }
        engine.allocator().take(u, n, slots, false, reason);
    }

    @Override
    public void reconsider() {
        engine.reconsider();
    }

    // ---- PlacementContext ----

    /**
     * Found through the node indexes instead of a walk over the cluster: the cluster's index for a
     * unit that may go anywhere; the named machines and the indexes of the named rooms for one its
     * locality limits. An index search skips every subtree with no node that fits one slot, so the
     * cost is O((k + 1) log N) for the k nodes with room for a slot, each then checked for
     * eligibility (blacklists, labels, per-node limit, node filters). Order: index position (join
     * order, a departed node's position reused) — deterministic, not significant.
     */
    @Override
    public Collection<NodeState> candidates(UnitView unit) {
        UnitState u = (UnitState) unit;
        Cluster cluster = cluster();
        List<Locality> prefs = u.spec().locality();
        if (prefs.isEmpty() || prefs.stream().anyMatch(l -> l.level() == Locality.Level.CLUSTER)) {
            List<NodeState> out = new ArrayList<>();
            collect(cluster.index(), u, out);
            return out;
        }
        Set<NodeState> out = new LinkedHashSet<>();
        for (Locality l : prefs) {
            if (l.level() == Locality.Level.MACHINE) {
                NodeState n = cluster.node(l.target());
                if (n != null && engine.eligibility().room(u, n) > 0) {
                    out.add(n);
                }
            } else {
                collect(cluster.room(l.target()), u, out);
            }
        }
        return out;
    }

    /** Adds the nodes of {@code index} that fit one slot of {@code u} and that it may use. */
    private void collect(NodeIndex index, UnitState u, Collection<NodeState> out) {
        if (index == null) {
            return;   // no node stands in that room (any more)
        }
        long[] slot = u.slotVector();
        for (int pos = index.find(0, slot); pos >= 0; pos = index.find(pos + 1, slot)) {
            NodeState n = index.at(pos);
            if (engine.eligibility().room(u, n) > 0) {
                out.add(n);
            }
        }
    }

    @Override
    public boolean mayUse(UnitView unit, NodeView node) {
        return engine.eligibility().mayUse((UnitState) unit, (NodeState) node);
    }

    @Override
    public int room(UnitView unit, NodeView node) {
        return engine.eligibility().room((UnitState) unit, (NodeState) node);
    }

    @Override
    public int admissible(UnitView unit) {
        UnitState u = (UnitState) unit;
        return engine.eligibility().admit(u, u.remaining());
    }
}

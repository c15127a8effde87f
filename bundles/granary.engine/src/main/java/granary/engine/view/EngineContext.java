package granary.engine.view;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Set;
import java.util.function.LongSupplier;

import granary.api.spi.EngineStatus;
import granary.api.spi.ExtensionPoint;
import granary.api.spi.UnitOrder;
import granary.api.model.Locality;
import granary.api.spi.PolicyInfo;
import granary.api.model.UnitId;
import granary.api.model.UnitKind;
import granary.api.spi.CycleContext;
import granary.api.spi.Policy;
import granary.api.spi.NodeView;
import granary.api.spi.PlacementContext;
import granary.api.spi.UnitView;
import granary.engine.cycle.Eligibility;
import granary.engine.policy.PolicySet;
import granary.engine.state.Allocator;
import granary.engine.state.Workload;
import granary.engine.state.Cluster;
import granary.engine.state.GroupState;
import granary.engine.state.JobState;
import granary.engine.state.NodeIndex;
import granary.engine.state.NodeState;
import granary.engine.state.UnitState;

/**
 * The engine state as policies, the console and the simulator see it, and what cycle actions may do.
 * It reads the state directly and asks the engine for the two things it cannot do itself through
 * {@link Requests}, so the engine and its view do not call each other back and forth.
 *
 * <p>Built in two steps because the policy set and the eligibility rules are themselves handed this
 * view: construct it over the state, then {@link #bind} the policy set, the rules and the requests
 * once, before any policy is installed.
 */
public final class EngineContext implements CycleContext, PlacementContext {

    /** What a cycle action may ask of the engine beyond the state (see {@link CycleContext}). */
    public interface Requests {
        /** Schedules one unit now; returns slots granted. */
        int schedule(UnitId unit);

        /** Looks at every node and every waiting gang again in the next allocation. */
        void reconsider();
    }

    private final LongSupplier clock;
    private final Cluster cluster;
    private final Workload workload;
    private final Allocator allocator;
    private PolicySet policies;
    private Eligibility eligibility;
    private Requests requests;

    public EngineContext(LongSupplier clock, Cluster cluster, Workload workload, Allocator allocator) {
        this.clock = clock;
        this.cluster = cluster;
        this.workload = workload;
        this.allocator = allocator;
    }

    /** Completes the view; called once, by the engine's constructor. */
    public void bind(PolicySet policySet, Eligibility rules, Requests engineRequests) {
        this.policies = policySet;
        this.eligibility = rules;
        this.requests = engineRequests;
    }

    /** The workload behind this view: for the benchmark seam ({@code granary.engine.probe}), not for policies. */
    public Workload workload() {
        return workload;
    }

    @Override
    public long now() {
        return clock.getAsLong();
    }

    @Override
    public Cluster cluster() {
        return cluster;
    }

    @Override
    public Collection<GroupState> groups() {
        return workload.groups();
    }

    @Override
    public GroupState group(String name) {
        return workload.group(name);
    }

    @Override
    public Collection<JobState> jobs() {
        return workload.jobs();
    }

    @Override
    public JobState job(String id) {
        return workload.job(id);
    }

    @Override
    public UnitState unit(UnitId id) {
        return workload.unit(id);
    }

    @Override
    public Iterable<UnitState> waiting(String group) {
        GroupState g = group(group);
        if (g == null) {
            return Collections.emptyList();
        }
        return () -> merge(g.queue().iterator(), g.gangs().iterator(), workload.order());
    }

    @Override
    public UnitState head(String group) {
        GroupState g = group(group);
        if (g == null) {
            return null;
        }
        UnitState a = g.queue().head();
        UnitState b = g.gangs().head();
        return a == null ? b : b == null || workload.order().compare(a, b) <= 0 ? a : b;
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
        return new EngineStatus(clock.getAsLong(), cluster.size(), cluster.capacity(), cluster.free(),
                workload.jobs().size(), workload.waitingUnits(), workload.waitingSlots(), workload.grantedSlots(),
                allocator.decisions(), policiesInForce(), policies.held(), policies.problems());
    }

    /**
     * The policy in effect per extension point. While a new unit order is still being built off the
     * engine thread, the queues are ordered by the old one: that is the one reported, until the swap-in
     * (docs/scheduling.md, "Swapping the order off the engine thread").
     */
    private Map<String, String> policiesInForce() {
        Map<String, String> in = policies.status();
        UnitOrder old = workload.unitOrder();
        if (workload.pendingUnitOrder() == null || old == null) {
            return in;
        }
        Map<String, String> copy = new HashMap<>(in);
        copy.put(ExtensionPoint.UNIT_ORDER.id(), old.name());
        return copy;
    }

    @Override
    public List<PolicyInfo> policies() {
        return policies.infos();
    }

    @Override
    public Policy policy(String name) {
        return policies.installed(name);
    }

    @Override
    public String resolveGroup(String group) {
        return policies.groupResolver().resolve(group, this);
    }

    // ---- CycleContext ----

    @Override
    public int schedule(UnitId unit) {
        return requests.schedule(unit);
    }

    @Override
    public void revoke(UnitId unit, String node, int slots, String reason) {
        UnitState u = unit(unit);
        NodeState n = cluster.node(node);
        if (u == null || n == null) {
            throw new IllegalStateException("revoke: unknown " + (u == null ? "unit " + unit : "node " + node));
        }
        if (u.kind() == UnitKind.ONLINE) {
            throw new IllegalStateException("revoke: " + unit + " is online; online grants are never revoked by the master");
        }
        allocator.take(u, n, slots, false, reason);
    }

    @Override
    public void reconsider() {
        requests.reconsider();
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
                if (n != null && eligibility.room(u, n) > 0) {
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
            if (eligibility.room(u, n) > 0) {
                out.add(n);
            }
        }
    }

    @Override
    public boolean mayUse(UnitView unit, NodeView node) {
        return eligibility.mayUse((UnitState) unit, (NodeState) node);
    }

    @Override
    public int room(UnitView unit, NodeView node) {
        return eligibility.room((UnitState) unit, (NodeState) node);
    }

    @Override
    public int admissible(UnitView unit) {
        UnitState u = (UnitState) unit;
        return eligibility.admit(u, u.remaining());
    }
}

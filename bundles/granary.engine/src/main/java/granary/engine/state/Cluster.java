package granary.engine.state;

import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

import granary.api.model.NodeSpec;
import granary.api.model.Resources;
import granary.api.spi.ClusterView;

/**
 * The nodes, their rooms and the fit-search indexes: one {@link NodeIndex} over the whole cluster
 * and one per room, each with its own round-robin cursor.
 */
public final class Cluster implements ClusterView {

    private final Dims dims;
    private final Map<String, NodeState> nodes = new LinkedHashMap<>();
    private final Map<String, NodeIndex> rooms = new TreeMap<>();
    private final NodeIndex all;
    private Resources capacity = Resources.ZERO;
    private Resources granted = Resources.ZERO;
    private Resources largest = Resources.ZERO;
    /** Nodes per label {@code key=value}: whether any node carries a label, in O(1). */
    private final Map<String, Integer> labels = new HashMap<>();

    public Cluster(Dims dims) {
        this.dims = dims;
        this.all = new NodeIndex(dims.size());
    }

    @Override
    public NodeState node(String name) {
        return nodes.get(name);
    }

    @Override
    public Collection<NodeState> nodes() {
        return Collections.unmodifiableCollection(nodes.values());
    }

    @Override
    public Set<String> rooms() {
        return Collections.unmodifiableSet(new TreeSet<>(rooms.keySet()));
    }

    @Override
    public int size() {
        return nodes.size();
    }

    @Override
    public Resources capacity() {
        return capacity;
    }

    @Override
    public Resources granted() {
        return granted;
    }

    @Override
    public Resources free() {
        return capacity.minus(granted);
    }

    @Override
    public Resources largestNode() {
        return largest;
    }

    public NodeIndex index() {
        return all;
    }

    /** The index of a room, or null if no node stands in it. */
    public NodeIndex room(String room) {
        return rooms.get(room);
    }

    /** Adds a node (its resources registered in the dimensions already); returns its record. */
    public NodeState add(NodeSpec spec) {
        NodeState n = new NodeState(spec, dims);
        add(n);
        return n;
    }

    void add(NodeState n) {
        nodes.put(n.name(), n);
        n.clusterPos = all.add(n);
        n.roomPos = rooms.computeIfAbsent(n.room(), r -> new NodeIndex(dims.size())).add(n);
        capacity = capacity.plus(n.capacity());
        largest = largest.max(n.capacity());
        n.labels().forEach((k, v) -> labels.merge(k + "=" + v, 1, Integer::sum));
    }

    /** Whether some node of the cluster carries the label {@code key=value}. */
    public boolean hasLabel(String key, String value) {
        return labels.containsKey(key + "=" + value);
    }

    public void remove(NodeState n) {
        nodes.remove(n.name());
        all.remove(n.clusterPos);
        NodeIndex r = rooms.get(n.room());
        r.remove(n.roomPos);
        if (nodes.values().stream().noneMatch(o -> o.room().equals(n.room()))) {
            rooms.remove(n.room());
        }
        capacity = capacity.minus(n.capacity());
        granted = granted.minus(n.granted());
        n.labels().forEach((k, v) -> labels.computeIfPresent(k + "=" + v, (l, c) -> c == 1 ? null : c - 1));
        recomputeLargest();
    }

    /** Sets a node's capacity (its resources registered in the dimensions already). */
    public void capacity(NodeState n, Resources c) {
        Resources before = n.capacity();
        n.capacity(c, dims);
        capacity = capacity.minus(before).plus(n.capacity());
        recomputeLargest();
        refresh(n);
    }

    void granted(Resources delta) {
        granted = granted.plus(delta);
    }

    /** Puts a node on or takes it off the global blacklist. */
    public void blacklist(NodeState n, boolean b) {
        n.blacklisted(b);
        refresh(n);
    }

    /** Re-indexes a node after its free resources or blacklist state changed. */
    void refresh(NodeState n) {
        long[] v = n.takesWork() ? n.freeVector() : null;
        all.update(n.clusterPos, v);
        rooms.get(n.room()).update(n.roomPos, v);
    }

    /** Rebuilds every vector and index after a new resource dimension appeared. */
    public void rebuildVectors() {
        for (NodeState n : nodes.values()) {
            n.refreshVector(dims);
        }
        all.rebuild(dims.size());
        for (NodeIndex r : rooms.values()) {
            r.rebuild(dims.size());
        }
    }

    private void recomputeLargest() {
        Resources l = Resources.ZERO;
        for (NodeState n : nodes.values()) {
            l = l.max(n.capacity());
        }
        largest = l;
    }
}

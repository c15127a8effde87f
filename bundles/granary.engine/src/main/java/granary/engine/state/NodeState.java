package granary.engine.state;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

import granary.api.model.NodeSpec;
import granary.api.model.Resources;
import granary.api.model.UnitId;
import granary.api.spi.NodeView;

/** The engine's record of one node. Mutated only by {@link Allocator} and the node event handlers. */
public final class NodeState implements NodeView {

    private final NodeSpec spec;
    private Resources capacity;
    private Resources granted = Resources.ZERO;
    private Resources free;
    private long[] freeVector;
    private boolean blacklisted;
    private final Map<UnitState, Integer> slots = new LinkedHashMap<>();
    int clusterPos = -1;
    int roomPos = -1;

    NodeState(NodeSpec spec, Dims dims) {
        this.spec = spec;
        this.capacity = spec.capacity();
        this.free = capacity;
        refreshVector(dims);
    }

    @Override
    public String name() {
        return spec.name();
    }

    @Override
    public String room() {
        return spec.room();
    }

    @Override
    public Map<String, String> labels() {
        return spec.labels();
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
        return free;
    }

    @Override
    public boolean blacklisted() {
        return blacklisted;
    }

    @Override
    public int slotsOf(UnitId unit) {
        for (Map.Entry<UnitState, Integer> e : slots.entrySet()) {
            if (e.getKey().id().equals(unit)) {
                return e.getValue();
            }
        }
        return 0;
    }

    int slotsOf(UnitState unit) {
        return slots.getOrDefault(unit, 0);
    }

    @Override
    public Map<UnitId, Integer> allocations() {
        Map<UnitId, Integer> m = new LinkedHashMap<>();
        slots.forEach((u, n) -> m.put(u.id(), n));
        return Collections.unmodifiableMap(m);
    }

    /** The units with slots here, without looking them up (they are this engine's own). */
    @Override
    public java.util.List<granary.api.spi.UnitView> holders(granary.api.spi.EngineView engine) {
        return new java.util.ArrayList<>(slots.keySet());
    }

    /** Units with slots here, in the order they were first granted. */
    public Map<UnitState, Integer> units() {
        return slots;
    }

    public long[] freeVector() {
        return freeVector;
    }

    /** True if the node may be given new work (not blacklisted). */
    public boolean takesWork() {
        return !blacklisted;
    }

    void blacklisted(boolean b) {
        blacklisted = b;
    }

    void capacity(Resources c, Dims dims) {
        capacity = c;
        free = capacity.minus(granted);
        refreshVector(dims);
    }

    void add(UnitState u, int n) {
        slots.merge(u, n, Integer::sum);
        Resources r = u.slot().times(n);
        granted = granted.plus(r);
        free = free.minus(r);
        subtract(u.slotVector(), n);
    }

    void take(UnitState u, int n) {
        int left = slots.get(u) - n;
        if (left == 0) {
            slots.remove(u);
        } else {
            slots.put(u, left);
        }
        Resources r = u.slot().times(n);
        granted = granted.minus(r);
        free = free.plus(r);
        subtract(u.slotVector(), -n);
    }

    private void subtract(long[] slot, int n) {
        for (int d = 0; d < slot.length; d++) {
            freeVector[d] -= slot[d] * n;
        }
    }

    void refreshVector(Dims dims) {
        freeVector = dims.vector(free);
    }

    @Override
    public String toString() {
        return name();
    }
}

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
    /**
     * What the node holds: one entry per unit with slots here, in the order they were first granted
     * here, linked through the units' own entries (HeldGrants.Held), so a grant or a return costs no
     * lookup of the node's side. The map per node of units to slots it replaces drew a sixth of a
     * quota replay's profile samples (benchmarks/RESULTS.md, "The replay's grants without a map per node").
     */
    private HeldGrants.Held first;
    private HeldGrants.Held last;
    private int holders;
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
        for (HeldGrants.Held h = first; h != null; h = h.nodeNext) {
            if (h.unit.id().equals(unit)) {
                return h.slots;
            }
        }
        return 0;
    }

    int slotsOf(UnitState unit) {
        return unit.slotsOn(this);
    }

    @Override
    public Map<UnitId, Integer> allocations() {
        Map<UnitId, Integer> m = new LinkedHashMap<>();
        for (HeldGrants.Held h = first; h != null; h = h.nodeNext) {
            m.put(h.unit.id(), h.slots);
        }
        return Collections.unmodifiableMap(m);
    }

    /** The units with slots here, without looking them up (they are this engine's own). */
    @Override
    public java.util.List<granary.api.spi.UnitView> holders(granary.api.spi.EngineView engine) {
        java.util.List<granary.api.spi.UnitView> out = new java.util.ArrayList<>(holders);
        for (HeldGrants.Held h = first; h != null; h = h.nodeNext) {
            out.add(h.unit);
        }
        return out;
    }

    /** Units with slots here and their slots, in the order they were first granted (a copy). */
    public Map<UnitState, Integer> units() {
        Map<UnitState, Integer> m = new LinkedHashMap<>(holders * 2);
        for (HeldGrants.Held h = first; h != null; h = h.nodeNext) {
            m.put(h.unit, h.slots);
        }
        return m;
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

    /** {@code n} slots granted here to the unit of {@code h}, which holds {@code h.slots} here now. */
    void add(HeldGrants.Held h, int n) {
        if (h.slots == n) {   // new here: at the end of the list
            h.nodePrev = last;
            h.nodeNext = null;
            if (last == null) {
                first = h;
            } else {
                last.nodeNext = h;
            }
            last = h;
            holders++;
        }
        UnitState u = h.unit;
        Resources r = u.slot().times(n);
        granted = granted.plus(r);
        free = free.minus(r);
        subtract(u.slotVector(), n);
    }

    /** {@code n} slots of the unit of {@code h} returned from here; {@code h.slots} are left here. */
    void take(HeldGrants.Held h, int n) {
        if (h.slots == 0) {
            if (h.nodePrev == null) {
                first = h.nodeNext;
            } else {
                h.nodePrev.nodeNext = h.nodeNext;
            }
            if (h.nodeNext == null) {
                last = h.nodePrev;
            } else {
                h.nodeNext.nodePrev = h.nodePrev;
            }
            h.nodePrev = null;
            h.nodeNext = null;
            holders--;
        }
        UnitState u = h.unit;
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

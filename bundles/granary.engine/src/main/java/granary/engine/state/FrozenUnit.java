package granary.engine.state;

import java.util.List;
import java.util.Map;

import granary.api.model.Allocation;
import granary.api.model.Resources;
import granary.api.model.UnitId;
import granary.api.model.UnitKind;
import granary.api.model.UnitSpec;
import granary.api.spi.JobView;
import granary.api.spi.Reason;
import granary.api.spi.UnitView;

/**
 * A unit's ordering inputs read once, for a unit order rebuilt off the engine thread
 * (docs/scheduling.md, "Swapping the order off the engine thread"). A comparator order (one without a
 * sort key, such as FAIR) compares these copies while it builds, so every comparison of a unit sees
 * the same numbers even if the engine changes the unit meanwhile; such a unit is re-positioned when
 * the new order is swapped in. The numbers that may change while a unit waits are copied; what may
 * not change while it waits (and objects) is read through the unit.
 */
final class FrozenUnit implements UnitView {

    private final UnitState unit;
    private final int priority;
    private final int desired;
    private final int granted;
    private final long submitTime;
    private final long waitingSince;
    private final long sequence;
    private final boolean allOrNothing;
    private final boolean live;

    FrozenUnit(UnitState u) {
        this.unit = u;
        this.priority = u.priority();
        this.desired = u.desired();
        this.granted = u.granted();
        this.submitTime = u.submitTime();
        this.waitingSince = u.waitingSince();
        this.sequence = u.sequence();
        this.allOrNothing = u.allOrNothing();
        this.live = u.live();
    }

    @Override
    public UnitId id() {
        return unit.id();
    }

    @Override
    public JobView job() {
        return unit.job();
    }

    @Override
    public UnitSpec spec() {
        return unit.spec();
    }

    @Override
    public String group() {
        return unit.group();
    }

    @Override
    public int priority() {
        return priority;
    }

    @Override
    public Resources slot() {
        return unit.slot();
    }

    @Override
    public int desired() {
        return desired;
    }

    @Override
    public int granted() {
        return granted;
    }

    @Override
    public int remaining() {
        return desired - granted;
    }

    @Override
    public boolean allOrNothing() {
        return allOrNothing;
    }

    @Override
    public UnitKind kind() {
        return unit.kind();
    }

    @Override
    public long submitTime() {
        return submitTime;
    }

    @Override
    public long waitingSince() {
        return waitingSince;
    }

    @Override
    public long sequence() {
        return sequence;
    }

    @Override
    public Map<String, Integer> allocations() {
        return unit.allocations();
    }

    @Override
    public List<Allocation> grants() {
        return unit.grants();
    }

    @Override
    public Reason waitReason() {
        return unit.waitReason();
    }

    @Override
    public List<granary.api.spi.ReasonTally> reasons() {
        return unit.reasons();
    }

    @Override
    public boolean live() {
        return live;
    }

    @Override
    public String toString() {
        return "frozen " + unit;
    }
}

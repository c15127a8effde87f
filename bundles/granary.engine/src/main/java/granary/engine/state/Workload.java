package granary.engine.state;

import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;

import granary.api.model.JobSpec;
import granary.api.model.UnitId;
import granary.api.model.UnitSpec;
import granary.api.spi.UnitOrder;

/**
 * Jobs, units and group queues, and the rule that keeps a unit queued exactly while it is live and
 * wants slots: all-or-nothing units in their group's gang queue, the others in its slot queue.
 */
public final class Workload {

    /** Arrival order, used while no unit order is in effect: a record of the sequence alone. */
    private static final KeyedOrder BY_SEQUENCE = new KeyedOrder() {
        @Override
        public int compare(UnitState a, UnitState b) {
            return Long.compare(a.sequence(), b.sequence());
        }

        @Override
        public int keyLongs() {
            return 1;
        }

        @Override
        public void key(UnitState u, long[] into, int at) {
            into[at] = u.sequence();
        }
    };

    private final Dims dims;
    private final Map<String, JobState> jobs = new LinkedHashMap<>();
    private final Map<UnitId, UnitState> units = new HashMap<>();
    private final Map<String, GroupState> groups = new TreeMap<>();
    private Comparator<UnitState> order = BY_SEQUENCE;
    private UnitOrder unitOrder;
    private RuntimeException fault;
    private long nextSequence;
    private int waitingUnits;
    private long waitingSlots;
    private long grantedSlots;

    public Workload(Dims dims) {
        this.dims = dims;
    }

    public JobState job(String id) {
        return jobs.get(id);
    }

    public Collection<JobState> jobs() {
        return Collections.unmodifiableCollection(jobs.values());
    }

    public UnitState unit(UnitId id) {
        return units.get(id);
    }

    Collection<UnitState> units() {
        return Collections.unmodifiableCollection(units.values());
    }

    public GroupState group(String name) {
        return groups.get(name);
    }

    public Collection<GroupState> groups() {
        return Collections.unmodifiableCollection(groups.values());
    }

    public JobState addJob(JobSpec spec, long now) {
        JobState j = new JobState(spec, now);
        jobs.put(spec.id(), j);
        groups.computeIfAbsent(j.group(), g -> new GroupState(g, order)).jobs++;
        return j;
    }

    public UnitState addUnit(JobState job, UnitSpec spec, long now) {
        UnitState u = new UnitState(job, spec, nextSequence++, now, dims);
        job.units().add(u);
        units.put(u.id(), u);
        afterChange(u, now);
        return u;
    }

    /** Forgets a finished or cancelled job; its units must hold nothing. */
    public void removeJob(JobState j) {
        for (UnitState u : j.units()) {
            u.end();
            afterChange(u, 0);
            units.remove(u.id());
        }
        jobs.remove(j.id());
        GroupState g = groups.get(j.group());
        if (--g.jobs == 0 && g.usedSlots() == 0) {
            groups.remove(g.name());
        }
    }

    /**
     * Moves a job to another group: its usage, running count and waiting slots go with it, and its
     * waiting units are queued in the new group.
     */
    public void move(JobState j, String to, long now) {
        GroupState from = groups.get(j.group());
        GroupState dest = groups.computeIfAbsent(to, g -> new GroupState(g, order));
        for (UnitState u : j.units()) {
            beforeChange(u, true);
            from.waiting(-u.accountedWaiting);
            dest.waiting(u.accountedWaiting);
            from.granted(u, -u.granted());
            dest.granted(u, u.granted());
        }
        if (j.grantedSlots > 0) {
            from.running(j, -1);
            dest.running(j, 1);
        }
        from.jobs--;
        dest.jobs++;
        j.group(to);
        for (UnitState u : j.units()) {
            afterChange(u, now);
        }
        if (from.jobs == 0 && from.usedSlots() == 0) {
            groups.remove(from.name());
        }
    }

    /**
     * Call before changing what the unit order may read of {@code u}: takes it out of its queue if
     * its key is about to change ({@code keyChanges}), or if the order reads grants.
     */
    void beforeChange(UnitState u, boolean keyChanges) {
        if (u.queuedIn != null && (keyChanges || (unitOrder != null && unitOrder.readsGrants()))) {
            dequeue(u);
        }
    }

    /** Call after any change of {@code u}: queues or dequeues it and updates the waiting counters. */
    void afterChange(UnitState u, long now) {
        boolean wait = u.live() && u.remaining() > 0;
        if (wait && u.queuedIn == null) {
            GroupState g = groups.get(u.group());
            u.queuedIn = u.allOrNothing() ? g.gangs : g.queue;
            u.queuedIn.add(u);
            waitingUnits++;
        } else if (!wait && u.queuedIn != null) {
            dequeue(u);
        }
        int nowWaiting = wait ? u.remaining() : 0;
        long delta = nowWaiting - u.accountedWaiting;
        if (delta != 0) {
            groups.get(u.group()).waiting(delta);
            waitingSlots += delta;
            u.accountedWaiting = nowWaiting;
        }
        u.touchWaiting(now);
    }

    /** Sets how many slots a unit wants (the caller has checked it is no fewer than it holds). */
    public void desire(UnitState u, int desired, long now) {
        beforeChange(u, true);
        u.desired(desired);
        afterChange(u, now);
    }

    /** Ends a unit (cancelled): it leaves its queue; its grants are the caller's to take back. */
    public void end(UnitState u, long now) {
        beforeChange(u, true);
        u.end();
        afterChange(u, now);
    }

    private void dequeue(UnitState u) {
        u.queuedIn.remove(u);
        u.queuedIn = null;
        waitingUnits--;
    }

    /** True if a unit order is in effect; without one the queues hold units by arrival and nothing is scheduled. */
    public boolean ordered() {
        return unitOrder != null;
    }

    public UnitOrder unitOrder() {
        return unitOrder;
    }

    public Comparator<UnitState> order() {
        return order;
    }

    /** Takes another unit order into effect: every queue is re-sorted. */
    public void unitOrder(UnitOrder o) {
        if (o == unitOrder) {
            return;
        }
        unitOrder = o;
        order = o == null ? BY_SEQUENCE : new Guarded(o);
        for (GroupState g : groups.values()) {
            g.queue.reorder(order);
            g.gangs.reorder(order);
        }
    }

    /**
     * The policy's order, then arrival, made safe to call in the middle of a change: if the policy
     * throws, the fault is kept for the engine (which sets the policy aside after the event) and
     * arrival order answers instead, so the queue operation under way completes and no state is left
     * half-changed. One small class rather than composed lambdas: it is on the hot path of every
     * queue operation and of a swap's re-ordering.
     */
    private final class Guarded implements KeyedOrder {
        private final UnitOrder policy;
        /** The policy's sort key width, or -1 if the queues must call {@link #compare} (docs/scheduling.md, "Sort keys"). */
        private final int width;

        Guarded(UnitOrder policy) {
            this.policy = policy;
            this.width = keyWidth(policy);
        }

        @Override
        public int keyLongs() {
            return width < 0 ? 0 : width + 1;
        }

        /**
         * The policy's key, then the sequence. A throwing policy leaves the fault for the engine, as
         * {@link #compare} does, and its key reads as zeros: the queue operation under way completes.
         */
        @Override
        public void key(UnitState u, long[] into, int at) {
            boolean ok = false;
            if (fault == null) {
                try {
                    policy.sortKey(u, into, at);
                    ok = true;
                } catch (RuntimeException e) {
                    fault = e;
                }
            }
            if (!ok) {
                Arrays.fill(into, at, at + width, 0L);
            }
            into[at + width] = u.sequence();
        }

        @Override
        public int compare(UnitState a, UnitState b) {
            if (fault == null) {
                try {
                    int c = policy.compare(a, b);
                    if (c != 0) {
                        return c;
                    }
                } catch (RuntimeException e) {
                    fault = e;
                }
            }
            return Long.compare(a.sequence(), b.sequence());
        }
    }

    /** The policy's sort key width if the queues may use it, else -1 (also if asking throws: the fault is kept). */
    private int keyWidth(UnitOrder policy) {
        try {
            int w = policy.readsGrants() ? -1 : policy.sortKeyWidth();
            return w >= 1 && w <= UnitOrder.MAX_SORT_KEY_WIDTH ? w : -1;
        } catch (RuntimeException e) {
            fault = e;
            return -1;
        }
    }

    /** The fault the unit order raised since the last call, or null. */
    public RuntimeException takeFault() {
        RuntimeException f = fault;
        fault = null;
        return f;
    }

    /**
     * The per-resource minimum slot of every unit waiting slot by slot (gangs aside), or null if none
     * waits: a node whose free resources do not fit it cannot help any queue.
     */
    public long[] minWaitingShape() {
        long[] min = null;
        for (GroupState g : groups.values()) {
            long[] m = g.queue.minShape();
            if (m != null) {
                if (min == null) {
                    min = m.clone();
                } else {
                    for (int d = 0; d < Math.min(min.length, m.length); d++) {
                        min[d] = Math.min(min[d], m[d]);
                    }
                }
            }
        }
        return min;
    }

    void granted(long delta) {
        grantedSlots += delta;
    }

    public int waitingUnits() {
        return waitingUnits;
    }

    public long waitingSlots() {
        return waitingSlots;
    }

    public long grantedSlots() {
        return grantedSlots;
    }

    /** Recomputes slot vectors and queue minimums after a new resource dimension appeared. */
    public void rebuildVectors() {
        for (UnitState u : units.values()) {
            u.refreshVector(dims);
        }
        for (GroupState g : groups.values()) {
            g.queue.refreshMinimums();
            g.gangs.refreshMinimums();
        }
    }
}

package granary.engine.state;

import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Executor;

import granary.api.model.JobSpec;
import granary.api.model.UnitId;
import granary.api.model.UnitSpec;
import granary.api.spi.UnitOrder;
import granary.api.spi.UnitView;

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
        public int compareViews(UnitView a, UnitView b) {
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
    /** Where a new unit order is built (docs/scheduling.md, "Swapping the order off the engine thread"). */
    private final Executor reorders;
    private final Map<String, JobState> jobs = new LinkedHashMap<>();
    private final Map<UnitId, UnitState> units = new HashMap<>();
    private final Map<String, GroupState> groups = new TreeMap<>();
    private Comparator<UnitState> order = BY_SEQUENCE;
    private UnitOrder unitOrder;
    private RuntimeException fault;
    /** The policy whose order raised {@link #fault}. */
    private UnitOrder faultBy;
    /** The unit order being built off the engine thread, or null; {@link #unitOrder} stays in force until it is swapped in. */
    private OrderBuild pending;
    /** Swaps with at most this many waiting units re-sort at once, on the engine thread. */
    private final int deferAbove;
    private long nextSequence;
    private int waitingUnits;
    private long waitingSlots;
    private long grantedSlots;

    /** A workload whose unit orders are built on the engine thread, at once (tests, the simulator). */
    public Workload(Dims dims) {
        this(dims, Runnable::run);
    }

    /**
     * @param reorders runs the build of a new unit order; a direct executor ({@code Runnable::run})
     *                 makes every swap synchronous, as deterministic as before
     */
    public Workload(Dims dims, Executor reorders) {
        this(dims, reorders, 0);
    }

    /**
     * @param deferAbove a swap is built off the thread only with more waiting units than this; below,
     *                   re-sorting at once costs less than a build's hand-off and the next event's
     *                   wait (docs/scheduling.md, "Swapping the order off the engine thread")
     */
    public Workload(Dims dims, Executor reorders, int deferAbove) {
        if (deferAbove < 0) {
            throw new IllegalArgumentException("deferAbove must be 0 or more waiting units, got " + deferAbove);
        }
        this.dims = dims;
        this.reorders = reorders;
        this.deferAbove = deferAbove;
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
        if (pending != null) {
            pending.touched.add(u);
        }
        if (u.queuedIn != null && (keyChanges || (unitOrder != null && unitOrder.readsGrants()))) {
            dequeue(u);
        }
    }

    /** Call after any change of {@code u}: queues or dequeues it and updates the waiting counters. */
    void afterChange(UnitState u, long now) {
        if (pending != null) {
            pending.touched.add(u);
        }
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

    /** Replaces the unit's blacklist (its spec as requested, but for the nodes it is kept off). */
    public void blacklist(UnitState u, java.util.Set<String> nodes, long now) {
        beforeChange(u, true);
        u.blacklist(nodes);
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

    /** Takes another unit order into effect at once, on this thread: every queue is re-sorted. */
    public void unitOrder(UnitOrder o) {
        unitOrder(o, false);
    }

    /**
     * Takes another unit order into effect (docs/scheduling.md, "Swapping the order off the engine
     * thread"). With {@code mayDefer} and an order in effect already, the new heaps are built by the
     * executor from a snapshot while the current order stays in force, and {@link #swapIn} puts them in
     * force once built (at once with a direct executor). Without {@code mayDefer} (the order in force
     * is going away: uninstalled, set aside) the queues are re-sorted now, on this thread. A swap back
     * to the order in force before the build finished just drops the build.
     */
    public void unitOrder(UnitOrder o, boolean mayDefer) {
        if (pending != null) {
            if (o == pending.target && mayDefer) {
                return;
            }
            pending.cancelled = true;
            pending = null;
        }
        if (o == unitOrder) {
            return;
        }
        if (!mayDefer || o == null || unitOrder == null || waitingUnits <= deferAbove) {
            reorderNow(o);
            return;
        }
        OrderBuild b = new OrderBuild(o, fault != null);
        KeyedOrder built = new Guarded(o, b);
        for (GroupState g : groups.values()) {
            b.queues.put(g.queue, g.queue.snapshot(built));
            b.queues.put(g.gangs, g.gangs.snapshot(built));
        }
        pending = b;
        reorders.execute(b);
        swapIn();   // a direct executor has built it already
    }

    private void reorderNow(UnitOrder o) {
        unitOrder = o;
        order = o == null ? BY_SEQUENCE : new Guarded(o, null);
        for (GroupState g : groups.values()) {
            g.queue.reorder(order);
            g.gangs.reorder(order);
        }
    }

    /** The unit order being built to replace {@link #unitOrder()}, or null. */
    public UnitOrder pendingUnitOrder() {
        return pending == null ? null : pending.target;
    }

    /** True if a unit order finished building and waits for {@link #swapIn}. */
    public boolean swapReady() {
        return pending != null && pending.done();
    }

    /**
     * Puts a finished build in force, on the engine thread: the units touched since the snapshot are
     * taken out of their queues, every queue's new heaps are swapped in (the positions of those units
     * dropped), and the units that still wait are re-queued under the new order. O(S log S + t log n)
     * for S shapes and t touched units. Returns false if no build was ready.
     */
    public boolean swapIn() {
        OrderBuild b = pending;
        if (b == null || !b.done()) {
            return false;
        }
        pending = null;
        if (b.failure != null) {
            reorderNow(b.target);   // the build broke, not the policy: re-sort here, as without a build
            return true;
        }
        for (UnitState u : b.touched) {
            if (u.queuedIn != null) {
                u.queuedIn.remove(u);
            }
        }
        unitOrder = b.target;
        order = new Guarded(b.target, null);
        for (GroupState g : groups.values()) {
            install(b, g.queue);
            install(b, g.gangs);
        }
        for (UnitState u : b.touched) {
            if (u.queuedIn != null) {
                u.queuedIn.add(u);
            }
        }
        if (b.fault != null && fault == null) {
            fault = b.fault;
            faultBy = b.target;
        }
        return true;
    }

    private void install(OrderBuild b, FitQueue q) {
        FitQueue.Rebuild r = b.queues.get(q);
        if (r != null) {
            r.install(order);
        } else {
            q.reorder(order);   // a queue made since the snapshot: only touched units, taken out now
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
        /** The off-thread build this order serves, or null for the order in force (faults go to the workload). */
        private final OrderBuild build;
        /** The policy's sort key width, or -1 if the queues must call {@link #compare} (docs/scheduling.md, "Sort keys"). */
        private final int width;

        Guarded(UnitOrder policy, OrderBuild build) {
            this.policy = policy;
            this.build = build;
            this.width = keyWidth(policy);
        }

        private boolean faulted() {
            return build == null ? fault != null : build.fault != null || build.faultPending;
        }

        private void faulted(RuntimeException e) {
            if (build != null) {
                build.fault = e;
            } else {
                fault = e;
                faultBy = policy;
            }
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
            if (!faulted()) {
                try {
                    policy.sortKey(u, into, at);
                    ok = true;
                } catch (RuntimeException e) {
                    faulted(e);
                }
            }
            if (!ok) {
                Arrays.fill(into, at, at + width, 0L);
            }
            into[at + width] = u.sequence();
        }

        @Override
        public int compare(UnitState a, UnitState b) {
            return compareViews(a, b);
        }

        @Override
        public int compareViews(UnitView a, UnitView b) {
            if (!faulted()) {
                try {
                    int c = policy.compare(a, b);
                    if (c != 0) {
                        return c;
                    }
                } catch (RuntimeException e) {
                    faulted(e);
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
            faultBy = policy;
            return -1;
        }
    }

    /** The fault the unit order raised since the last call, or null. */
    public RuntimeException takeFault() {
        RuntimeException f = fault;
        fault = null;
        return f;
    }

    /** The policy whose order raised the fault {@link #takeFault} would return, or null. */
    public UnitOrder faultyOrder() {
        return fault == null ? null : faultBy;
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
        if (pending != null) {
            UnitOrder target = pending.target;   // every bucket changes: re-sort here rather than patch the build
            pending.cancelled = true;
            pending = null;
            reorderNow(target);
        }
        for (UnitState u : units.values()) {
            u.refreshVector(dims);
        }
        for (GroupState g : groups.values()) {
            g.queue.refreshMinimums();
            g.gangs.refreshMinimums();
        }
    }
}

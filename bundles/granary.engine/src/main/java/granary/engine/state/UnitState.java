package granary.engine.state;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import granary.api.model.Allocation;
import granary.api.model.Locality;
import granary.api.model.Resources;
import granary.api.model.UnitId;
import granary.api.model.UnitKind;
import granary.api.model.UnitSpec;
import granary.api.spi.Reason;
import granary.api.spi.ReasonCode;
import granary.api.spi.ReasonTally;
import granary.api.spi.JobView;
import granary.api.spi.UnitView;

/**
 * The engine's record of one schedule unit. Invariant: {@code granted + remaining == desired}, kept
 * by computing remaining. Mutated only by {@link Allocator} and {@link Workload}.
 */
public final class UnitState implements UnitView {

    private final UnitId id;
    /**
     * The job, seen through the api's read-only {@link JobView}: the unit reads its group and gang
     * flag from it and never calls back into the engine's {@link JobState} (which owns the units).
     */
    private final JobView job;
    /** The job's gang flag, fixed at submission: read on every queue operation. */
    private final boolean gangJob;
    private UnitSpec spec;
    private final long sequence;
    private final long submitTime;
    /** The spec's priority, kept here: unit orders read it on every comparison (one object less to reach). */
    private final int priority;
    private long[] slotVector;
    private int desired;
    private int granted;
    private long waitingSince = -1;
    private Reason waitReason;
    /**
     * The why-not-scheduled ledger (docs/scheduling.md, "Why is my job not scheduled?"). A unit that
     * has met one reason once — most units that wait at all — keeps it in {@link #waitReason} with
     * the time and cycle below (12 bytes of every unit) and allocates nothing; from a second finding
     * on, a chain of one
     * entry per code seen (48 bytes each; an array of counts per code would cost ~140 bytes per
     * waiting unit, and even one small object per waiting unit measured 5 % of CPU time on the
     * 10^5-waiting-unit throughput run, from heap layout alone). Dropped when nothing waits.
     */
    private WaitTally tallies;
    /** Engine time the latest reason was found; -1 if it was recorded with the ledger off. */
    private long reasonAt = -1;
    /** The cycle the latest reason was found in. */
    private int reasonCycle;
    private boolean live = true;
    /** Per node: the slots, when its oldest and latest grants were made, and the latest's decision. */
    private final HeldGrants held;
    /** True while the unit waits in its group's queue or gang queue. */
    public boolean queued() {
        return queuedIn != null;
    }

    /** Where the unit waits now: null, or its group's queue or gang queue. */
    FitQueue queuedIn;
    /** Its slot in its shape bucket while queued (see FitQueue.Bucket), else -1. */
    int bucketSlot = -1;
    /** The shape bucket it sits in while queued, else null. */
    FitQueue.Bucket bucket;
    /** Remaining slots last counted in the waiting totals. */
    int accountedWaiting;

    /**
     * Locality targets; shared empty sets for the usual unit without preferences (two hash sets per
     * unit were ~130 bytes of a million waiting units' heap: benchmarks/RESULTS.md, "Issue 11").
     */
    private final Set<String> machines;
    private final Set<String> rooms;
    private final boolean anywhere;

    public UnitState(JobView job, UnitSpec spec, long sequence, long now, Dims dims) {
        this.id = new UnitId(job.id(), spec.name());
        this.held = new HeldGrants(this);
        boolean any = spec.locality().isEmpty();
        Set<String> m = new HashSet<>();
        Set<String> r = new HashSet<>();
        for (Locality l : spec.locality()) {
            switch (l.level()) {
                case MACHINE -> m.add(l.target());
                case ROOM -> r.add(l.target());
                case CLUSTER -> any = true;
            }
        }
        this.anywhere = any;
        this.machines = m.isEmpty() ? Collections.emptySet() : m;   // not Set.of(): contains(null) must answer false
        this.rooms = r.isEmpty() ? Collections.emptySet() : r;
        this.job = job;
        this.gangJob = job.gang();
        this.spec = spec;
        this.sequence = sequence;
        this.submitTime = now;
        this.priority = spec.priority();
        this.desired = spec.desired();
        refreshVector(dims);
    }

    @Override
    public UnitId id() {
        return id;
    }

    @Override
    public JobView job() {
        return job;
    }

    @Override
    public UnitSpec spec() {
        return spec.desired() == desired ? spec : (spec = spec.withDesired(desired));
    }

    /**
     * The unit as requested, whatever its desired count now: what the decision path reads (slot,
     * limits, blacklist, labels) without rebuilding the spec after every desire change.
     */
    public UnitSpec request() {
        return spec;
    }

    @Override
    public String group() {
        return job.group();
    }

    @Override
    public int priority() {
        return priority;
    }

    @Override
    public Resources slot() {
        return spec.slot();
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
        return spec.allOrNothing() || gangJob;
    }

    @Override
    public UnitKind kind() {
        return spec.kind();
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
        Map<String, Integer> m = new LinkedHashMap<>();
        held.slotsByNode().forEach((n, k) -> m.put(n.name(), k));
        return Collections.unmodifiableMap(m);
    }

    @Override
    public Reason waitReason() {
        return waitReason;
    }

    @Override
    public boolean live() {
        return live;
    }

    /** True if the unit's locality preferences allow the node (a CLUSTER preference allows all). */
    public boolean localityAllows(NodeState n) {
        return anywhere || machines.contains(n.name()) || rooms.contains(n.room());
    }

    /** Slots held per node, in the order the nodes were first granted (a copy). */
    public Map<NodeState, Integer> nodes() {
        return held.slotsByNode();
    }

    public int slotsOn(NodeState n) {
        return held.slotsOn(n);
    }

    public long[] slotVector() {
        return slotVector;
    }

    void refreshVector(Dims dims) {
        slotVector = dims.vector(spec.slot());
    }

    /**
     * Records that the unit waits for {@code r} (the ledger's one way in is the cycle's
     * {@code WaitLedger}): it becomes the latest reason, and with {@code tally} it counts in the
     * ledger, at most once per cycle.
     */
    public void waitedFor(Reason r, long now, int cycle, boolean tally) {
        if (tally && (tallies != null || !onlyThis(r.code(), cycle))) {
            firstToChain();
            if (tallies != null) {
                WaitTally t = tally(r.code());
                t.found(cycle, now);
                t.last = r;
                t.builtAt = now;
            }
        }
        waitReason = r;
        reasonAt = tally ? now : -1;
        reasonCycle = cycle;
    }

    /**
     * Counts a reason of code {@code c} again, keeping its recorded text, if that text was recorded
     * this cycle or at most {@code freshMillis} ago; then it is the latest reason and the answer is
     * true. False: there is none fresh enough, the caller builds one and calls {@link #waitedFor}.
     */
    public boolean waitedAgain(ReasonCode c, long now, int cycle, long freshMillis) {
        if (tallies == null) {
            if (waitReason == null || reasonAt < 0 || !waitReason.code().equals(c)
                    || (reasonCycle != cycle && now - reasonAt > freshMillis)) {
                return false;
            }
            if (reasonCycle == cycle) {
                return true;   // found again in the same cycle: counted already (and its time is when its text was built)
            }
            firstToChain();
        }
        WaitTally t = find(c);
        if (t == null || (t.cycle != cycle && now - t.builtAt > freshMillis)) {
            return false;
        }
        t.found(cycle, now);
        waitReason = t.last;
        reasonAt = now;
        reasonCycle = cycle;
        return true;
    }

    /** True while the ledger is nothing but the latest reason, found once, and {@code c} in the same cycle adds nothing. */
    private boolean onlyThis(ReasonCode c, int cycle) {
        return waitReason == null || reasonAt < 0 || (waitReason.code().equals(c) && reasonCycle == cycle);
    }

    /** The one reason found once becomes the first entry of the chain. */
    private void firstToChain() {
        if (tallies == null && waitReason != null && reasonAt >= 0) {
            WaitTally t = tally(waitReason.code());
            t.found(reasonCycle, reasonAt);
            t.last = waitReason;
            t.builtAt = reasonAt;
        }
    }

    /**
     * The ledger, the most frequent reason first, then the most recent; while no ledger is kept (it
     * is switched off) the single latest reason, at an unknown time.
     */
    @Override
    public List<ReasonTally> reasons() {
        if (waitReason == null || remaining() <= 0 || !live) {
            return List.of();
        }
        if (tallies == null) {
            return List.of(new ReasonTally(waitReason.code(), 1, waitReason, reasonAt));
        }
        List<ReasonTally> out = new ArrayList<>(2);
        for (WaitTally t = tallies; t != null; t = t.next) {
            out.add(t.view());
        }
        out.sort(Comparator.comparingLong(ReasonTally::count).reversed()
                .thenComparing(Comparator.comparingLong(ReasonTally::lastAtMillis).reversed()));
        return out;
    }

    private WaitTally find(ReasonCode c) {
        WaitTally t = tallies;
        while (t != null && !t.code.equals(c)) {
            t = t.next;
        }
        return t;
    }

    private WaitTally tally(ReasonCode c) {
        WaitTally t = find(c);
        if (t == null) {
            t = new WaitTally(c);
            t.next = tallies;
            tallies = t;
        }
        return t;
    }

    void desired(int d) {
        desired = d;
    }

    void blacklist(java.util.Set<String> nodes) {
        spec = spec.withBlacklist(nodes);
    }

    void end() {
        live = false;
    }

    /** {@code k} slots granted on {@code n}; returns the node's entry (NodeState links a new one). */
    HeldGrants.Held add(NodeState n, int k, long now, long seq) {
        granted += k;
        return held.add(n, k, now, seq);
    }

    /** {@code k} slots taken back from {@code n}; returns the node's entry, with what is left there. */
    HeldGrants.Held take(NodeState n, int k) {
        granted -= k;
        return held.take(n, k);
    }

    /** Engine time of the oldest grant the unit holds on {@code n}, or -1 if it holds none there. */
    public long heldSince(NodeState n) {
        return held.since(n);
    }

    @Override
    public List<Allocation> grants() {
        return held.all();
    }

    @Override
    public Allocation grantOn(granary.api.spi.NodeView node) {
        return node instanceof NodeState n ? held.on(n) : UnitView.super.grantOn(node);
    }

    @Override
    public List<Allocation> oldestGrants(long wanted) {
        List<Allocation> oldest = held.oldest(wanted);
        return oldest != null ? oldest : UnitView.super.oldestGrants(wanted);
    }

    @Override
    public List<Allocation> newestGrants(long wanted, long startedBy) {
        return held.newest(wanted, startedBy);
    }

    /** Updates the waiting clock after a change: starts when slots wait, stops when none do. */
    void touchWaiting(long now) {
        if (remaining() > 0 && live) {
            if (waitingSince < 0) {
                waitingSince = now;
            }
        } else {
            waitingSince = -1;
            waitReason = null;
            reasonAt = -1;
            tallies = null;   // the ledger covers one stretch of waiting (docs/scheduling.md, "Why is my job not scheduled?")
        }
    }

    @Override
    public String toString() {
        return id.toString();
    }
}

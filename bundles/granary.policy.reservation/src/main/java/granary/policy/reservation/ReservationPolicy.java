package granary.policy.reservation;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import granary.api.model.Resources;
import granary.api.model.UnitId;
import granary.api.spi.CycleAction;
import granary.api.spi.CycleContext;
import granary.api.spi.EngineView;
import granary.api.spi.JobView;
import granary.api.spi.NodeFilter;
import granary.api.spi.NodeView;
import granary.api.spi.UnitView;
import granary.api.spi.Verdict;

/**
 * Reservation against starvation, Volcano style (docs/policies.md, "reservation"). A big or low-priority job can starve
 * while smaller or higher-priority ones keep taking every slot that frees up; this policy gives one
 * such job at a time a node group that drains for it.
 *
 * <ul>
 *   <li><b>Elect</b> ({@link #beforeAllocate}, before allocation): if no reservation is in force,
 *       the {@link Elector} picks the target among jobs that have waited past the threshold —
 *       highest priority, then longest waiting.</li>
 *   <li><b>Reserve</b> ({@link #afterAllocate}, after allocation, so that what allocation could
 *       place is placed first): lock the next node of the {@link NodeGroup} — spec first or idle
 *       first — one node per cycle, until the locked nodes cover what the target still wants.</li>
 *   <li><b>Locks</b> ({@link #filter}, {@link #reservedFor}): a locked node takes no new work but
 *       the target's; running work is not evicted and drains on its own (non-preemptive). The target
 *       may still be placed anywhere.</li>
 *   <li><b>Release</b>: all locks go at once, and the engine looks at every node again, when the
 *       target is placed (a gang whole; an elastic unit once it gets slots again, see
 *       {@link Reservation}), cancelled or finished, when the reservation times out, or when the
 *       policy is detached (its bundle stops). A lock is only in force while its reservation holds:
 *       if the target is placed in the middle of a cycle, its locks stop counting at once and are
 *       dropped at the next step.</li>
 * </ul>
 */
public class ReservationPolicy implements CycleAction, NodeFilter {

    /** The policy's name: console, status and HTTP use it. */
    public static final String NAME = "reservation";

    private final ReservationOptions options;
    private final Elector elector;
    private Reservation current;
    private EngineView view;

    public ReservationPolicy() {
        this(ReservationOptions.DEFAULTS);
    }

    public ReservationPolicy(ReservationOptions options) {
        this.options = options;
        this.elector = new Elector(options.thresholdMillis());
    }

    @Override
    public String name() {
        return NAME;
    }

    public ReservationOptions options() {
        return options;
    }

    @Override
    public void attach(EngineView v) {
        this.view = v;
    }

    /** Drops the reservation and every lock; the engine then looks at every node again. */
    @Override
    public void detach() {
        current = null;
        elector.reset();
    }

    // ---- cycle: elect before allocation, reserve after ----

    @Override
    public void beforeAllocate(CycleContext ctx) {
        endIfDone(ctx);
        if (current == null) {
            JobView target = elector.elect(ctx);
            if (target != null) {
                current = new Reservation(target, ctx.now());
                current.refresh(target, ctx);
            }
        }
    }

    @Override
    public void afterAllocate(CycleContext ctx) {
        endIfDone(ctx);
        if (current != null) {
            current.reserve(current.activeTarget(ctx), options.mode(), ctx);
        }
    }

    /** Ends the reservation if it is fulfilled, its target gone, or its time up. */
    private void endIfDone(CycleContext ctx) {
        if (current == null) {
            return;
        }
        if (current.activeTarget(ctx) == null) {
            release(ctx);
        } else if (current.expired(ctx.now(), options.timeoutMillis())) {
            elector.holdBack(current.target(), ctx.now());
            release(ctx);
        }
    }

    private void release(CycleContext ctx) {
        boolean hadLocks = current.hasLocks();
        current = null;
        elector.rescan();
        if (hadLocks) {
            ctx.reconsider();   // the nodes take any work again: look at them
        }
    }

    // ---- node filter ----

    @Override
    public Verdict filter(UnitView unit, NodeView node) {
        Reservation r = current;
        if (r == null) {
            return Verdict.ALLOW;
        }
        Verdict locked = r.lockedAnswer(node.name());
        if (locked == null || r.target().equals(unit.job().id()) || r.activeTarget(view) == null) {
            return Verdict.ALLOW;
        }
        return locked;
    }

    @Override
    public Set<UnitId> reservedFor(NodeView node) {
        Reservation r = current;
        if (r == null || r.lockedAnswer(node.name()) == null || r.activeTarget(view) == null) {
            return null;
        }
        return r.units();
    }

    /** The target as kept now, or null; whether its locks are in force aside (for tests). */
    String targetNow() {
        return current == null ? null : current.target();
    }

    /** The nodes locked now, in locking order, whether in force or not (for tests). */
    List<String> lockedNow() {
        return current == null ? List.of() : current.lockedNames();
    }

    // ---- reports ----

    /** The reservation in force; a report with a null target when there is none. */
    public ReservationReport reservation(EngineView v) {
        JobView target = current == null ? null : current.activeTarget(v);
        if (target == null) {
            return new ReservationReport(null, 0, List.of(), Resources.ZERO, Resources.ZERO, 0, 0);
        }
        return current.report(target, v, options.timeoutMillis());
    }

    @Override
    public Map<String, String> status() {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("mode", options.mode().name());
        m.put("thresholdMillis", Long.toString(options.thresholdMillis()));
        m.put("timeoutMillis", Long.toString(options.timeoutMillis()));
        ReservationReport r = view == null ? null : reservation(view);
        m.put("target", r == null || r.target() == null ? "-" : r.target());
        m.put("locked", Integer.toString(r == null ? 0 : r.lockedNodes().size()));
        return m;
    }
}

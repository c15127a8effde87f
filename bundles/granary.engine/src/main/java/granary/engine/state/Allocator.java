package granary.engine.state;

import java.util.function.Consumer;
import java.util.function.LongSupplier;

import granary.api.model.Resources;
import granary.api.event.Granted;
import granary.api.event.OutputEvent;
import granary.api.event.Released;
import granary.api.event.Revoked;

/**
 * The only place where slots change hands. Every grant and every return updates the node, the unit,
 * its job and group, the cluster totals, the fit indexes and the queues together, and emits the
 * decision. It never grants beyond a node's free resources.
 */
public final class Allocator {

    private final Cluster cluster;
    private final Workload workload;
    private final LongSupplier clock;
    private final Consumer<OutputEvent> out;
    private final Agenda agenda;
    private long decisions;

    public Allocator(Cluster cluster, Workload workload, Agenda agenda, LongSupplier clock, Consumer<OutputEvent> out) {
        this.cluster = cluster;
        this.agenda = agenda;
        this.workload = workload;
        this.clock = clock;
        this.out = out;
    }

    /** Grants {@code k} slots of {@code u} on {@code n}; the caller has checked eligibility. */
    public void grant(UnitState u, NodeState n, int k) {
        if (k <= 0) {
            return;
        }
        if (k > u.remaining() || k > u.slot().copiesIn(n.free())) {
            throw new IllegalStateException("grant of " + k + " slots of " + u + " on " + n + " exceeds "
                    + "remaining " + u.remaining() + " or free " + n.free());
        }
        workload.beforeChange(u, false);
        long seq = ++decisions;
        move(u, n, k, seq);
        workload.afterChange(u, clock.getAsLong());
        out.accept(new Granted(u.id(), n.name(), k, u.kind(), seq));
    }

    /**
     * Takes {@code k} slots of {@code u} back from {@code n}. A release ({@code done}) also lowers
     * the unit's desire: the work is finished. A revocation keeps the desire: the slots wait again.
     */
    public void take(UnitState u, NodeState n, int k, boolean done, String reason) {
        if (k <= 0 || k > u.slotsOn(n)) {
            throw new IllegalStateException(u + " holds " + u.slotsOn(n) + " slots on " + n + ", cannot take " + k);
        }
        workload.beforeChange(u, done);
        move(u, n, -k, 0);
        if (done) {
            u.desired(u.desired() - k);
        }
        workload.afterChange(u, clock.getAsLong());
        agenda.freed(n);
        if (!done) {
            agenda.fresh(u);
            out.accept(new Revoked(u.id(), n.name(), k, u.kind(), reason, ++decisions));
        } else {
            out.accept(new Released(u.id(), n.name(), k, u.kind(), decisions));
        }
    }

    private void move(UnitState u, NodeState n, int k, long seq) {
        JobState job = JobState.of(u);
        GroupState g = workload.group(u.group());
        Resources delta = u.slot().times(Math.abs(k));
        if (k > 0) {
            n.add(u.add(n, k, clock.getAsLong(), seq), k);
            cluster.granted(delta);
        } else {
            n.take(u.take(n, -k), -k);
            cluster.granted(Resources.ZERO.minus(delta));
        }
        g.granted(u, k);
        boolean wasRunning = job.grantedSlots > 0;
        job.grantedSlots += k;
        if (wasRunning != job.grantedSlots > 0) {
            g.running(job, wasRunning ? -1 : 1);
        }
        workload.granted(k);
        cluster.refresh(n);
    }

    public long decisions() {
        return decisions;
    }
}

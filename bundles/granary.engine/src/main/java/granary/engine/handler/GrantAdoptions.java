package granary.engine.handler;

import java.util.ArrayList;
import java.util.List;

import granary.api.event.GrantAdopted;
import granary.api.model.InvalidRequestException;
import granary.api.model.Problem;
import granary.api.model.Text;
import granary.engine.state.Allocator;
import granary.engine.state.Cluster;
import granary.engine.state.NodeState;
import granary.engine.state.UnitState;
import granary.engine.state.Workload;

/**
 * Takes on grants a unit already holds ({@link GrantAdopted}): every check first, then one
 * {@link Allocator#grant}, so the books stay in step as for a decided grant. No policy is asked
 * (docs/canary.md, "Starting from the live state").
 */
public final class GrantAdoptions {

    private final Cluster cluster;
    private final Workload workload;
    private final Allocator allocator;

    private final java.util.function.LongSupplier now;

    public GrantAdoptions(Cluster cluster, Workload workload, Allocator allocator, java.util.function.LongSupplier now) {
        this.cluster = cluster;
        this.workload = workload;
        this.allocator = allocator;
        this.now = now;
    }

    public void adopted(GrantAdopted e) {
        UnitState u = e.unit() == null ? null : workload.unit(e.unit());
        if (u == null || !u.live()) {
            throw new InvalidRequestException(InvalidRequestException.NOT_FOUND, Problem.of("unit " + e.unit(), "unit",
                    "no live unit '" + Text.escape(String.valueOf(e.unit())) + "'"));
        }
        NodeState n = e.node() == null ? null : cluster.node(e.node());
        if (n == null) {
            throw new InvalidRequestException(InvalidRequestException.NOT_FOUND, Problem.of("unit " + e.unit(), "node",
                    "no node named '" + Text.escape(String.valueOf(e.node())) + "' in the cluster"));
        }
        // checked first, worded only if refused: a rebuild adopts 200,000 grants in one batch
        int max = u.spec().maxPerNode();
        if (e.slots() < 1 || (!e.raiseDesired() && e.slots() > u.remaining()) || e.slots() > u.slot().copiesIn(n.free())
                || (max > 0 && u.slotsOn(n) + e.slots() > max)) {
            throw new InvalidRequestException(problems(e, u, n));
        }
        if (e.raiseDesired()) {
            workload.desire(u, u.desired() + e.slots(), now.getAsLong());
        }
        allocator.grant(u, n, e.slots());
    }

    private static List<Problem> problems(GrantAdopted e, UnitState u, NodeState n) {
        String subject = "unit " + e.unit();
        List<Problem> problems = new ArrayList<>();
        if (e.slots() < 1) {
            problems.add(new Problem(subject, "slots", "must be at least 1, got " + e.slots(), 1L, (long) e.slots()));
            return problems;
        }
        if (!e.raiseDesired() && e.slots() > u.remaining()) {
            problems.add(new Problem(subject, "slots", "waits for " + u.remaining() + " slots, cannot adopt "
                    + e.slots(), (long) u.remaining(), (long) e.slots()));
        }
        int room = u.slot().copiesIn(n.free());
        if (e.slots() > room) {
            problems.add(new Problem(subject, "slots", "node " + n.name() + " has room for " + room + " slots of "
                    + u.slot() + " (free " + n.free() + "), cannot adopt " + e.slots(), (long) room, (long) e.slots()));
        }
        int max = u.spec().maxPerNode();
        if (max > 0 && u.slotsOn(n) + e.slots() > max) {
            problems.add(new Problem(subject, "slots", "maxPerNode " + max + " on node " + n.name() + ": holds "
                    + u.slotsOn(n) + ", cannot adopt " + e.slots(), (long) max, (long) (u.slotsOn(n) + e.slots())));
        }
        return problems;
    }
}

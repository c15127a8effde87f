package granary.policy.gang;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import granary.api.model.JobSpec;
import granary.api.model.Locality;
import granary.api.model.Resources;
import granary.api.model.UnitSpec;
import granary.api.spi.ClusterView;
import granary.api.spi.NodeView;
import granary.api.spi.Reason;
import granary.api.spi.ReasonCode;
import granary.api.spi.Verdict;

/**
 * Refuses at submit a gang that can never fit the cluster as it is, instead of letting it wait
 * forever. Two necessary conditions are checked (exact packing is NP-hard; a gang that passes both
 * but still cannot be packed waits):
 * <ol>
 *   <li>the gang's total — every all-or-nothing slot it asks for, at once — is within the whole
 *       cluster's capacity in every resource;</li>
 *   <li>per unit, the nodes it may ever use (its locality, its own blacklist, its node selector)
 *       can hold its desired slots together, counting per node how many slots fit in the node's
 *       capacity, capped by the unit's per-node maximum. The walk stops as soon as enough are
 *       found, so a gang that fits costs a few nodes, not the cluster.</li>
 * </ol>
 * The global blacklist is not counted against a gang: it is an operator's temporary measure.
 */
final class NeverFits {

    private NeverFits() {
    }

    static Verdict check(JobSpec job, ClusterView cluster) {
        for (List<UnitSpec> gang : gangs(job)) {
            Verdict v = check(job, gang, cluster);
            if (v.code() == Verdict.Code.REJECT) {
                return v;
            }
        }
        return Verdict.ALLOW;
    }

    /** The job's gangs: all its units (a gang job), or each all-or-nothing unit alone. */
    private static List<List<UnitSpec>> gangs(JobSpec job) {
        List<List<UnitSpec>> gangs = new ArrayList<>();
        List<UnitSpec> whole = new ArrayList<>();
        for (UnitSpec u : job.units()) {
            if (u.desired() == 0) {
                continue;
            }
            if (job.gang()) {
                whole.add(u);
            } else if (u.allOrNothing()) {
                gangs.add(List.of(u));
            }
        }
        if (!whole.isEmpty()) {
            gangs.add(whole);
        }
        return gangs;
    }

    private static Verdict check(JobSpec job, List<UnitSpec> gang, ClusterView cluster) {
        Resources total = Resources.ZERO;
        for (UnitSpec u : gang) {
            total = total.plus(u.total());
        }
        Resources capacity = cluster.capacity();
        if (!total.fitsIn(capacity)) {
            String r = shortOf(total, capacity);
            return Verdict.reject(new Reason(ReasonCode.TOO_LARGE, "job " + job.id(), "asks all-or-nothing for "
                    + total + " at once (" + names(gang) + "), more than the whole cluster's capacity " + capacity
                    + " (" + cluster.size() + " nodes): " + r + " " + total.get(r) + " > " + capacity.get(r),
                    capacity.get(r), total.get(r)));
        }
        for (UnitSpec u : gang) {
            long holdable = holdable(u, cluster);
            if (holdable < u.desired()) {
                return Verdict.reject(new Reason(ReasonCode.TOO_LARGE, "unit " + job.id() + "/" + u.name(),
                        "asks all-or-nothing for " + u.desired() + " slots of " + u.slot() + ", but the nodes it may use"
                                + " can hold at most " + holdable + " of them at once", holdable, u.desired()));
            }
        }
        return Verdict.ALLOW;
    }

    /** Slots of {@code u} that the nodes it may use hold together when empty; stops at its desire. */
    private static long holdable(UnitSpec u, ClusterView cluster) {
        long sum = 0;
        for (NodeView n : cluster.nodes()) {
            if (mayEverUse(u, n)) {
                long k = u.slot().copiesIn(n.capacity());
                sum += u.maxPerNode() > 0 ? Math.min(k, u.maxPerNode()) : k;
                if (sum >= u.desired()) {
                    return sum;
                }
            }
        }
        return sum;
    }

    private static boolean mayEverUse(UnitSpec u, NodeView n) {
        if (u.blacklist().contains(n.name())) {
            return false;
        }
        for (Map.Entry<String, String> e : u.nodeSelector().entrySet()) {
            if (!e.getValue().equals(n.labels().get(e.getKey()))) {
                return false;
            }
        }
        if (u.locality().isEmpty()) {
            return true;
        }
        for (Locality l : u.locality()) {
            boolean named = switch (l.level()) {
                case MACHINE -> l.target().equals(n.name());
                case ROOM -> l.target().equals(n.room());
                case CLUSTER -> true;
            };
            if (named) {
                return true;
            }
        }
        return false;
    }

    /** The first resource in which {@code need} exceeds {@code have}. */
    private static String shortOf(Resources need, Resources have) {
        if (need.cpu() > have.cpu()) {
            return "cpu";
        }
        if (need.memMb() > have.memMb()) {
            return "mem";
        }
        for (int i = 0; i < need.extendedCount(); i++) {
            if (need.extendedValue(i) > have.get(need.extendedName(i))) {
                return need.extendedName(i);
            }
        }
        return "cpu";
    }

    private static String names(List<UnitSpec> gang) {
        List<String> names = new ArrayList<>();
        gang.forEach(u -> names.add(u.desired() + " x " + u.name()));
        return String.join(", ", names);
    }
}

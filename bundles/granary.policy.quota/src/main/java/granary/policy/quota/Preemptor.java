package granary.policy.quota;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import granary.api.model.Allocation;
import granary.api.model.Resources;
import granary.api.model.UnitKind;
import granary.policy.quota.api.GroupQuota;
import granary.policy.quota.api.Quota;
import granary.policy.quota.api.QuotaState;
import granary.api.spi.CycleContext;
import granary.api.spi.GroupView;
import granary.api.spi.JobView;
import granary.api.spi.NodeView;
import granary.api.spi.UnitView;

/**
 * Preemption of docs/multi-tenancy.md, "The elastic quota loop": a group below its min whose top job cannot be placed takes capacity back.
 *
 * <p>The preemptible list of the article holds the grants a group received while above its min. The
 * same set, read from the engine: the <em>offline</em> grants of groups using more than their min
 * (Overused, Drawback, or not funded now: min 0), at most the excess over the min of each group, so a
 * victim never falls below its own guarantee; oldest grant first. Only grants on nodes the top job
 * may use are taken, and only until it fits. Online grants are never taken. An all-or-nothing victim
 * — an all-or-nothing unit, or every unit of a gang job — is taken whole or not at all (never left
 * half-held), and only if all of it fits in its group's excess.
 */
final class Preemptor {

    private record Candidate(Allocation grant, String group) {
    }

    private Preemptor() {
    }

    /** Revokes what {@code top} needs, up to {@code need} slots' worth; returns slots revoked. */
    static int preempt(CycleContext ctx, Funding funding, UnitView top, int need) {
        Map<String, Quota> excess = new HashMap<>();
        for (GroupView g : ctx.groups()) {
            if (!g.name().equals(top.group()) && funding.state(g) != QuotaState.NORMAL) {
                GroupQuota q = funding.quota(g.name());
                Quota used = funding.used(g);
                excess.put(g.name(), q == null ? used : minus(used, q.min()));
            }
        }
        List<Candidate> candidates = new ArrayList<>();
        for (JobView j : ctx.jobs()) {
            if (excess.containsKey(j.group())) {
                for (UnitView u : j.units()) {
                    if (u.kind() == UnitKind.OFFLINE) {
                        u.grants().forEach(a -> candidates.add(new Candidate(a, j.group())));
                    }
                }
            }
        }
        candidates.sort((a, b) -> a.grant().since() != b.grant().since()
                ? Long.compare(a.grant().since(), b.grant().since()) : Long.compare(a.grant().seq(), b.grant().seq()));
        int fit = 0;
        Long pool = funding.poolRoom(ctx);   // with WorkerSpans, freed workers must fit the slice too
        long poolShort = pool == null ? 0 : Math.max(0, need - pool);
        int revoked = 0;
        Set<String> takenGangs = new HashSet<>();
        String why = "preempted for job " + top.job().id() + " of group " + top.group() + " below its MinQuota";
        for (Candidate c : candidates) {
            boolean nodesShort = fit < need;
            if (!nodesShort && poolShort == 0) {
                break;
            }
            NodeView node = ctx.cluster().node(c.grant().node());
            if (node == null || (nodesShort && !ctx.mayUse(top, node))) {
                continue;   // while nodes are short only usable ones help; while only the pool is, any does
            }
            UnitView victim = ctx.unit(c.grant().unit());
            if (victim.allOrNothing()) {
                if (!takenGangs.add(gangKey(victim))) {
                    continue;   // already taken whole with an older grant of the same gang
                }
                List<Allocation> gang = gangGrants(victim);
                Quota whole = total(gang, ctx, excess.get(c.group()));
                if (!whole.atMost(excess.get(c.group()))) {
                    continue;   // taking it whole would push its group below its min
                }
                Map<String, Integer> before = rooms(ctx, top, gang);
                for (Allocation a : gang) {
                    ctx.revoke(a.unit(), a.node(), a.slots(), why);
                    revoked += a.slots();
                    poolShort = Math.max(0, poolShort - a.slots());
                }
                excess.put(c.group(), minus(excess.get(c.group()), whole));
                for (Map.Entry<String, Integer> e : before.entrySet()) {
                    fit += ctx.room(top, ctx.cluster().node(e.getKey())) - e.getValue();
                }
                continue;
            }
            for (int k = 0; k < c.grant().slots() && (fit < need || poolShort > 0); k++) {
                Quota left = excess.get(c.group());
                Quota one = slotQuota(left, victim.slot());
                if (!one.atMost(left)) {
                    break;
                }
                int before = ctx.room(top, node);
                ctx.revoke(victim.id(), node.name(), 1, why);
                excess.put(c.group(), minus(left, one));
                revoked++;
                poolShort = Math.max(0, poolShort - 1);
                fit += ctx.room(top, node) - before;
            }
        }
        return revoked;
    }

    /** One key per gang: the job of a gang job, else the all-or-nothing unit. */
    private static String gangKey(UnitView u) {
        return u.job().gang() ? u.job().id() : u.id().toString();
    }

    /** Every grant of the gang {@code u} belongs to. */
    private static List<Allocation> gangGrants(UnitView u) {
        List<Allocation> all = new ArrayList<>();
        if (u.job().gang()) {
            for (UnitView m : u.job().units()) {
                all.addAll(m.grants());
            }
        } else {
            all.addAll(u.grants());
        }
        return all;
    }

    /** What the grants hold, in the form of {@code form}. */
    private static Quota total(List<Allocation> grants, CycleContext ctx, Quota form) {
        long slots = 0;
        Resources res = Resources.ZERO;
        for (Allocation a : grants) {
            slots += a.slots();
            res = res.plus(ctx.unit(a.unit()).slot().times(a.slots()));
        }
        return form.isWorkers() ? Quota.workers(slots) : Quota.of(res);
    }

    /** The top job's room on every node of the grants that it may use, before they are taken. */
    private static Map<String, Integer> rooms(CycleContext ctx, UnitView top, List<Allocation> grants) {
        Map<String, Integer> rooms = new HashMap<>();
        for (Allocation a : grants) {
            NodeView n = ctx.cluster().node(a.node());
            if (!rooms.containsKey(a.node()) && ctx.mayUse(top, n)) {
                rooms.put(a.node(), ctx.room(top, n));
            }
        }
        return rooms;
    }

    private static Quota slotQuota(Quota form, Resources slot) {
        return form.isWorkers() ? Quota.workers(1) : Quota.of(slot);
    }

    private static Quota minus(Quota a, Quota b) {
        return a.isWorkers() ? Quota.workers(Math.max(0, a.workers() - b.workers()))
                : Quota.of(a.resources().minus(b.resources()).max(Resources.ZERO));
    }
}

package granary.policy.quota;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import granary.api.model.Allocation;
import granary.api.model.Resources;
import granary.api.model.UnitId;
import granary.api.model.UnitKind;
import granary.api.spi.CycleContext;
import granary.api.spi.GroupView;
import granary.api.spi.JobView;
import granary.api.spi.NodeView;
import granary.api.spi.UnitView;
import granary.policy.quota.api.GroupQuota;
import granary.policy.quota.api.Quota;
import granary.policy.quota.api.QuotaState;

/**
 * Preemption with restraint (docs/multi-tenancy.md, "Choices and their defaults"): a group below its
 * min whose top job cannot be placed takes capacity back, and
 * <ul>
 *   <li>only up to its min (never to grow beyond it), and only as much as its top unit needs now —
 *       an all-or-nothing unit only if all of it fits under the min;</li>
 *   <li>only from groups above their own min (Overused, Drawback, or not funded now), never leaving a
 *       victim below its min (below in every resource: the group states' definition), offline grants
 *       only, and never a grant younger than {@code minRunSeconds};</li>
 *   <li>the grants that lose the least work first: the most recently granted slots that are old
 *       enough (a revocation loses what its slots have run), ties going to the group furthest above
 *       its min;</li>
 *   <li>only where it helps: a node is touched only if taking its eligible grants makes room for the
 *       top unit there, and then only the youngest grants that make that room; when the youngest grants
 *       over the cluster make room nowhere (spread one a node under a bigger head), a second look goes
 *       node by node and takes room where it loses the least work per head slot;</li>
 *   <li>at most {@code maxPreemptedPerMinute} slots in any 60 s for all groups, and one attempt per
 *       second for each group preempted for (after an attempt that took nothing, that group's pause
 *       doubles up to 8 s, but never past the moment a grant passed over for its age is old enough).</li>
 * </ul>
 * All-or-nothing victims (gang jobs, all-or-nothing units) are not taken: taking one whole is the
 * churn this restraint is for. Victims are found through each group's running jobs, the most
 * recently started first, so the cost is bounded by what runs, not by the backlog.
 */
final class Preemptor {

    /** A grant that may be taken; {@code above}: how far its group is above its min (Held#above). */
    private record Candidate(UnitView unit, Allocation grant, String group, double above) {
    }

    /** {@code slots} of a candidate's grant to take. */
    private record Take(Candidate c, int slots) {
    }

    private final QuotaOptions options;
    private final ArrayDeque<long[]> recent = new ArrayDeque<>();
    private long recentSlots;
    /**
     * Per group preempted for: {time of its last attempt, time until its next attempt — one second,
     * doubled after each attempt that took nothing, up to 8 s —, the earliest time a grant its last
     * attempt passed over for its age becomes old enough or -1}.
     */
    private final Map<String, long[]> pacing = new HashMap<>();
    /** How many times more candidates than the first gathering an attempt may gather after failed ones. */
    private static final long MAX_WIDENING = 64;
    /**
     * Per group: {slots taken from it, slots taken for it, slot-milliseconds the slots taken from it had
     * run} (each counted from the latest grant on its node: the least a revocation of them loses).
     */
    private final Map<String, long[]> counts = new TreeMap<>();

    /**
     * Why a group below its min is not back at it, as the last attempt for it found (docs/multi-tenancy.md,
     * "Why a group stays below its min"): the simulator charges each long stretch below the min to these.
     */
    enum Cause {
        /** Between two attempts for it (one a second, longer while attempts take nothing). */
        PACED("paced"),
        /** Its head is all-or-nothing and larger than the room to its min. */
        ALL_OR_NOTHING_OVER_MIN("all-or-nothing head over the room to min"),
        /** The rate limit ({@code maxPreemptedPerMinute}) is used up. */
        RATE_LIMIT("rate limit"),
        /** No other group is above its min. */
        NO_GROUP_ABOVE_MIN("no group above its min"),
        /** The groups above their min hold no preemptible grant (all-or-nothing, gang, not offline, or not on usable nodes). */
        NO_VICTIMS("no preemptible grant"),
        /** The preemptible grants are younger than {@code minRunSeconds}. */
        VICTIMS_TOO_YOUNG("victims younger than minRunSeconds"),
        /** Taking more would push the victims below their own min. */
        VICTIMS_AT_MIN("victims at their min"),
        /** The victims gathered make room for the head's slot on no node. */
        NO_ROOM("victims make no room for the head's slot"),
        /**
         * Victims at their min, or no group above its min, while the mins held add up to more than the
         * cluster holds granted now, in every resource: the free capacity is in pieces no waiting slot fits in, not every group
         * can be at its min, and someone is below its min.
         */
        MINS_OVER_PACKED("mins add up to more than the cluster packs"),
        /** Slots were taken back for it; it is on its way to its min. */
        TOOK("took slots back");

        private final String text;

        Cause(String text) {
            this.text = text;
        }

        @Override
        public String toString() {
            return text;
        }
    }

    /** Per group preempted for: what its last attempt found. */
    private final Map<String, Cause> causes = new HashMap<>();

    /** What the last attempt for {@code group} found, or null if none was made. */
    Cause cause(String group) {
        return causes.get(group);
    }

    Preemptor(QuotaOptions options) {
        this.options = options;
    }

    /** Slots taken from and for each group, and the work those taken from it had run, by group name. */
    Map<String, long[]> counts() {
        return counts;
    }

    /** Slots the rate limit still allows now. */
    long budget(long now) {
        while (!recent.isEmpty() && recent.peekFirst()[0] <= now - 60_000) {
            recentSlots -= recent.pollFirst()[1];
        }
        return options.maxPreemptedPerMinute() == 0 ? Long.MAX_VALUE : options.maxPreemptedPerMinute() - recentSlots;
    }

    /**
     * Takes back what {@code top} needs to start, at most {@code toMin} slots of its shape (the room to its
     * group's min); returns the slots revoked.
     */
    int preempt(CycleContext ctx, Funding funding, UnitView top, long toMin) {
        return preempt(ctx, funding, top, toMin, false);
    }

    /**
     * The same; {@code more}: the group's attempt of this round already took slots for its previous head,
     * this is the same attempt going on to the group's next head (not paced again).
     */
    int preempt(CycleContext ctx, Funding funding, UnitView top, long toMin, boolean more) {
        long now = ctx.now();
        long[] pace = pacing.computeIfAbsent(top.group(), g -> new long[] {-1, 1000, -1, 1});
        if (!more && pace[0] >= 0 && now >= pace[0] && now - pace[0] < pace[1] && (pace[2] < 0 || now < pace[2])) {
            causes.putIfAbsent(top.group(), Cause.PACED);
            return 0;   // one attempt per scheduling round (a second of engine time), fewer while none helps
        }
        pace[0] = now;
        long budget = budget(now);
        long need = top.allOrNothing() ? (top.remaining() <= toMin ? top.remaining() : 0) : Math.min(top.remaining(), toMin);
        if (need <= 0 || budget <= 0) {
            causes.put(top.group(), need <= 0 ? Cause.ALL_OR_NOTHING_OVER_MIN : Cause.RATE_LIMIT);
            return 0;
        }
        Map<String, Held> excess = excess(ctx, funding, top.group());
        Cause cause = excess.isEmpty() ? Cause.NO_GROUP_ABOVE_MIN : Cause.NO_ROOM;
        long oldEnough = now - options.minRunSeconds() * 1000;
        List<UnitView> tooYoung = new ArrayList<>();
        List<Candidate> candidates = candidates(ctx, top, excess, oldEnough, (need * 4 + 128) * pace[3], tooYoung);
        // Youngest eligible slot first over the whole cluster; slots taken on a node are only committed
        // once they make room there for the top unit, so nothing is revoked that does not help it.
        Map<String, NodeTakes> pending = new HashMap<>();
        int revoked = 0;
        long fit = 0;
        String why = "preempted for job " + top.job().id() + " of group " + top.group() + " below its MinQuota";
        for (Candidate c : candidates) {
            NodeTakes p = pending.computeIfAbsent(c.grant().node(), n -> new NodeTakes(ctx.cluster().node(n)));
            Held left = excess.get(c.group());
            Quota one = quotaOf(left.used(), c, 1);
            int before = ctx.room(top, p.node);   // changes only when slots are revoked there
            for (int k = 0; k < c.grant().slots() && fit < need && revoked + p.slots < budget; k++) {
                if (!left.mayLose(one)) {
                    cause = Cause.VICTIMS_AT_MIN;
                    break;   // would push its group below its min
                }
                left = left.minus(one);
                p.add(c);
                if (top.slot().copiesIn(p.node.free().plus(p.freed)) > before) {
                    revoked += p.commit(ctx, why, now);
                    int after = ctx.room(top, p.node);
                    fit += after - before;
                    before = after;
                }
            }
            excess.put(c.group(), left);
            if (fit >= need || revoked >= budget) {
                break;
            }
        }
        if (revoked == 0 && fit < need && !pending.isEmpty()) {
            // the youngest grants over the cluster made room on no node: look node by node where they were
            long[] got = nodeByNode(ctx, funding, top, pending.values(), oldEnough, need, budget, why, now);
            revoked += (int) got[0];
            fit += got[1];
        }
        if (revoked > 0) {
            cause = Cause.TOOK;
        } else if (candidates.isEmpty() && !excess.isEmpty()) {
            cause = tooYoung.isEmpty() ? Cause.NO_VICTIMS : Cause.VICTIMS_TOO_YOUNG;
        }
        if ((cause == Cause.VICTIMS_AT_MIN || cause == Cause.NO_GROUP_ABOVE_MIN) && minsOverGranted(ctx, funding)) {
            cause = Cause.MINS_OVER_PACKED;
        }
        causes.put(top.group(), cause);
        if (more && revoked == 0) {
            return 0;   // the round's attempt took slots for an earlier head: its pacing stands
        }
        pace[1] = revoked > 0 ? 1000 : Math.min(8000, pace[1] * 2);
        pace[2] = revoked > 0 ? -1 : ripe(tooYoung, oldEnough);
        // candidates spread thin over the nodes make room nowhere for a bigger slot: gather more next time
        pace[3] = fit > 0 || candidates.isEmpty() ? 1 : Math.min(MAX_WIDENING, pace[3] * 4);
        if (revoked > 0) {
            recent.addLast(new long[] {now, revoked});
            recentSlots += revoked;
            counts.computeIfAbsent(top.group(), g -> new long[3])[1] += revoked;
        }
        return revoked;
    }

    /**
     * How many nodes a second look visits at most, those where most candidates were first; it stops
     * once it has four nodes with room per head slot needed (at least eight) to choose the cheapest from.
     */
    private static final int NODES_LOOKED_AT = 128;

    /** A node of the second look: its preemptible grants, youngest first, and what room there costs. */
    private record NodeLook(NodeView node, List<Candidate> victims, double lostPerHeadSlot) {
    }

    /**
     * The second look, when the youngest preemptible grants over the whole cluster made room for the
     * head on no node (they are spread one or two a node, and a head bigger than each of them needs
     * several on one node): on the nodes where those candidates were, every preemptible grant there of a
     * group above its min, the youngest first, until the head fits on that node; the nodes where that
     * loses the least work per head slot go first, and a node where they do not add up to room loses
     * nothing. Issue 24: on a packed cluster groups stayed below their min for minutes, charged to
     * "victims at their min" or "victims make no room", while another group was well above its min
     * with young grants spread thin. Returns {slots revoked, head slots made room for}.
     */
    private long[] nodeByNode(CycleContext ctx, Funding funding, UnitView top, java.util.Collection<NodeTakes> tried,
                              long oldEnough, long need, long budget, String why, long now) {
        List<NodeTakes> where = new ArrayList<>(tried);
        where.sort(Comparator.comparingInt((NodeTakes p) -> -p.slots).thenComparing(p -> p.node.name()));
        Map<String, Held> excess = excess(ctx, funding, top.group());   // afresh: the first look's takes were not made
        Map<String, Double> above = new HashMap<>();
        excess.forEach((g, h) -> above.put(g, h.above(ctx.cluster().capacity())));
        List<NodeLook> looks = new ArrayList<>();
        long enough = Math.max(8, need * 4);   // feasible nodes to choose the cheapest among
        for (NodeTakes p : where.subList(0, Math.min(NODES_LOOKED_AT, where.size()))) {
            if (looks.size() >= enough) {
                break;
            }
            List<Candidate> victims = new ArrayList<>();
            for (UnitView u : p.node.holders(ctx)) {
                Double a0 = above.get(u.group());
                if (a0 == null || u.kind() != UnitKind.OFFLINE || u.allOrNothing() || u.job().gang()) {
                    continue;
                }
                Allocation a = u.grantOn(p.node);
                if (a != null && a.latest() <= oldEnough) {
                    victims.add(new Candidate(u, a, u.group(), a0));
                }
            }
            victims.sort(YOUNGEST_FIRST);
            NodeTakes t = takesForRoom(ctx, top, p.node, victims, new HashMap<>(excess), budget);
            if (t != null) {
                int gain = top.slot().copiesIn(p.node.free().plus(t.freed)) - ctx.room(top, p.node);
                looks.add(new NodeLook(p.node, victims, t.lost(now) / Math.max(1, gain)));
            }
        }
        looks.sort(Comparator.comparingDouble(NodeLook::lostPerHeadSlot).thenComparing(l -> l.node().name()));
        long revoked = 0;
        long fit = 0;
        for (NodeLook l : looks) {
            if (fit >= need || revoked >= budget) {
                break;
            }
            Map<String, Held> left = new HashMap<>(excess);
            NodeTakes t = takesForRoom(ctx, top, l.node(), l.victims(), left, budget - revoked);
            if (t != null) {   // still room to be made with what the groups may lose after the nodes before
                int before = ctx.room(top, l.node());
                revoked += t.commit(ctx, why, now);
                fit += ctx.room(top, l.node()) - before;
                excess = left;
            }
        }
        return new long[] {revoked, fit};
    }

    /**
     * The youngest of {@code victims} whose taking makes room for one more slot of the head on
     * {@code node}, within what their groups may lose ({@code left} is charged) and {@code budget}; null
     * if they do not add up to room.
     */
    private NodeTakes takesForRoom(CycleContext ctx, UnitView top, NodeView node, List<Candidate> victims,
                                   Map<String, Held> left, long budget) {
        NodeTakes p = new NodeTakes(node);
        int before = ctx.room(top, node);
        for (Candidate c : victims) {
            Held h = left.get(c.group());
            Quota one = quotaOf(h.used(), c, 1);
            for (int k = 0; k < c.grant().slots() && p.slots < budget && h.mayLose(one); k++) {
                h = h.minus(one);
                p.add(c);
                if (top.slot().copiesIn(node.free().plus(p.freed)) > before) {
                    left.put(c.group(), h);
                    return p;
                }
            }
            left.put(c.group(), h);
        }
        return null;
    }

    /** Slots taken on one node but not yet revoked: they do not make room there for the top unit yet. */
    private final class NodeTakes {
        final NodeView node;
        final List<Take> takes = new ArrayList<>();
        Resources freed = Resources.ZERO;
        int slots;

        NodeTakes(NodeView node) {
            this.node = node;
        }

        void add(Candidate c) {
            int last = takes.size() - 1;
            if (last >= 0 && takes.get(last).c() == c) {
                takes.set(last, new Take(c, takes.get(last).slots() + 1));
            } else {
                takes.add(new Take(c, 1));
            }
            freed = freed.plus(c.unit().slot());
            slots++;
        }

        /** The slot-milliseconds the takes here would lose (each counted from its grant's latest slot). */
        double lost(long now) {
            double ms = 0;
            for (Take t : takes) {
                ms += (double) t.slots() * Math.max(0, now - t.c().grant().latest());
            }
            return ms;
        }

        /** Revokes what was taken here; returns the slots. */
        int commit(CycleContext ctx, String why, long now) {
            int n = 0;
            for (Take t : takes) {
                ctx.revoke(t.c().unit().id(), node.name(), t.slots(), why);
                n += t.slots();
                long[] c = counts.computeIfAbsent(t.c().group(), g -> new long[3]);
                c[0] += t.slots();
                c[2] += t.slots() * Math.max(0, now - t.c().grant().latest());
            }
            takes.clear();
            freed = Resources.ZERO;
            slots = 0;
            return n;
        }
    }

    /**
     * The mins held add up to more than the cluster holds granted now (resource form, in every resource)
     * while it is full in some resource: not every group can be at its min as the cluster is packed now,
     * and preemption only moves the shortfall.
     */
    private boolean minsOverGranted(CycleContext ctx, Funding funding) {
        if (funding.workers()) {
            return false;
        }
        Resources mins = Resources.ZERO;
        for (GroupQuota q : funding.funded().values()) {
            mins = mins.plus(q.min().resources());
        }
        Resources granted = ctx.cluster().granted();
        if (!granted.fitsIn(mins) || granted.equals(mins)) {
            return false;   // in every resource, as "below min" counts
        }
        // and the cluster is full in some resource (within the packing headroom, at least 1 %): else the
        // head fits nowhere for another reason (its slot, its nodes), not for mins the cluster cannot pack
        Resources capacity = ctx.cluster().capacity();
        double full = (100 - Math.max(1, options.packingHeadroomPercent())) / 100.0;
        boolean any = granted.cpu() >= capacity.cpu() * full && capacity.cpu() > 0
                || granted.memMb() >= capacity.memMb() * full && capacity.memMb() > 0;
        for (int i = 0; i < capacity.extendedCount() && !any; i++) {
            long c = capacity.extendedValue(i);
            any = c > 0 && granted.get(capacity.extendedName(i)) >= c * full;
        }
        return any;
    }

    /**
     * The earliest time one of the grants passed over for their age becomes old enough, or -1: the next
     * attempt comes then rather than after the doubled pause. Worked out only after an attempt that
     * took nothing, over the units it visited.
     */
    private long ripe(List<UnitView> tooYoung, long oldEnough) {
        long youngest = Long.MAX_VALUE;
        for (UnitView u : tooYoung) {
            for (Allocation a : u.grants()) {
                if (a.latest() > oldEnough) {
                    youngest = Math.min(youngest, a.latest());
                }
            }
        }
        return youngest == Long.MAX_VALUE ? -1 : youngest + options.minRunSeconds() * 1000;
    }

    /**
     * What a group above its min holds, and its min (null when it is not funded now: all of it may go).
     * A victim may lose a slot while that leaves it not below its min as docs/multi-tenancy.md, "Group
     * states", defines it: below in every resource. Issue 24: counting its excess resource by resource
     * instead protected a group far above its memory min whenever it was under its cpu min — on a
     * cluster where memory binds and cpu idles, every group — so nothing could be taken back.
     */
    private record Held(Quota used, Quota min) {

        boolean mayLose(Quota one) {
            return one.atMost(used) && (min == null || !Usage.belowMin(Preemptor.minus(used, one), min));
        }

        Held minus(Quota one) {
            return new Held(Preemptor.minus(used, one), min);
        }

        /** How far above its min, for the order among victims as young: its excess's dominant share. */
        double above(Resources cluster) {
            Quota x = min == null ? used : Preemptor.minus(used, min);
            return x.isWorkers() ? x.workers() : x.resources().dominantShare(cluster);
        }
    }

    /** The groups above their min that may lose slots, with what they hold. */
    private static Map<String, Held> excess(CycleContext ctx, Funding funding, String beneficiary) {
        Map<String, Held> excess = new HashMap<>();
        for (GroupView g : ctx.groups()) {
            if (!g.name().equals(beneficiary) && g.usedSlots() > 0 && funding.state(g) != QuotaState.NORMAL) {
                GroupQuota q = funding.quota(g.name());
                excess.put(g.name(), new Held(funding.used(g), q == null ? null : q.min()));
            }
        }
        return excess;
    }

    /**
     * The preemptible grants, youngest first: offline, not all-or-nothing, granted at least the minimum
     * run time ago, on nodes the top unit may use; gathered from each group's most recently started
     * running jobs until about {@code enough} slots are found per group. Among grants of the same age the
     * group furthest above its min (by its excess's dominant share of the cluster) comes first. Units
     * holding grants too young to take are collected in {@code tooYoung}.
     */
    private static List<Candidate> candidates(CycleContext ctx, UnitView top, Map<String, Held> excess,
                                              long oldEnough, long enough, List<UnitView> tooYoung) {
        List<Candidate> all = new ArrayList<>();
        Resources cluster = ctx.cluster().capacity();
        for (Map.Entry<String, Held> e : excess.entrySet()) {
            String group = e.getKey();
            double above = e.getValue().above(cluster);
            long slots = 0;
            for (JobView j : ctx.group(group).runningNewestFirst()) {
                if (slots >= enough) {
                    break;   // enough of the most recently started jobs' grants are gathered
                }
                if (j.gang()) {
                    continue;
                }
                for (UnitView u : j.units()) {
                    if (u.kind() != UnitKind.OFFLINE || u.allOrNothing() || u.granted() == 0 || slots >= enough) {
                        continue;
                    }
                    long found = 0;
                    for (Allocation a : u.newestGrants(enough - slots, oldEnough)) {
                        all.add(new Candidate(u, a, group, above));
                        found += a.slots();
                    }
                    if (found < enough - slots && found < u.granted()) {
                        tooYoung.add(u);   // some of its grants are too young to take (yet)
                    }
                    slots += found;
                }
            }
        }
        all.sort(YOUNGEST_FIRST);
        List<Candidate> usable = new ArrayList<>(all.size());
        Map<String, Boolean> mayUse = new HashMap<>(Math.min(all.size(), ctx.cluster().size()) * 2);
        for (Candidate c : all) {
            if (mayUse.computeIfAbsent(c.grant().node(), n -> {
                NodeView node = ctx.cluster().node(n);
                return node != null && ctx.mayUse(top, node);
            })) {
                usable.add(c);
            }
        }
        return usable;
    }

    /** The order of victims: the latest granted first; among as young, the group furthest above its min. */
    private static final Comparator<Candidate> YOUNGEST_FIRST = Comparator.comparingLong((Candidate c) -> -c.grant().latest())
            .thenComparingDouble(c -> -c.above())
            .thenComparingLong(c -> -c.grant().seq());

    private static Quota quotaOf(Quota form, Candidate c, int slots) {
        return form.isWorkers() ? Quota.workers(slots) : Quota.of(c.unit().slot().times(slots));
    }

    static Quota minus(Quota a, Quota b) {
        return a.isWorkers() ? Quota.workers(Math.max(0, a.workers() - b.workers()))
                : Quota.of(a.resources().minus(b.resources()).max(Resources.ZERO));
    }
}

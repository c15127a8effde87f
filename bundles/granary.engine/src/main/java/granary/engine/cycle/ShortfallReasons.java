package granary.engine.cycle;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import granary.api.model.Locality;
import granary.api.spi.Reason;
import granary.api.spi.ReasonCode;
import granary.engine.state.Cluster;
import granary.engine.state.Dims;
import granary.engine.state.NodeIndex;
import granary.engine.state.NodeState;
import granary.engine.state.UnitState;

/**
 * Why an active placement left slots waiting (docs/scheduling.md, "Why is my job not scheduled?").
 * Asked once per placement that falls short, never per node tried, and it records, in this order:
 * <ol>
 *   <li>a label of the node selector that no node carries: LABELS;</li>
 *   <li>a slot larger than every node: TOO_LARGE, with the slot's and the largest node's amount;</li>
 *   <li>with the ledger on, the nodes with room for a slot that refuse the unit, one reason per rule
 *       that refuses (BLACKLISTED, LOCALITY, LABELS, MAX_PER_NODE, a node filter's LOCKED, ...), found
 *       by one more walk over the fitting nodes of the node index (at most {@link #LOOK_AT});</li>
 *   <li>no node taking work at all: BLACKLISTED; otherwise no room: NO_FIT, with what one slot
 *       needs of the resource that binds against the most any node has free of it (the index's
 *       maxima), or, when nodes with room refused it, how many others have none.</li>
 * </ol>
 * The latest reason is the last one recorded: no room, when there is none.
 */
final class ShortfallReasons {

    /** Nodes with room looked at, at most, to tell why they refuse a unit. */
    static final int LOOK_AT = 1000;

    private final Cluster cluster;
    private final Eligibility eligibility;
    private final WaitLedger ledger;
    private final Dims dims;
    /**
     * Per reason code: nodes with room that refuse the unit for it, and the first of them (emptied
     * after each unit). A node filter's own codes (a reservation's lock) come first, then the engine's
     * in their order.
     */
    private final Map<ReasonCode, Integer> refused = new TreeMap<>(Comparator.comparingInt(ShortfallReasons::rank)
            .thenComparing(ReasonCode::name));
    private final Map<ReasonCode, NodeState> example = new HashMap<>();

    ShortfallReasons(Cluster cluster, Eligibility eligibility, WaitLedger ledger, Dims dims) {
        this.cluster = cluster;
        this.eligibility = eligibility;
        this.ledger = ledger;
        this.dims = dims;
    }

    /** Records why {@code u} still waits after an active placement that placed less than admission allowed. */
    void explain(UnitState u) {
        String subject = "unit " + u.id();
        if (cluster.size() == 0) {
            ledger.record(u, Reason.of(ReasonCode.NO_FIT, subject, "the cluster has no nodes"));
            return;
        }
        String missing = Eligibility.missingLabel(u, cluster);
        if (missing != null) {
            ledger.record(u, Reason.of(ReasonCode.LABELS, subject, "no node matches the node selector "
                    + u.request().nodeSelector() + " (" + cluster.size() + " nodes)"));
            return;
        }
        String large = Amounts.binding(u.slot(), cluster.largestNode());
        if (large != null) {
            long need = u.slot().get(large);
            long most = cluster.largestNode().get(large);
            ledger.record(u, new Reason(ReasonCode.TOO_LARGE, subject, "its slot needs " + Amounts.of(large, need)
                    + ", more than the largest node has (" + Amounts.of(large, most) + ")", need, most));
            return;
        }
        Scope scope = scope(u);
        int seen = ledger.on() ? refusals(u, scope) : 0;
        noRoom(u, subject, scope, seen);
    }

    /** Where the unit may be placed: the whole cluster, or the rooms and nodes its locality names. */
    private Scope scope(UnitState u) {
        Scope s = new Scope();
        List<Locality> prefs = u.request().locality();
        if (prefs.isEmpty() || prefs.stream().anyMatch(l -> l.level() == Locality.Level.CLUSTER)) {
            s.indexes.add(cluster.index());
            return s;
        }
        s.local = true;
        for (Locality l : prefs) {
            s.asked = Math.min((long) Integer.MAX_VALUE, s.asked + l.count());
            if (l.level() == Locality.Level.ROOM && cluster.room(l.target()) != null
                    && !s.indexes.contains(cluster.room(l.target()))) {
                s.indexes.add(cluster.room(l.target()));
            } else if (l.level() == Locality.Level.MACHINE && cluster.node(l.target()) != null
                    && !s.nodes.contains(cluster.node(l.target()))) {
                s.nodes.add(cluster.node(l.target()));
            }
        }
        return s;
    }

    /**
     * Walks the nodes of the scope with room for a slot and records, per rule, how many refuse the
     * unit (and, when some may take it, that its locality preferences ask for fewer slots than it
     * wants); returns how many nodes with room were looked at, up to {@link #LOOK_AT}.
     */
    private int refusals(UnitState u, Scope scope) {
        int seen = 0;
        int usable = 0;
        for (int i = 0; i < scope.indexes.size(); i++) {
            NodeIndex index = scope.indexes.get(i);
            for (int pos = index.find(0, u.slotVector()); pos >= 0 && seen < LOOK_AT;
                 pos = index.find(pos + 1, u.slotVector())) {
                seen++;
                usable += refuse(u, index.at(pos)) ? 0 : 1;
            }
        }
        for (NodeState n : scope.nodes) {
            if (n.takesWork() && u.slot().fitsIn(n.free()) && seen < LOOK_AT) {
                seen++;
                usable += refuse(u, n) ? 0 : 1;
            }
        }
        String subject = "unit " + u.id();
        for (Map.Entry<ReasonCode, Integer> r : refused.entrySet()) {   // none had room: nothing refused, nothing per rule
            ReasonCode c = r.getKey();
            int k = r.getValue();
            Reason e = eligibility.whyNot(u, example.get(c));
            ledger.record(u, Reason.of(c, subject, (seen >= LOOK_AT ? "of the first " + seen + " nodes with room"
                    + " for a slot, " + k + " refuse it" : nodes(k) + " with room for a slot refuse" + (k == 1 ? "s" : "")
                    + " it") + ", e.g. " + e.subject() + ": " + e.message()));
        }
        refused.clear();
        example.clear();
        if (usable > 0 && scope.local && scope.asked < u.desired()) {
            ledger.record(u, new Reason(ReasonCode.LOCALITY, subject, "its locality preferences ask for " + scope.asked
                    + " slots in all (" + u.request().locality().size() + " preferences), it wants " + u.desired(),
                    scope.asked, u.desired()));
        }
        return seen;
    }

    private boolean refuse(UnitState u, NodeState n) {
        ReasonCode c = eligibility.refusal(u, n);
        if (c == null) {
            return false;
        }
        if (refused.merge(c, 1, Integer::sum) == 1) {
            example.put(c, n);
        }
        return true;
    }

    /** Where a code comes in the order of refusals: a policy's own codes, then the engine's. */
    private static int rank(ReasonCode c) {
        return ReasonCode.engineCodes().indexOf(c) + 1;
    }

    /**
     * No node taking work, or none with room: the numbers of the resource that binds. When {@code seen}
     * nodes with room refused it, only whether the others have none.
     */
    private void noRoom(UnitState u, String subject, Scope scope, int seen) {
        long[] need = u.slotVector();
        long[] most = scope.most(need.length);
        int nodes = scope.size();
        String where = scope.local ? " of its locality preferences" : "";
        if (nodes == 0) {
            ledger.record(u, Reason.of(ReasonCode.LOCALITY, subject, "no node or room its locality preferences name is"
                    + " in the cluster now: " + u.request().locality()));
            return;
        }
        if (Arrays.stream(most).allMatch(m -> m < 0)) {
            ledger.record(u, Reason.of(ReasonCode.BLACKLISTED, subject, (nodes == 1 ? "the only node" : "all " + nodes
                    + " nodes") + where + " take no work: on the global blacklist"));
            return;
        }
        if (seen > 0) {
            if (seen < LOOK_AT && nodes > seen) {
                ledger.record(u, Reason.of(ReasonCode.NO_FIT, subject, "no other node" + where + " has room for one slot ("
                        + nodes(nodes) + " in all, " + seen + " with room)"));
            }
            return;
        }
        int worst = -1;
        List<String> scarce = new ArrayList<>();
        StringBuilder needs = new StringBuilder();
        StringBuilder has = new StringBuilder();
        for (int d = 0; d < need.length; d++) {
            if (need[d] > Math.max(0, most[d])) {
                String r = dims.name(d);
                scarce.add(Amounts.word(r));
                needs.append(needs.length() == 0 ? "" : " and ").append(Amounts.of(r, need[d]));
                has.append(has.length() == 0 ? "" : " and ").append(Amounts.of(r, Math.max(0, most[d])));
                if (worst < 0 || shortfall(need, most, d) > shortfall(need, most, worst)) {
                    worst = d;
                }
            }
        }
        if (worst >= 0) {
            ledger.record(u, new Reason(ReasonCode.NO_FIT, subject, "no node has enough free " + String.join(" and ", scarce)
                    + " for one slot — it needs " + needs + ", the most free on any node" + where + " is " + has,
                    need[worst], Math.max(0, most[worst])));
        } else if (ledger.on()) {
            ledger.record(u, Reason.of(ReasonCode.NO_FIT, subject, "no node" + where + " has room for a whole slot ("
                    + u.slot() + ") at once, though some node has enough of each resource on its own"));
        } else {
            ledger.record(u, Reason.of(ReasonCode.NO_FIT, subject, "no eligible node has room for slot " + u.slot()));
        }
    }

    private static double shortfall(long[] need, long[] most, int d) {
        return most[d] <= 0 ? Double.MAX_VALUE : (double) need[d] / most[d];
    }

    private static String nodes(long k) {
        return k + (k == 1 ? " node" : " nodes");
    }

    /** The indexes and single nodes a unit may be placed on. */
    private static final class Scope {
        final List<NodeIndex> indexes = new ArrayList<>(1);
        final List<NodeState> nodes = new ArrayList<>(0);
        /** Only what its locality preferences name (no CLUSTER preference). */
        boolean local;
        /** Slots its locality preferences ask for in all. */
        long asked;

        /** Per dimension, the most any node of the scope has free; -1 where no node takes work. */
        long[] most(int width) {
            long[] m = new long[width];
            Arrays.fill(m, -1);
            for (NodeIndex i : indexes) {
                for (int d = 0; d < width; d++) {
                    m[d] = Math.max(m[d], i.most(d));
                }
            }
            for (NodeState n : nodes) {
                long[] free = n.takesWork() ? n.freeVector() : null;
                for (int d = 0; d < width && free != null; d++) {
                    m[d] = Math.max(m[d], d < free.length ? free[d] : 0);
                }
            }
            return m;
        }

        int size() {
            int k = nodes.size();
            for (NodeIndex i : indexes) {
                k += i.count();
            }
            return k;
        }
    }
}

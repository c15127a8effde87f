package granary.engine.cycle;

import java.util.Map;

import granary.api.model.Resources;
import granary.api.spi.Admission;
import granary.api.spi.GroupBounds;
import granary.api.spi.EngineView;
import granary.api.spi.NodeFilter;
import granary.api.spi.Reason;
import granary.api.spi.ReasonCode;
import granary.api.spi.Verdict;
import granary.engine.policy.PolicySet;
import granary.engine.state.Cluster;
import granary.engine.state.Dims;
import granary.engine.state.GroupState;
import granary.engine.state.NodeState;
import granary.engine.state.UnitState;

/**
 * May a unit use a node now, and how many more slots may it have: the global and the unit's
 * blacklist, node labels, locality, max slots per node, every node filter, and admission (quota)
 * from every admission policy (docs/scheduling.md, "Active scheduling", step 2).
 */
public final class Eligibility {

    private final PolicySet policies;
    private final EngineView view;
    private final Dims dims;
    private final WaitLedger ledger;

    public Eligibility(PolicySet policies, EngineView view, Dims dims, WaitLedger ledger) {
        this.policies = policies;
        this.view = view;
        this.dims = dims;
        this.ledger = ledger;
    }

    /**
     * {@code free} narrowed to what the admission policies' limits leave the group ({@code max −
     * used}, never below zero), so the fit search skips units admission would refuse for their size
     * instead of visiting them one by one; {@code free} itself when no policy limits the group in
     * resources.
     */
    long[] bound(GroupState g, long[] free) {
        long[] out = free;
        for (Admission a : policies.admissions()) {
            GroupBounds b = a.bounds(g, view);
            if (b == null || b.fillLimit() == null) {
                continue;
            }
            Resources limit = b.fillLimit();
            Resources used = g.used();
            for (int d = 0; d < out.length; d++) {
                long room = Math.max(0, dims.value(limit, d) - dims.value(used, d));
                if (room < out[d]) {
                    if (out == free) {
                        out = free.clone();   // called for every node a group is offered: allocate only to narrow
                    }
                    out[d] = room;
                }
            }
        }
        return out;
    }

    /** True if {@code u} may have at least one more slot on {@code n}, resources aside. */
    public boolean mayUse(UnitState u, NodeState n) {
        if (!n.takesWork() || !u.localityAllows(n) || u.request().blacklist().contains(n.name())) {
            return false;
        }
        int max = u.request().maxPerNode();
        if (max > 0 && u.slotsOn(n) >= max) {
            return false;
        }
        if (!labelsMatch(u, n)) {
            return false;
        }
        for (NodeFilter f : policies.nodeFilters()) {
            if (f.filter(u, n).code() != Verdict.Code.ALLOW) {
                return false;
            }
        }
        return true;
    }

    /**
     * {@link #mayUse}, for a node offered to a waiting unit that fits it (passive fill): a refusal is
     * a reason the unit was not placed, and goes into its ledger (docs/scheduling.md, "Why is my job
     * not scheduled?"). The code is found without allocating; the text is built only when the
     * ledger has none fresh for that code.
     */
    boolean offered(UnitState u, NodeState n) {
        if (!ledger.on()) {
            return mayUse(u, n);
        }
        ReasonCode c = refusal(u, n);   // the same rules as mayUse, checked once
        if (c == null) {
            return true;
        }
        if (!ledger.again(u, c)) {
            ledger.record(u, whyNot(u, n));
        }
        return false;
    }

    /**
     * The code of the first rule that keeps {@code u} off {@code n}, resources aside, or null if none
     * does: null exactly when {@link #mayUse} is true; in the order of {@link #whyNot}. Allocates
     * nothing (a node filter may).
     */
    ReasonCode refusal(UnitState u, NodeState n) {
        if (!n.takesWork() || u.request().blacklist().contains(n.name())) {
            return ReasonCode.BLACKLISTED;
        }
        if (!u.localityAllows(n)) {
            return ReasonCode.LOCALITY;
        }
        if (!labelsMatch(u, n)) {
            return ReasonCode.LABELS;
        }
        int max = u.request().maxPerNode();
        if (max > 0 && u.slotsOn(n) >= max) {
            return ReasonCode.MAX_PER_NODE;
        }
        for (NodeFilter f : policies.nodeFilters()) {
            Verdict v = f.filter(u, n);
            if (v.code() != Verdict.Code.ALLOW) {
                return v.reason() != null ? v.reason().code() : ReasonCode.OTHER;
            }
        }
        return null;
    }

    /**
     * A label of the unit's node selector that no node of the cluster carries, or null. O(labels of
     * the selector), from the cluster's label counts: asked when a unit waits, on the decision path.
     * (A selector whose labels each exist, but never together on one node, is not told apart from
     * "no room".)
     */
    static String missingLabel(UnitState u, Cluster cluster) {
        for (Map.Entry<String, String> e : u.request().nodeSelector().entrySet()) {
            if (!cluster.hasLabel(e.getKey(), e.getValue())) {
                return e.getKey() + "=" + e.getValue();
            }
        }
        return null;
    }

    private static boolean labelsMatch(UnitState u, NodeState n) {
        Map<String, String> want = u.request().nodeSelector();
        if (want.isEmpty()) {
            return true;
        }
        Map<String, String> have = n.labels();
        for (Map.Entry<String, String> e : want.entrySet()) {
            if (!e.getValue().equals(have.get(e.getKey()))) {
                return false;
            }
        }
        return true;
    }

    /** How many more slots of {@code u} fit on {@code n} now (0 if it may not use it). */
    public int room(UnitState u, NodeState n) {
        if (!mayUse(u, n)) {
            return 0;
        }
        int k = u.slot().copiesIn(n.free());
        int max = u.request().maxPerNode();
        return max > 0 ? Math.min(k, max - u.slotsOn(n)) : k;
    }

    /** Why {@code u} cannot have a slot on {@code n}, or null if it can. For diagnostics, not the hot path. */
    Reason whyNot(UnitState u, NodeState n) {
        String subject = "node " + n.name();
        if (!n.takesWork()) {
            return Reason.of(ReasonCode.BLACKLISTED, subject, "on the global blacklist");
        }
        if (u.request().blacklist().contains(n.name())) {
            return Reason.of(ReasonCode.BLACKLISTED, subject, "on the blacklist of unit " + u.id());
        }
        if (!u.localityAllows(n)) {
            return Reason.of(ReasonCode.LOCALITY, subject, "not among the locality preferences " + u.request().locality());
        }
        if (!labelsMatch(u, n)) {
            return Reason.of(ReasonCode.LABELS, subject, "labels " + n.labels() + " lack " + u.request().nodeSelector());
        }
        int max = u.request().maxPerNode();
        if (max > 0 && u.slotsOn(n) >= max) {
            return new Reason(ReasonCode.MAX_PER_NODE, subject, "max " + max + " slots per node reached", max,
                    u.slotsOn(n));
        }
        for (NodeFilter f : policies.nodeFilters()) {
            Verdict v = f.filter(u, n);
            if (v.code() != Verdict.Code.ALLOW) {
                return v.reason() != null ? v.reason()
                        : Reason.of(ReasonCode.OTHER, subject, "refused by policy " + f.name());
            }
        }
        if (!u.slot().fitsIn(n.free())) {
            return Reason.of(ReasonCode.NO_FIT, subject, "free " + n.free() + " < slot " + u.slot());
        }
        return null;
    }

    /** True unless an admission policy holds the whole group back. */
    boolean groupAdmitted(GroupState g) {
        for (Admission a : policies.admissions()) {
            if (!a.admitGroup(g, view).allowed()) {
                return false;
            }
        }
        return true;
    }

    /**
     * At most how many of {@code wanted} more slots admission allows {@code u} now. When it allows
     * fewer, the policy's reason goes into the unit's ledger.
     */
    public int admit(UnitState u, int wanted) {
        int allowed = wanted;
        GroupState g = null;
        for (Admission a : policies.admissions()) {
            if (g == null) {
                g = (GroupState) view.group(u.group());
            }
            Verdict v = a.admitGroup(g, view);
            if (v.allowed()) {
                v = a.admit(u, allowed, view);
            }
            int n = v.allowed() ? Math.min(allowed, v.slots()) : 0;
            if (n < allowed) {
                ledger.record(u, v.reason() != null ? v.reason() : Reason.of(ReasonCode.OTHER, "unit " + u.id(),
                        "policy " + a.name() + " admits " + n + " of " + allowed + " slots now"));
            }
            allowed = n;
            if (allowed == 0) {
                break;
            }
        }
        return allowed;
    }
}

package granary.policy.queues;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import granary.api.model.InvalidRequestException;
import granary.api.model.JobSpec;
import granary.api.model.Resources;
import granary.api.model.UnitSpec;
import granary.policy.queues.api.QueueTree;
import granary.api.spi.Admission;
import granary.api.spi.EngineView;
import granary.api.spi.GroupOrder;
import granary.api.spi.GroupResolver;
import granary.api.spi.GroupView;
import granary.api.spi.Reason;
import granary.api.spi.ReasonCode;
import granary.api.spi.Reconfigurable;
import granary.api.spi.SubmitFilter;
import granary.api.spi.UnitView;
import granary.api.spi.Verdict;
import granary.policy.queues.QueueIndex.Queue;

/**
 * Hierarchical queues addressed by full path (docs/multi-tenancy.md, "Queues by full path"), as one policy at five extension points:
 * <ul>
 *   <li><b>group-resolver</b>: the group a job names becomes the full path of a leaf by
 *       {@link QueueTree#resolve} — a full path, a unique short name, the fallback for an unknown
 *       name; an ambiguous name (listing the candidates), an inner queue, or an unknown name without
 *       fallback is refused. Every group the engine then reports is a full path.</li>
 *   <li><b>admission</b>: a unit gets only as many slots as fit under the maximum capacity of its
 *       leaf and of every ancestor (an inner queue uses what its leaves hold); a job that holds no slot
 *       yet may not start while the most running jobs of its leaf or of an ancestor, in all or for its
 *       user, is reached. A running job is never stopped by a limit.</li>
 *   <li><b>group-order</b>: siblings by used ÷ guaranteed (or DRF when the tree says {@code drf}),
 *       leaves in the order of their ancestors; see {@link HierarchicalOrder}.</li>
 *   <li><b>submit-filter</b>: an all-or-nothing request (a gang job, or an all-or-nothing unit)
 *       larger than its queue's maximum is refused at once instead of waiting forever.</li>
 *   <li><b>reconfigure</b>: a new {@link QueueTree} replaces the tree between two decisions.</li>
 * </ul>
 * Without a tree the policy is permissive: names are taken as they are and nothing is limited.
 *
 * <p><b>With the quota policy</b> ({@code granary.policy.quota}: group-order, admission,
 * cycle-action, submit-filter). Quota groups <em>are</em> leaf queues, named by full path: this
 * policy's resolver turns a job's queue name into the path before the quota policy ever sees the
 * group, and the quota policy resolves its table's keys through {@link EngineView#resolveGroup},
 * i.e. through this tree (full paths, or short names unique in the tree). Admission is composable:
 * both policies are asked and the smallest allowance wins, so a unit is held by whichever of a queue
 * maximum, a running-job limit or a quota (max, Drawback, unfunded slice) is tighter, and its wait
 * reason names the limit that held it. Both submit filters apply. Group order is exclusive: of the
 * two, the one selected last is in effect (hierarchical order here, the docs/multi-tenancy.md, "The elastic quota loop" order of heads there);
 * the other policy's admission and the quota's cycle actions (billing, preemption, emergent job)
 * keep working either way. Selecting {@code queues} alone gives hierarchical queues without quotas;
 * {@code quota} alone keeps the engine's flat resolver.
 *
 * <p>Plain Java: the simulator builds it from a {@link QueueTree}; {@link QueuesProvider} makes it
 * a DS component reading the tree from a file. Called on the engine thread only.
 */
public class QueuesPolicy implements GroupResolver, SubmitFilter, Admission, GroupOrder, Reconfigurable {

    /** The policy's name: console, status and HTTP use it. */
    public static final String NAME = "queues";

    /** The tree in force; null = no tree, permissive. */
    private QueueIndex index;

    /** A permissive policy without a tree (until one is reconfigured in). */
    public QueuesPolicy() {
        this(null);
    }

    /** @param tree the queue tree, or null for none (names as they are, no limits) */
    public QueuesPolicy(QueueTree tree) {
        this.index = tree == null ? null : new QueueIndex(tree);
    }

    @Override
    public String name() {
        return NAME;
    }

    // ---- group-resolver ----

    @Override
    public String resolve(String requested, EngineView view) {
        return index == null ? requested : index.tree.resolve(requested);
    }

    // ---- admission ----

    @Override
    public Verdict admitGroup(GroupView group, EngineView view) {
        Queue leaf = leafOf(group.name(), view);
        return leaf == null ? Verdict.ALLOW : QueueLimits.admitGroup(leaf, group, view);
    }

    @Override
    public Verdict admit(UnitView unit, int wanted, EngineView view) {
        Queue leaf = leafOf(unit.group(), view);
        return leaf == null ? Verdict.ALLOW : QueueLimits.admit(leaf, unit, wanted, view);
    }

    /** The leaf queue of a group with capacities resolved for the cluster now, or null outside the tree. */
    private Queue leafOf(String group, EngineView view) {
        QueueIndex i = index;
        Queue leaf = i == null ? null : i.leaf(group);
        if (leaf != null) {
            i.refresh(view.cluster().capacity());
        }
        return leaf;
    }

    // ---- group-order ----

    @Override
    public int compare(GroupView a, GroupView b, EngineView view) {
        return HierarchicalOrder.compare(index, a, b, view);
    }

    // ---- submit-filter ----

    /**
     * Refuses an all-or-nothing request larger than its queue's maximum (which is capped by every
     * ancestor's): it could never be granted whole. Anything else passes.
     */
    @Override
    public Verdict check(JobSpec job, EngineView view) {
        Queue leaf = leafOf(job.group(), view);
        if (leaf == null) {
            return Verdict.ALLOW;
        }
        if (job.gang()) {
            Resources total = Resources.ZERO;
            for (UnitSpec u : job.units()) {
                total = total.plus(u.total());
            }
            return tooLarge(leaf, total, "all-or-nothing job " + job.id());
        }
        for (UnitSpec u : job.units()) {
            if (u.allOrNothing()) {
                Verdict v = tooLarge(leaf, u.total(), "all-or-nothing unit " + job.id() + "/" + u.name());
                if (v.code() == Verdict.Code.REJECT) {
                    return v;
                }
            }
        }
        return Verdict.ALLOW;
    }

    private static Verdict tooLarge(Queue leaf, Resources total, String what) {
        if (total.fitsIn(leaf.maximum)) {
            return Verdict.ALLOW;
        }
        String over = firstOver(total, leaf.maximum);
        return Verdict.reject(new Reason(ReasonCode.TOO_LARGE, "queue " + leaf.path, what + " asks for " + total
                + " in total, more than the queue's maximum " + leaf.maximum + " (" + over + "): it could never start",
                leaf.maximum.get(over), total.get(over)));
    }

    private static String firstOver(Resources total, Resources max) {
        if (total.cpu() > max.cpu()) {
            return "cpu";
        }
        if (total.memMb() > max.memMb()) {
            return "mem";
        }
        for (int i = 0; i < total.extendedCount(); i++) {
            if (total.extendedValue(i) > max.get(total.extendedName(i))) {
                return total.extendedName(i);
            }
        }
        return "cpu";
    }

    // ---- reconfigure ----

    /** The queue tree in force, or null while there is none. */
    @Override
    public Object settings() {
        QueueIndex i = index;
        return i == null ? null : i.tree;
    }

    /**
     * Takes a new {@link QueueTree} (validated when it was built) into force. Jobs keep their groups:
     * a group that is no longer a leaf keeps its jobs, unlimited and served after the tree's queues,
     * until an operator moves them (the notes list such groups).
     *
     * @throws InvalidRequestException for anything but a queue tree; the tree in force stays
     */
    @Override
    public List<String> reconfigure(Object settings, EngineView view) {
        if (!(settings instanceof QueueTree tree)) {
            throw new InvalidRequestException("policy " + NAME, "settings", "expected a queue tree ("
                    + QueueTree.class.getName() + "), got " + (settings == null ? "null" : settings.getClass().getName()));
        }
        String before = describe(index);
        QueueIndex next = new QueueIndex(tree);
        index = next;
        List<String> notes = new ArrayList<>();
        notes.add(NAME + ": queue tree " + before + " -> " + describe(next));
        List<String> outside = new ArrayList<>();
        for (GroupView g : view.groups()) {
            if (next.leaf(g.name()) == null) {
                outside.add(g.name());
            }
        }
        if (!outside.isEmpty()) {
            outside.sort(null);
            notes.add(NAME + ": groups with jobs that are not leaves of the new tree (unlimited, served last; "
                    + "move their jobs): " + String.join(", ", outside));
        }
        return notes;
    }

    private static String describe(QueueIndex i) {
        return i == null ? "(none)" : i.queues().size() + " queues, " + i.leafCount() + " leaves";
    }

    // ---- reports ----

    /**
     * One row per queue, root first, parents before children: capacities at the cluster's size now,
     * and what the subtree uses, runs and waits for. Groups that are not leaves of the tree (all
     * groups when there is none) follow as depth-0 leaf rows with no guarantee and the cluster as
     * maximum.
     */
    public List<QueueRow> queues(EngineView view) {
        List<QueueRow> rows = new ArrayList<>();
        QueueIndex i = index;
        Resources cluster = view.cluster().capacity();
        if (i != null) {
            i.refresh(cluster);
            for (Queue q : i.queues()) {
                rows.add(new QueueRow(q.path, q.depth, q.isLeaf(), q.guaranteed, q.maximum, QueueIndex.used(q, view),
                        QueueIndex.runningJobs(q, view), q.spec.maxRunningJobs(), QueueIndex.jobs(q, view),
                        QueueIndex.waitingSlots(q, view)));
            }
        }
        for (GroupView g : view.groups()) {
            if (i == null || i.leaf(g.name()) == null) {
                rows.add(new QueueRow(g.name(), 0, true, Resources.ZERO, cluster, g.used(), g.runningJobs(), 0,
                        g.jobs(), g.waitingSlots()));
            }
        }
        return rows;
    }

    public QueueTree tree() {
        QueueIndex i = index;
        return i == null ? null : i.tree;
    }

    @Override
    public Map<String, String> status() {
        Map<String, String> m = new TreeMap<>();
        QueueIndex i = index;
        if (i == null) {
            m.put("tree", "none (names as given, no limits)");
            return m;
        }
        m.put("tree", describe(i));
        m.put("fallback", i.tree.fallback() == null ? "none" : i.tree.fallback());
        m.put("order", i.tree.drf() ? "drf" : "guarantee-share");
        return m;
    }
}

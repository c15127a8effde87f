package granary.policy.queues;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.ToLongFunction;

import granary.api.model.Resources;
import granary.policy.queues.api.QueueSpec;
import granary.policy.queues.api.QueueTree;
import granary.api.spi.EngineView;
import granary.api.spi.GroupView;

/**
 * A {@link QueueTree} laid out for the decision path: per queue its parent, its leaves (whose groups
 * make up its usage), and per leaf the chain of queues a grant counts against. Capacities are
 * resolved for one cluster size and recomputed only when the cluster's capacity changes.
 *
 * <p>A queue's usage is not stored: it is the sum over its leaves' groups, read live from the
 * engine, so nothing here can drift from the engine's books (moves, releases, revocations). A sum
 * costs one group look-up per leaf below the queue. For admission only queues that set a maximum of
 * their own are summed: one whose maximum is the whole cluster is bounded by the cluster itself, and
 * one that inherits its parent's maximum whole is bounded by the parent's check.
 */
final class QueueIndex {

    /** One queue of the tree. Capacity fields are those of the last {@link #refresh}. */
    static final class Queue {
        final String path;
        final String name;
        final int depth;
        final QueueSpec spec;
        final Queue parent;
        final List<Queue> children = new ArrayList<>();
        /** Full paths of the leaves at or below this queue. */
        String[] leaves;
        /** For a leaf: itself and its ancestors below root, leaf first. Empty for inner queues. */
        Queue[] chain = new Queue[0];
        /** True if some queue of the chain limits running jobs (in all or per user). */
        boolean jobLimits;
        Resources guaranteed = Resources.ZERO;
        Resources maximum = Resources.ZERO;
        /**
         * The maximum is below the cluster's capacity in some resource and below the parent's: it can
         * bind, and it is this queue that sets it (a reason names the queue that sets the limit).
         */
        boolean bounded;

        Queue(String path, int depth, QueueSpec spec, Queue parent) {
            this.path = path;
            this.name = spec.name();
            this.depth = depth;
            this.spec = spec;
            this.parent = parent;
        }

        boolean isLeaf() {
            return children.isEmpty() && parent != null;
        }

        boolean limitsJobs() {
            return spec.maxRunningJobs() > 0 || spec.maxRunningJobsPerUser() > 0;
        }

        @Override
        public String toString() {
            return path;
        }
    }

    final QueueTree tree;
    private final Map<String, Queue> byPath = new LinkedHashMap<>();
    private Resources capacityOf;

    QueueIndex(QueueTree tree) {
        this.tree = tree;
        for (String path : tree.paths()) {
            String parentPath = tree.parent(path);
            Queue parent = parentPath == null ? null : byPath.get(parentPath);
            Queue q = new Queue(path, parent == null ? 0 : parent.depth + 1, tree.queue(path), parent);
            byPath.put(path, q);
            if (parent != null) {
                parent.children.add(q);
            }
        }
        for (Queue q : byPath.values()) {
            q.leaves = tree.leaves().stream().filter(l -> l.equals(q.path) || l.startsWith(q.path + "."))
                    .toArray(String[]::new);
            if (q.isLeaf()) {
                List<Queue> chain = new ArrayList<>();
                for (Queue a = q; a.parent != null; a = a.parent) {
                    chain.add(a);
                    q.jobLimits |= a.limitsJobs();
                }
                q.chain = chain.toArray(new Queue[0]);
            }
        }
    }

    /** The queue at a full path, or null. */
    Queue queue(String path) {
        return byPath.get(path);
    }

    /** The leaf queue a group is, or null if the group is not a leaf of the tree. */
    Queue leaf(String group) {
        Queue q = byPath.get(group);
        return q != null && q.isLeaf() ? q : null;
    }

    /** Every queue, root first, parents before children. */
    Collection<Queue> queues() {
        return byPath.values();
    }

    int leafCount() {
        return tree.leaves().size();
    }

    /** Resolves guaranteed and maximum capacities for {@code cluster} if it changed since last time. */
    void refresh(Resources cluster) {
        if (cluster.equals(capacityOf)) {
            return;
        }
        for (Queue q : byPath.values()) {
            q.guaranteed = tree.guaranteed(q.path, cluster);
            q.maximum = tree.maximum(q.path, cluster);
            // a maximum inherited whole from the parent is checked there, against at least as much usage
            q.bounded = q.parent != null && !cluster.fitsIn(q.maximum) && !q.maximum.equals(q.parent.maximum);
        }
        capacityOf = cluster;
    }

    // ---- usage of a queue: sums over its leaves' groups, read live ----

    static Resources used(Queue q, EngineView view) {
        Resources sum = Resources.ZERO;
        for (String leaf : q.leaves) {
            GroupView g = view.group(leaf);
            if (g != null) {
                sum = sum.plus(g.used());
            }
        }
        return sum;
    }

    static int runningJobs(Queue q, EngineView view) {
        return (int) sum(q, view, GroupView::runningJobs);
    }

    static int runningJobs(Queue q, String user, EngineView view) {
        return (int) sum(q, view, g -> g.runningJobs(user));
    }

    static int jobs(Queue q, EngineView view) {
        return (int) sum(q, view, GroupView::jobs);
    }

    static long waitingSlots(Queue q, EngineView view) {
        return sum(q, view, GroupView::waitingSlots);
    }

    /** A count summed over the queue's leaves (a leaf without jobs counts 0). */
    private static long sum(Queue q, EngineView view, ToLongFunction<GroupView> count) {
        long sum = 0;
        for (String leaf : q.leaves) {
            GroupView g = view.group(leaf);
            sum += g == null ? 0 : count.applyAsLong(g);
        }
        return sum;
    }
}

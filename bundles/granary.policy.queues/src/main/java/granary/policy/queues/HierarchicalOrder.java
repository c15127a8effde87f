package granary.policy.queues;

import granary.api.model.Resources;
import granary.api.spi.EngineView;
import granary.api.spi.GroupView;
import granary.policy.queues.QueueIndex.Queue;

/**
 * Group order over a queue tree: at every level siblings are ordered by their share, and the leaves
 * follow the order of their ancestors (a depth-first walk that visits the neediest child first). Two
 * leaves are therefore compared by the two siblings under their lowest common ancestor.
 *
 * <p>A sibling's share is what its subtree uses ÷ its guaranteed capacity (dominant over the
 * resources), so the queue furthest below its guarantee comes first; a queue with no guarantee comes
 * after every queue that has one. With {@code drf} the share is instead the subtree's dominant share
 * of the cluster (dominant resource fairness among siblings). Equal shares go by the dominant share
 * of the cluster, then by queue name, so the order is total and the same in every run.
 *
 * <p>Groups that are not leaves of the tree (no tree configured, or jobs left in a queue a new tree
 * dropped) come after all queues, hungriest first (dominant share of the cluster), then by name.
 */
final class HierarchicalOrder {

    private HierarchicalOrder() {
    }

    static int compare(QueueIndex index, GroupView a, GroupView b, EngineView view) {
        Queue qa = index == null ? null : index.leaf(a.name());
        Queue qb = index == null ? null : index.leaf(b.name());
        if (qa == null || qb == null) {
            return qa != null ? -1 : qb != null ? 1 : outside(a, b, view);
        }
        if (qa == qb) {
            return 0;
        }
        Queue x = qa;
        Queue y = qb;
        while (x.depth > y.depth) {
            x = x.parent;
        }
        while (y.depth > x.depth) {
            y = y.parent;
        }
        while (x.parent != y.parent) {
            x = x.parent;
            y = y.parent;
        }
        return siblings(index, x, y, view);
    }

    private static int siblings(QueueIndex index, Queue x, Queue y, EngineView view) {
        Resources cluster = view.cluster().capacity();
        index.refresh(cluster);
        Resources ux = QueueIndex.used(x, view);
        Resources uy = QueueIndex.used(y, view);
        if (!index.tree.drf()) {
            int c = Double.compare(guaranteeShare(ux, x), guaranteeShare(uy, y));
            if (c != 0) {
                return c;
            }
        }
        int c = Double.compare(ux.dominantShare(cluster), uy.dominantShare(cluster));
        return c != 0 ? c : x.name.compareTo(y.name);
    }

    /** Used ÷ guaranteed, dominant over the resources; infinite without a guarantee. */
    private static double guaranteeShare(Resources used, Queue q) {
        return q.guaranteed.isZero() ? Double.POSITIVE_INFINITY : used.dominantShare(q.guaranteed);
    }

    private static int outside(GroupView a, GroupView b, EngineView view) {
        Resources cluster = view.cluster().capacity();
        int c = Double.compare(a.used().dominantShare(cluster), b.used().dominantShare(cluster));
        return c != 0 ? c : a.name().compareTo(b.name());
    }
}

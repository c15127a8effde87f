package granary.engine;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.function.Predicate;

/**
 * A group's waiting queue: units kept in the policy's unit order, with an O(log N) search for the
 * first unit whose slot fits a node's free resources (spec §4.3).
 *
 * <p>Structure: a treap (a binary search tree by unit order, heap-ordered by random priorities, so
 * expected depth O(log N)). Every tree node also keeps the per-dimension minimum slot size of its
 * subtree. {@link #first} descends left (earlier in order) whenever the left subtree's minimum fits
 * the free vector, tries the node itself, then the right subtree, and prunes every subtree whose
 * minimum is too big in some dimension. With most units too big for the free space the search never
 * enters their subtrees, so a pick costs O(log N) instead of a scan of the queue. The minimum is a
 * lower bound per dimension, so a subtree may be entered and turn out empty (a unit small in cpu and
 * another small in memory); the search stays correct, only that case costs more.
 *
 * <p>Removal finds a unit by its key, so a unit's ordering key must not change while it is queued:
 * the engine removes a unit before changing what the order reads and re-inserts it afterwards.
 * Priorities come from a seeded generator: the same inputs give the same tree.
 */
final class FitQueue implements Iterable<UnitState> {

    private static final class Node {
        final UnitState unit;
        final int prio;
        Node left;
        Node right;
        long[] min;

        Node(UnitState unit, int prio) {
            this.unit = unit;
            this.prio = prio;
        }
    }

    private Comparator<UnitState> order;
    private Node root;
    private int size;
    private long seed = 0x9E3779B97F4A7C15L;

    FitQueue(Comparator<UnitState> order) {
        this.order = order;
    }

    int size() {
        return size;
    }

    boolean isEmpty() {
        return size == 0;
    }

    void add(UnitState u) {
        root = insert(root, new Node(u, nextPriority()));
        size++;
    }

    /**
     * Removes {@code u}; true if it was queued. Found by key in O(log N); if a faulty order lost it,
     * found by identity in O(N) so that the queue stays whole.
     */
    boolean remove(UnitState u) {
        int before = size;
        root = delete(root, u);
        if (size < before) {
            return true;
        }
        List<UnitState> rest = new ArrayList<>(size);
        forEach(x -> {
            if (x != u) {
                rest.add(x);
            }
        });
        if (rest.size() == size) {
            return false;
        }
        root = build(rest);
        return true;
    }

    /**
     * The first unit in order whose slot fits {@code free} and that {@code accept} takes, or null.
     */
    UnitState first(long[] free, Predicate<UnitState> accept) {
        return first(root, free, accept);
    }

    private static UnitState first(Node t, long[] free, Predicate<UnitState> accept) {
        while (t != null && Dims.fits(t.min, free)) {
            UnitState r = first(t.left, free, accept);
            if (r != null) {
                return r;
            }
            if (Dims.fits(t.unit.slotVector(), free) && accept.test(t.unit)) {
                return t.unit;
            }
            t = t.right;   // tail position: iterate instead of recursing
        }
        return null;
    }

    /** Re-sorts every queued unit under another order in O(N log N); the tree is rebuilt in O(N). */
    void reorder(Comparator<UnitState> newOrder) {
        List<UnitState> all = new ArrayList<>(size);
        forEach(all::add);
        all.sort(newOrder);
        this.order = newOrder;
        this.root = build(all);
    }

    /** Recomputes the subtree minimums, e.g. after a new resource dimension appeared. */
    void refreshMinimums() {
        refresh(root);
    }

    private static void refresh(Node t) {
        if (t != null) {
            refresh(t.left);
            refresh(t.right);
            pull(t);
        }
    }

    /** Builds a treap from units already in order: a Cartesian tree over random priorities, O(N). */
    private Node build(List<UnitState> sorted) {
        ArrayDeque<Node> spine = new ArrayDeque<>();
        for (UnitState u : sorted) {
            Node n = new Node(u, nextPriority());
            Node last = null;
            while (!spine.isEmpty() && spine.peek().prio < n.prio) {
                last = spine.pop();
            }
            n.left = last;
            if (!spine.isEmpty()) {
                spine.peek().right = n;
            }
            spine.push(n);
        }
        Node top = null;
        while (!spine.isEmpty()) {
            top = spine.pop();
        }
        size = sorted.size();
        refresh(top);
        return top;
    }

    private Node insert(Node t, Node n) {
        if (t == null) {
            pull(n);
            return n;
        }
        if (order.compare(n.unit, t.unit) < 0) {
            t.left = insert(t.left, n);
            if (t.left.prio > t.prio) {
                t = rotateRight(t);
            }
        } else {
            t.right = insert(t.right, n);
            if (t.right.prio > t.prio) {
                t = rotateLeft(t);
            }
        }
        pull(t);
        return t;
    }

    private Node delete(Node t, UnitState u) {
        if (t == null) {
            return null;
        }
        if (t.unit == u) {
            size--;
            return merge(t.left, t.right);
        }
        if (order.compare(u, t.unit) < 0) {
            t.left = delete(t.left, u);
        } else {
            t.right = delete(t.right, u);
        }
        pull(t);
        return t;
    }

    private static Node merge(Node a, Node b) {
        if (a == null) {
            return b;
        }
        if (b == null) {
            return a;
        }
        if (a.prio > b.prio) {
            a.right = merge(a.right, b);
            pull(a);
            return a;
        }
        b.left = merge(a, b.left);
        pull(b);
        return b;
    }

    private static Node rotateRight(Node t) {
        Node l = t.left;
        t.left = l.right;
        l.right = t;
        pull(t);
        pull(l);
        return l;
    }

    private static Node rotateLeft(Node t) {
        Node r = t.right;
        t.right = r.left;
        r.left = t;
        pull(t);
        pull(r);
        return r;
    }

    /** Recomputes a node's subtree minimum from its unit and its children. */
    private static void pull(Node t) {
        long[] own = t.unit.slotVector();
        long[] m = t.min != null && t.min.length == own.length ? t.min : new long[own.length];
        System.arraycopy(own, 0, m, 0, own.length);
        lower(m, t.left);
        lower(m, t.right);
        t.min = m;
    }

    private static void lower(long[] m, Node child) {
        if (child == null) {
            return;
        }
        long[] c = child.min;
        int n = Math.min(m.length, c.length);
        for (int d = 0; d < n; d++) {
            if (c[d] < m[d]) {
                m[d] = c[d];
            }
        }
        for (int d = n; d < m.length; d++) {
            m[d] = Math.min(m[d], 0);   // a shorter vector has 0 in the dimensions it lacks
        }
    }

    private int nextPriority() {
        seed ^= seed << 13;
        seed ^= seed >>> 7;
        seed ^= seed << 17;
        return (int) (seed >>> 33);
    }

    /** In-order iteration (queue order). Do not modify the queue while iterating. */
    @Override
    public Iterator<UnitState> iterator() {
        return new Iterator<>() {
            private final ArrayDeque<Node> stack = new ArrayDeque<>();
            private Node next = root;

            @Override
            public boolean hasNext() {
                return next != null || !stack.isEmpty();
            }

            @Override
            public UnitState next() {
                while (next != null) {
                    stack.push(next);
                    next = next.left;
                }
                if (stack.isEmpty()) {
                    throw new NoSuchElementException();
                }
                Node n = stack.pop();
                next = n.right;
                return n.unit;
            }
        };
    }
}

package granary.engine.state;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.PriorityQueue;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * A group's waiting queue: units kept in the policy's unit order, with a search for the first unit
 * whose slot fits a node's free resources that does not scan the queue (docs/scheduling.md, "The fit
 * search").
 *
 * <p>Structure — two structures combined:
 * <ol>
 *   <li><b>Shape buckets.</b> Units are grouped by slot shape (their exact resource vector); inside
 *       a bucket they are kept in unit order as a binary heap. All units of a bucket fit a free
 *       vector or none does, so a bucket is tested once, by its shape.</li>
 *   <li><b>An index over the buckets</b>: a treap keyed by each bucket's head unit (its first in
 *       unit order), in which every tree node also keeps the per-resource minimum shape of its
 *       subtree. The search walks the buckets in head order, prunes every subtree whose minimum is
 *       too big in some resource, and stops as soon as the next bucket's head comes after the best
 *       unit found.</li>
 * </ol>
 * A pick costs O(log S + log n) for S shapes and n units: with a million waiting units of a few
 * shapes, most too big for the free space, their buckets are pruned whole. The per-resource minimum
 * can only mislead over shapes (a cpu-heavy shape and a memory-heavy one), never over units, so the
 * worst case is a walk over the shapes, not over the queue.
 *
 * <p>A policy swap re-orders in place: every bucket is heapified (O(N) comparisons, no allocation) and
 * the index over the S buckets rebuilt — no sort of the queue. Removal goes by the unit's heap
 * position, never by key, so even a faulty order cannot lose a unit; a unit's ordering key must still
 * not change while it is queued (the engine removes it before changing what the order reads and
 * re-inserts it afterwards), or the heap would be out of order. Treap priorities come from a seeded
 * generator: the same inputs give the same tree.
 *
 * <p>Inside the engine only {@link Workload} adds and removes units: it keeps each unit's queue link and
 * the waiting counters in step. The public operations serve the structure on its own: its tests and
 * the benchmark seam ({@code granary.engine.probe}).
 */
public final class FitQueue implements Iterable<UnitState> {

    /**
     * The units of one slot shape, as a binary heap in unit order. Every unit knows its position
     * ({@link UnitState#heapPos}), so removal needs no search by key, and re-ordering is an in-place
     * heapify: O(n) comparisons, no allocation.
     */
    static final class Bucket {
        final FitQueue owner;
        final long[] shape;
        UnitState[] heap = new UnitState[4];
        int n;
        /** The head under which the bucket sits in the index (always {@code heap[0]}). */
        UnitState indexedHead;

        Bucket(FitQueue owner, long[] shape) {
            this.owner = owner;
            this.shape = shape;
        }

        UnitState head() {
            return heap[0];
        }

        void push(UnitState u, Comparator<UnitState> order) {
            if (n == heap.length) {
                heap = Arrays.copyOf(heap, n * 2);
            }
            heap[n] = u;
            u.heapPos = n++;
            u.bucket = this;
            up(u.heapPos, order);
        }

        /** Removes the unit at {@code i}. */
        void removeAt(int i, Comparator<UnitState> order) {
            UnitState gone = heap[i];
            UnitState last = heap[--n];
            heap[n] = null;
            gone.heapPos = -1;
            gone.bucket = null;
            if (i < n) {
                heap[i] = last;
                last.heapPos = i;
                up(i, order);
                down(last.heapPos, order);
            }
        }

        void heapify(Comparator<UnitState> order) {
            for (int i = n / 2 - 1; i >= 0; i--) {
                down(i, order);
            }
        }

        private void up(int i, Comparator<UnitState> order) {
            UnitState u = heap[i];
            while (i > 0) {
                int parent = (i - 1) >>> 1;
                UnitState p = heap[parent];
                if (order.compare(u, p) >= 0) {
                    break;
                }
                heap[i] = p;
                p.heapPos = i;
                i = parent;
            }
            heap[i] = u;
            u.heapPos = i;
        }

        private void down(int i, Comparator<UnitState> order) {
            UnitState u = heap[i];
            int half = n >>> 1;
            while (i < half) {
                int child = 2 * i + 1;
                int right = child + 1;
                if (right < n && order.compare(heap[right], heap[child]) < 0) {
                    child = right;
                }
                if (order.compare(u, heap[child]) <= 0) {
                    break;
                }
                heap[i] = heap[child];
                heap[i].heapPos = i;
                i = child;
            }
            heap[i] = u;
            u.heapPos = i;
        }

        /** The units in unit order, lazily: O(k log k) for the first k, the heap left as it is. */
        Iterator<UnitState> inOrder(Comparator<UnitState> order) {
            PriorityQueue<Integer> next = new PriorityQueue<>((a, b) -> order.compare(heap[a], heap[b]));
            if (n > 0) {
                next.add(0);
            }
            return new Iterator<>() {
                @Override
                public boolean hasNext() {
                    return !next.isEmpty();
                }

                @Override
                public UnitState next() {
                    Integer i = next.poll();
                    if (i == null) {
                        throw new NoSuchElementException();
                    }
                    if (2 * i + 1 < n) {
                        next.add(2 * i + 1);
                    }
                    if (2 * i + 2 < n) {
                        next.add(2 * i + 2);
                    }
                    return heap[i];
                }
            };
        }
    }

    /** A slot shape as a map key. */
    private record Shape(long[] v) {
        @Override
        public boolean equals(Object o) {
            return o instanceof Shape s && Arrays.equals(v, s.v);
        }

        @Override
        public int hashCode() {
            return Arrays.hashCode(v);
        }
    }

    /** A node of the bucket index. */
    private static final class Node {
        final Bucket bucket;
        final int prio;
        Node left;
        Node right;
        long[] min;

        Node(Bucket bucket, int prio) {
            this.bucket = bucket;
            this.prio = prio;
        }
    }

    private Comparator<UnitState> order;
    private final Map<Shape, Bucket> buckets = new HashMap<>();
    private Node root;
    private boolean deleted;
    private int size;
    private long seed = 0x9E3779B97F4A7C15L;

    public FitQueue(Comparator<UnitState> order) {
        this.order = order;
    }

    public int size() {
        return size;
    }

    public boolean isEmpty() {
        return size == 0;
    }

    /** The first queued unit in unit order, or null: the head of the leftmost bucket of the index, O(log S). */
    public UnitState head() {
        Node t = root;
        if (t == null) {
            return null;
        }
        while (t.left != null) {
            t = t.left;
        }
        return t.bucket.head();
    }

    /** The per-resource minimum slot shape of the queued units, or null when empty. */
    public long[] minShape() {
        return root == null ? null : root.min;
    }

    public void add(UnitState u) {
        Bucket b = buckets.computeIfAbsent(new Shape(u.slotVector()), s -> new Bucket(this, s.v()));
        UnitState head = b.n == 0 ? null : b.head();
        b.push(u, order);
        size++;
        if (head == null) {
            index(b);
        } else if (b.head() != head) {
            unindex(b);
            index(b);
        }
    }

    /** Removes {@code u} in O(log n) by its bucket and heap position; true if it was queued here. */
    public boolean remove(UnitState u) {
        Bucket b = u.bucket;
        if (b == null || b.owner != this || u.heapPos < 0 || u.heapPos >= b.n || b.heap[u.heapPos] != u) {
            return false;
        }
        UnitState head = b.head();
        b.removeAt(u.heapPos, order);
        size--;
        if (b.n == 0) {
            unindex(b);
            buckets.remove(new Shape(b.shape));
        } else if (b.head() != head) {
            unindex(b);
            index(b);
        }
        return true;
    }

    /** The first unit in order whose slot fits {@code free} and that {@code accept} takes, or null. */
    public UnitState first(long[] free, Predicate<UnitState> accept) {
        UnitState[] best = new UnitState[1];
        search(root, free, accept, best);
        return best[0];
    }

    /** Walks fitting buckets in head order; false once no later bucket can hold a better unit. */
    private boolean search(Node t, long[] free, Predicate<UnitState> accept, UnitState[] best) {
        if (t == null || !Dims.fits(t.min, free)) {
            return true;
        }
        if (!search(t.left, free, accept, best)) {
            return false;
        }
        Bucket b = t.bucket;
        if (best[0] != null && order.compare(b.indexedHead, best[0]) > 0) {
            return false;   // every later bucket starts after the best unit found
        }
        if (Dims.fits(b.shape, free)) {
            if (accept.test(b.head())) {
                best[0] = b.head();   // the common case: the head takes it, and it precedes every later bucket
                return false;
            }
            for (Iterator<UnitState> it = b.inOrder(order); it.hasNext(); ) {
                UnitState u = it.next();
                if (best[0] != null && order.compare(u, best[0]) >= 0) {
                    break;
                }
                if (u != b.head() && accept.test(u)) {
                    best[0] = u;
                    break;
                }
            }
        }
        return search(t.right, free, accept, best);
    }

    /** Re-orders every queued unit under another order: O(N) comparisons in place, the index O(S log S). */
    public void reorder(Comparator<UnitState> newOrder) {
        this.order = newOrder;
        for (Bucket b : buckets.values()) {
            b.heapify(newOrder);
        }
        rebuildIndex();
    }

    /** Re-groups every unit, e.g. after a new resource dimension changed the slot vectors. */
    void refreshMinimums() {
        List<UnitState> all = new ArrayList<>(size);
        forEachUnordered(all::add);
        buckets.clear();
        root = null;
        size = 0;
        all.forEach(this::add);
    }

    private void forEachUnordered(Consumer<UnitState> action) {
        for (Bucket b : buckets.values()) {
            for (int i = 0; i < b.n; i++) {
                action.accept(b.heap[i]);
            }
        }
    }

    private void rebuildIndex() {
        List<Bucket> sorted = new ArrayList<>(buckets.values());
        for (Bucket b : sorted) {
            b.indexedHead = b.head();
        }
        sorted.sort((x, y) -> order.compare(x.indexedHead, y.indexedHead));
        ArrayDeque<Node> spine = new ArrayDeque<>();   // Cartesian tree over random priorities, O(S)
        for (Bucket b : sorted) {
            Node n = new Node(b, nextPriority());
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
        root = top;
        refresh(root);
    }

    private static void refresh(Node t) {
        if (t != null) {
            refresh(t.left);
            refresh(t.right);
            pull(t);
        }
    }

    // ---- the bucket index: a treap keyed by the buckets' heads ----

    private void index(Bucket b) {
        b.indexedHead = b.head();
        root = insert(root, new Node(b, nextPriority()));
    }

    private void unindex(Bucket b) {
        deleted = false;
        root = delete(root, b);
        if (!deleted) {
            buckets.values().remove(b);   // a faulty order hid it: rebuild the index from the buckets
            rebuildIndex();
            buckets.put(new Shape(b.shape), b);
        }
    }

    private Node insert(Node t, Node n) {
        if (t == null) {
            pull(n);
            return n;
        }
        if (order.compare(n.bucket.indexedHead, t.bucket.indexedHead) < 0) {
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

    private Node delete(Node t, Bucket b) {
        if (t == null) {
            return null;
        }
        if (t.bucket == b) {
            deleted = true;
            return merge(t.left, t.right);
        }
        if (order.compare(b.indexedHead, t.bucket.indexedHead) < 0) {
            t.left = delete(t.left, b);
        } else {
            t.right = delete(t.right, b);
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

    /** Recomputes a node's subtree minimum shape from its bucket and its children. */
    private static void pull(Node t) {
        long[] own = t.bucket.shape;
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

    /** Iteration in unit order (a merge of the buckets). Do not modify the queue while iterating. */
    @Override
    public Iterator<UnitState> iterator() {
        PriorityQueue<Object[]> heads = new PriorityQueue<>((a, b) -> order.compare((UnitState) a[0], (UnitState) b[0]));
        for (Bucket b : buckets.values()) {
            Iterator<UnitState> it = b.inOrder(order);
            heads.add(new Object[] {it.next(), it});
        }
        return new Iterator<>() {
            @Override
            public boolean hasNext() {
                return !heads.isEmpty();
            }

            @Override
            @SuppressWarnings("unchecked")
            public UnitState next() {
                Object[] top = heads.poll();
                if (top == null) {
                    throw new NoSuchElementException();
                }
                Iterator<UnitState> it = (Iterator<UnitState>) top[1];
                if (it.hasNext()) {
                    heads.add(new Object[] {it.next(), it});
                }
                return (UnitState) top[0];
            }
        };
    }
}

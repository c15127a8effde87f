package granary.engine.state;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.PriorityQueue;
import java.util.function.Consumer;
import java.util.function.Predicate;

import granary.api.spi.UnitView;

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
 * the index over the S buckets rebuilt — no sort of the queue. Removal goes by the unit's slot and
 * heap position, never by key, so even a faulty order cannot lose a unit; a unit's ordering key must still
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
     * The units of one slot shape, as a binary heap in unit order (docs/scheduling.md, "Sort keys").
     * A unit keeps one <em>slot</em> in {@link #units} while it is queued here ({@link
     * UnitState#bucketSlot}); the heap orders slot numbers ({@link #slotAt} by heap position, {@link
     * #pos} by slot), so sifting moves ints and never writes to unit objects, and removal finds a
     * unit's position without a search. Under a {@link KeyedOrder} each heap position also holds the
     * unit's record (sort key and sequence) in {@link #keys}, moved with it: comparisons read longs
     * in one array instead of calling the comparator on units scattered over the heap. A re-order
     * recomputes the records walking the units by slot (close to the order they were queued in, so
     * to memory order) and heapifies in place: O(n), no allocation once the arrays have grown.
     */
    static final class Bucket {
        private static final long[] NO_KEYS = new long[0];

        final FitQueue owner;
        final long[] shape;
        /** Queued units by slot; null for a free slot. */
        UnitState[] units = new UnitState[4];
        /** Heap position of each used slot. */
        private int[] pos = new int[4];
        /** Slot at each heap position, {@code 0 .. n-1}. */
        private int[] slotAt = new int[4];
        /** Records by heap position, {@code owner.stride} longs each; unused (kept for the next keyed order) without keys. */
        private long[] keys = NO_KEYS;
        private int[] free = new int[0];
        private int freeCount;
        private int slotsUsed;
        int n;
        /** The head under which the bucket sits in the index (always the unit at position 0). */
        UnitState indexedHead;
        /**
         * Frozen ordering inputs by slot ({@link FrozenUnit}), compared instead of the units while an
         * order is built off the engine thread and while it is swapped in; null otherwise.
         */
        UnitView[] frozen;

        Bucket(FitQueue owner, long[] shape) {
            this.owner = owner;
            this.shape = shape;
        }

        /** The unit at heap position {@code i}. */
        UnitState at(int i) {
            return units[slotAt[i]];
        }

        UnitState head() {
            return n == 0 ? null : at(0);
        }

        /** True if {@code u} is queued in this bucket. */
        boolean holds(UnitState u) {
            int slot = u.bucketSlot;
            return slot >= 0 && slot < slotsUsed && units[slot] == u;
        }

        /** The heap position of a unit this bucket {@link #holds}. */
        int positionOf(UnitState u) {
            return pos[u.bucketSlot];
        }

        void push(UnitState u) {
            int slot = freeCount > 0 ? free[--freeCount] : slotsUsed++;
            if (slot == units.length) {
                units = Arrays.copyOf(units, slot * 2);
                pos = Arrays.copyOf(pos, slot * 2);
            }
            units[slot] = u;
            u.bucketSlot = slot;
            u.bucket = this;
            int s = owner.stride;
            if (n == slotAt.length) {
                slotAt = Arrays.copyOf(slotAt, n * 2);
            }
            if (keys.length < slotAt.length * s) {
                keys = Arrays.copyOf(keys, slotAt.length * s);
            }
            slotAt[n] = slot;
            pos[slot] = n;
            if (s > 0) {
                ((KeyedOrder) owner.order).key(u, keys, n * s);
            }
            n++;
            up(n - 1);
        }

        /** Removes the unit at heap position {@code i}. */
        void removeAt(int i) {
            int slot = slotAt[i];
            UnitState gone = units[slot];
            units[slot] = null;
            gone.bucketSlot = -1;
            gone.bucket = null;
            if (freeCount == free.length) {
                free = Arrays.copyOf(free, Math.max(4, freeCount * 2));
            }
            free[freeCount++] = slot;
            int last = --n;
            if (i < last) {
                move(last, i);
                down(up(i));
            }
        }

        /** Re-orders under the owner's (new) order: records recomputed in slot order, then Floyd's heapify. */
        void heapify() {
            int s = owner.stride;
            if (keys.length < slotAt.length * s) {
                keys = new long[slotAt.length * s];   // a smaller need keeps the array: no allocation on the swap back
            }
            KeyedOrder k = s == 0 ? null : (KeyedOrder) owner.order;
            int p = 0;
            for (int slot = 0; slot < slotsUsed; slot++) {
                UnitState u = units[slot];
                if (u != null) {
                    slotAt[p] = slot;
                    pos[slot] = p;
                    if (k != null) {
                        k.key(u, keys, p * s);
                    }
                    p++;
                }
            }
            if (s == 0) {
                for (int i = n / 2 - 1; i >= 0; i--) {
                    down(i);
                }
            } else {
                long[] rec = new long[s];
                for (int i = n / 2 - 1; i >= 0; i--) {
                    siftRecords(keys, slotAt, s, n, i, rec);
                }
                for (int i = 0; i < n; i++) {
                    pos[slotAt[i]] = i;   // once at the end: random writes kept out of the sift loop
                }
            }
        }

        /**
         * Floyd's sift-down on records alone (positions are fixed by the caller afterwards): the hot loop
         * of a swap to a keyed order, kept to plain array code.
         */
        private static void siftRecords(long[] keys, int[] slotAt, int s, int n, int i, long[] rec) {
            int slot = slotAt[i];
            int at = i * s;
            for (int d = 0; d < s; d++) {
                rec[d] = keys[at + d];
            }
            int half = n >>> 1;
            while (i < half) {
                int child = 2 * i + 1;
                int c = child * s;
                if (child + 1 < n && compareRecords(keys, c + s, keys, c, s) < 0) {
                    child++;
                    c += s;
                }
                if (compareRecords(rec, 0, keys, c, s) <= 0) {
                    break;
                }
                for (int d = 0; d < s; d++) {
                    keys[i * s + d] = keys[c + d];
                }
                slotAt[i] = slotAt[child];
                i = child;
            }
            for (int d = 0; d < s; d++) {
                keys[i * s + d] = rec[d];
            }
            slotAt[i] = slot;
        }

        /** Moves the entry at {@code from} to {@code to} (its record with it). */
        private void move(int from, int to) {
            int slot = slotAt[from];
            slotAt[to] = slot;
            pos[slot] = to;
            int s = owner.stride;
            if (s > 0) {
                System.arraycopy(keys, from * s, keys, to * s, s);
            }
        }

        /** Compares the held entry (slot {@code slot}, record {@code rec}) with the entry at {@code j}. */
        private int compareHeld(int slot, long[] rec, int j) {
            int s = owner.stride;
            return s == 0 ? compareSlots(slot, slotAt[j]) : compareRecords(rec, 0, keys, j * s, s);
        }

        /** Compares the units of two slots through the comparator: their frozen inputs while there are some. */
        private int compareSlots(int a, int b) {
            return frozen == null ? owner.order.compare(units[a], units[b])
                    : ((KeyedOrder) owner.order).compareViews(frozen[a], frozen[b]);
        }

        /**
         * Drops heap position {@code i} without touching the slot's unit or the free list: the slot is
         * free already (its unit left the queue while the new order was being built).
         */
        void dropPosition(int i) {
            int last = --n;
            if (i < last) {
                move(last, i);
                down(up(i));
            }
        }

        /** Sifts the entry at {@code i} toward the root; returns where it ends. */
        private int up(int i) {
            int slot = slotAt[i];
            long[] rec = owner.held(keys, i);
            while (i > 0) {
                int parent = (i - 1) >>> 1;
                if (compareHeld(slot, rec, parent) >= 0) {
                    break;
                }
                move(parent, i);
                i = parent;
            }
            place(slot, rec, i);
            return i;
        }

        /** Sifts the entry at {@code i} toward the leaves. */
        private void down(int i) {
            int slot = slotAt[i];
            long[] rec = owner.held(keys, i);
            int half = n >>> 1;
            int s = owner.stride;
            while (i < half) {
                int child = 2 * i + 1;
                if (child + 1 < n && (s == 0 ? compareSlots(slotAt[child + 1], slotAt[child]) < 0
                        : compareRecords(keys, (child + 1) * s, keys, child * s, s) < 0)) {
                    child++;
                }
                if (compareHeld(slot, rec, child) <= 0) {
                    break;
                }
                move(child, i);
                i = child;
            }
            place(slot, rec, i);
        }

        private void place(int slot, long[] rec, int i) {
            slotAt[i] = slot;
            pos[slot] = i;
            int s = owner.stride;
            if (s > 0) {
                System.arraycopy(rec, 0, keys, i * s, s);
            }
        }

        /** The units in unit order, lazily: O(k log k) for the first k, the heap left as it is. */
        Iterator<UnitState> inOrder(Comparator<UnitState> order) {
            PriorityQueue<Integer> next = new PriorityQueue<>((a, b) -> order.compare(at(a), at(b)));
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
                    return at(i);
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
    /** Longs per unit record under {@link #order} ({@link KeyedOrder#keyLongs()}), 0 for comparator calls. */
    private int stride;
    /** The record of the entry being sifted (single-threaded, like the engine). */
    private long[] scratch = new long[0];
    private final Map<Shape, Bucket> buckets = new HashMap<>();
    private Node root;
    private boolean deleted;
    private int size;
    /** Buckets re-ordered in place at a swap-in because the built heap did not hold the units it should (0 unless a bug). */
    private int repairs;
    private long seed = 0x9E3779B97F4A7C15L;

    public FitQueue(Comparator<UnitState> order) {
        this.order = order;
        this.stride = KeyedOrder.keyLongsOf(order);
    }

    /** The record at position {@code i} of {@code keys}, copied aside while its entry is sifted. */
    private long[] held(long[] keys, int i) {
        if (stride == 0) {
            return null;
        }
        if (scratch.length != stride) {
            scratch = new long[stride];
        }
        System.arraycopy(keys, i * stride, scratch, 0, stride);
        return scratch;
    }

    /** Compares two records as signed longs, component by component. */
    static int compareRecords(long[] a, int at, long[] b, int bt, int len) {
        for (int d = 0; d < len; d++) {
            int c = Long.compare(a[at + d], b[bt + d]);
            if (c != 0) {
                return c;
            }
        }
        return 0;
    }

    /** How many buckets a swap-in had to re-order in place (docs/scheduling.md): always 0 unless the engine has a bug; tests check it. */
    public int repairs() {
        return repairs;
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
        b.push(u);
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
        if (b == null || b.owner != this || !b.holds(u)) {
            return false;
        }
        UnitState head = b.head();
        b.removeAt(b.positionOf(u));
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

    /** The position of a queued unit in its bucket's heap (tests compare layouts); -1 if not queued here. */
    int positionOf(UnitState u) {
        Bucket b = u.bucket;
        return b != null && b.owner == this && b.holds(u) ? b.positionOf(u) : -1;
    }

    /** Re-orders every queued unit under another order: O(N) comparisons in place, the index O(S log S). */

    public void reorder(Comparator<UnitState> newOrder) {
        this.order = newOrder;
        this.stride = KeyedOrder.keyLongsOf(newOrder);
        for (Bucket b : buckets.values()) {
            b.heapify();
        }
        rebuildIndex();
    }

    /**
     * Takes what an off-thread re-order needs (docs/scheduling.md, "Swapping the order off the engine
     * thread"): on the engine thread, each bucket's units by slot, copied — O(N) reference copies, no
     * policy call. {@code newOrder} must be an order made for the build (its faults are the build's).
     */
    Rebuild snapshot(KeyedOrder newOrder) {
        return new Rebuild(newOrder);
    }

    /**
     * A re-order of this queue under another order, built from a snapshot away from the engine
     * thread: {@link #build} may run on any thread and reads only its copies and the units' ordering
     * inputs; {@link #install} runs on the engine thread.
     */
    final class Rebuild {
        private final FitQueue scratch;
        /** Live bucket → its copy, which the build turns into the new heap. */
        private final Map<Bucket, Bucket> copies = new IdentityHashMap<>();

        private Rebuild(KeyedOrder newOrder) {
            scratch = new FitQueue(newOrder);
            for (Bucket b : buckets.values()) {
                Bucket c = new Bucket(scratch, b.shape);
                c.units = b.units.clone();
                c.slotsUsed = b.slotsUsed;
                c.n = b.n;
                copies.put(b, c);
            }
        }

        /** Builds the new heaps in the copies: records or frozen inputs by slot, then heapify. Any thread. */
        void build() {
            boolean keyed = scratch.stride > 0;
            for (Bucket c : copies.values()) {
                c.pos = new int[c.units.length];
                c.slotAt = new int[Math.max(4, c.n)];
                if (!keyed) {
                    UnitView[] f = new UnitView[c.slotsUsed];
                    for (int slot = 0; slot < c.slotsUsed; slot++) {
                        UnitState u = c.units[slot];
                        if (u == null) {
                            continue;
                        }
                        FrozenUnit v = new FrozenUnit(u);
                        if (v.live() && v.remaining() > 0) {
                            f[slot] = v;
                        } else {
                            // seen not waiting: changed since the snapshot (re-queued at swap-in), and an
                            // order need only be consistent over waiting units — leave it out of the heap
                            c.units[slot] = null;
                            c.n--;
                        }
                    }
                    c.frozen = f;
                }
                c.heapify();
            }
        }

        /**
         * Swaps the built heaps in. The caller has taken out every unit changed, added or removed since
         * the snapshot (they are re-queued under the new order afterwards), so each live bucket holds
         * exactly the snapshot's units that are still at their slot; the positions of the others are
         * dropped from the new heap, compared through the inputs the build saw. Buckets made since the
         * snapshot hold only such units and are empty now; any other is re-ordered in place.
         */
        void install(Comparator<UnitState> liveOrder) {
            order = liveOrder;
            stride = KeyedOrder.keyLongsOf(liveOrder);
            for (Bucket b : buckets.values()) {
                Bucket c = copies.get(b);
                if (c == null) {
                    b.heapify();
                    continue;
                }
                int held = b.n;
                b.pos = c.pos.length >= b.units.length ? c.pos : Arrays.copyOf(c.pos, b.units.length);
                b.slotAt = c.slotAt;
                b.keys = c.keys;
                b.n = c.n;
                b.frozen = c.frozen;
                for (int slot = 0; slot < c.slotsUsed; slot++) {
                    UnitState was = c.units[slot];
                    if (was != null && b.units[slot] != was) {
                        b.dropPosition(b.pos[slot]);
                    }
                }
                b.frozen = null;
                if (b.n != held) {
                    repairs++;   // a change since the snapshot went unrecorded (a bug): re-order this bucket here
                    b.n = held;
                    if (b.slotAt.length < held) {
                        b.slotAt = new int[held];
                    }
                    b.heapify();
                }
            }
            rebuildIndex();
        }
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
                action.accept(b.at(i));
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

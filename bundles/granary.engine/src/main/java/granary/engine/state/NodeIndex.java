package granary.engine.state;

import java.util.Arrays;

/**
 * Finds, in O(log N), the next node at or after a position whose free resources fit a slot — the
 * round-robin search of active scheduling (docs/scheduling.md, "Active scheduling") over a room or the
 * whole cluster.
 *
 * <p>Structure: a segment tree over node positions. Every tree entry keeps, per resource dimension,
 * the largest free amount among the nodes below it. A search descends from the root, skipping every
 * subtree whose maximum is short in some dimension: such a subtree cannot hold a fitting node. At a
 * leaf the maximum is the node's own free vector, so a leaf that is reached fits. Nodes that take no
 * work (blacklisted, removed) are stored as -1 in every dimension and are never found.
 *
 * <p>Positions are handed out densely and reused after removal. The round-robin cursor lives here.
 */
public final class NodeIndex {

    private static final long NONE = -1;

    private int dims;
    private int capacity;        // leaves, a power of two
    private long[][] max;        // [dim][tree index], tree index 1 = root, leaves at capacity + pos
    private NodeState[] nodes;
    private int used;            // positions ever handed out (upper bound of live positions)
    private int[] freePositions = new int[8];
    private int freeCount;
    private int count;
    private int cursor;

    NodeIndex(int dims) {
        this.dims = dims;
        allocate(16);
    }

    private void allocate(int leaves) {
        capacity = leaves;
        max = new long[dims][2 * leaves];
        for (long[] m : max) {
            Arrays.fill(m, NONE);
        }
        NodeState[] old = nodes;
        nodes = new NodeState[leaves];
        if (old != null) {
            System.arraycopy(old, 0, nodes, 0, Math.min(old.length, leaves));
        }
    }

    /** Adds a node; returns its position. */
    int add(NodeState n) {
        int pos;
        if (freeCount > 0) {
            pos = freePositions[--freeCount];
        } else {
            pos = used++;
            if (pos >= capacity) {
                grow();
            }
        }
        nodes[pos] = n;
        count++;
        update(pos, n.freeVector());
        return pos;
    }

    /** Nodes in the index now. */
    public int count() {
        return count;
    }

    void remove(int pos) {
        nodes[pos] = null;
        count--;
        update(pos, null);
        if (freeCount == freePositions.length) {
            freePositions = Arrays.copyOf(freePositions, freeCount * 2);
        }
        freePositions[freeCount++] = pos;
    }

    /** Records the node's new free vector (or that it takes no work, with null). */
    void update(int pos, long[] free) {
        int i = capacity + pos;
        for (int d = 0; d < dims; d++) {
            max[d][i] = free == null ? NONE : free[d];
        }
        for (i >>= 1; i >= 1; i >>= 1) {
            for (int d = 0; d < dims; d++) {
                long[] m = max[d];
                m[i] = Math.max(m[2 * i], m[2 * i + 1]);
            }
        }
    }

    private void grow() {
        rebuild(dims, capacity * 2);
    }

    /** Re-creates the tree, e.g. after a new resource dimension appeared. */
    void rebuild(int newDims) {
        rebuild(newDims, capacity);
    }

    private void rebuild(int newDims, int leaves) {
        this.dims = newDims;
        allocate(leaves);
        for (int p = 0; p < used; p++) {
            NodeState n = nodes[p];
            update(p, n == null || !n.takesWork() ? null : n.freeVector());
        }
    }

    /** First position in {@code [from, used)} whose node fits {@code need}, or -1. */
    public int find(int from, long[] need) {
        if (from >= used || !fits(1, need)) {
            return -1;
        }
        return find(1, 0, capacity, from, need);
    }

    private int find(int i, int lo, int hi, int from, long[] need) {
        if (hi <= from || !fits(i, need)) {
            return -1;
        }
        if (hi - lo == 1) {
            return lo;
        }
        int mid = (lo + hi) >>> 1;
        int r = find(2 * i, lo, mid, from, need);
        return r >= 0 ? r : find(2 * i + 1, mid, hi, from, need);
    }

    private boolean fits(int i, long[] need) {
        for (int d = 0; d < need.length; d++) {
            if (need[d] > max[d][i]) {
                return false;
            }
        }
        return true;
    }

    /**
     * The most any node of the index has free in dimension {@code d}; -1 if no node takes work (all
     * blacklisted, or none). Each dimension on its own: the maxima may be on different nodes.
     */
    public long most(int d) {
        return d < dims ? max[d][1] : NONE;
    }

    public NodeState at(int pos) {
        return nodes[pos];
    }

    /** Positions handed out so far; live nodes are below this. */
    public int limit() {
        return used;
    }

    public int cursor() {
        return cursor;
    }

    public void cursor(int c) {
        cursor = c >= used ? 0 : c;
    }
}

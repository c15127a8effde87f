package granary.engine.state;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import granary.api.model.Allocation;

/**
 * What one unit holds, node by node: the slots, when the oldest and the latest of them were granted,
 * and the decision of the latest. Kept twice over the same entries: by node in the order each node
 * was first granted (the oldest grants first, for a unit shrinking), and in a list ordered by the
 * latest grant (the newest grants first, for preemption's victims: docs/multi-tenancy.md, "Choices
 * and their defaults"). A grant moves its node to the list's end, so asking for the newest grants
 * walks only those it returns: a unit of a big job holds grants on thousands of nodes, preemption asks
 * for a few hundred slots at a time, many times a second.
 */
final class HeldGrants {

    /**
     * One node's grants; a link of the unit's list by latest grant, and of the node's list of what it
     * holds (NodeState), so a grant or a return finds both sides with one lookup.
     */
    static final class Held {
        final UnitState unit;
        final NodeState node;
        int slots;
        final long since;
        long seq;
        long latest;
        Held newer;
        Held older;
        /** The node's list, in the order its holders were first granted there. */
        Held nodePrev;
        Held nodeNext;

        Held(UnitState unit, NodeState node, long since, long seq) {
            this.unit = unit;
            this.node = node;
            this.since = since;
            this.seq = seq;
            this.latest = since;
        }

        /** True if this comes after {@code o} in the list: a later latest grant, else a later decision. */
        boolean after(Held o) {
            return latest != o.latest ? latest > o.latest : seq > o.seq;
        }

        Allocation allocation() {
            return new Allocation(unit.id(), node.name(), slots, since, seq, latest);
        }
    }

    private final UnitState owner;
    /** By node, in the order the nodes were first granted. */
    private final Map<NodeState, Held> byNode = new LinkedHashMap<>();
    /** The latest first grant on a node, and whether every first grant came at or after the one before. */
    private long lastFirst = Long.MIN_VALUE;
    private boolean firstsInOrder = true;
    /** The ends of the list by latest grant. */
    private Held newest;
    private Held oldest;

    HeldGrants(UnitState owner) {
        this.owner = owner;
    }

    /** {@code k} slots granted on {@code n} at {@code now} by decision {@code seq}; returns the node's entry. */
    Held add(NodeState n, int k, long now, long seq) {
        Held h = byNode.get(n);
        if (h == null) {
            if (byNode.isEmpty()) {
                firstsInOrder = true;
            } else if (now < lastFirst) {
                firstsInOrder = false;   // the clock went back: the nodes' order is no longer their age order
            }
            lastFirst = byNode.isEmpty() ? now : Math.max(lastFirst, now);
            h = new Held(owner, n, now, seq);
            byNode.put(n, h);
        } else {
            unlink(h);
            h.seq = seq;
            h.latest = Math.max(h.latest, now);
        }
        h.slots += k;
        link(h);
        return h;
    }

    /** {@code k} slots taken back from {@code n}; returns the node's entry, with what is left there. */
    Held take(NodeState n, int k) {
        Held h = byNode.get(n);
        h.slots -= k;
        if (h.slots == 0) {
            byNode.remove(n);
            unlink(h);
        }
        return h;
    }

    /** Slots held on {@code n}. */
    int slotsOn(NodeState n) {
        Held h = byNode.get(n);
        return h == null ? 0 : h.slots;
    }

    /** Slots held per node, in the order the nodes were first granted (a copy). */
    Map<NodeState, Integer> slotsByNode() {
        Map<NodeState, Integer> m = new LinkedHashMap<>(byNode.size() * 2);
        for (Held h : byNode.values()) {
            m.put(h.node, h.slots);
        }
        return m;
    }

    /** Engine time of the oldest grant held on {@code n}, or -1 if none is held there. */
    long since(NodeState n) {
        Held h = byNode.get(n);
        return h == null ? -1 : h.since;
    }

    /** The grant on {@code n}, or null if none is held there. */
    Allocation on(NodeState n) {
        Held h = byNode.get(n);
        return h == null ? null : h.allocation();
    }

    /** Every grant, oldest first (then by decision). */
    List<Allocation> all() {
        List<Allocation> out = new ArrayList<>(byNode.size());
        for (Held h : byNode.values()) {
            out.add(h.allocation());
        }
        out.sort(Comparator.comparingLong(Allocation::since).thenComparingLong(Allocation::seq));
        return out;
    }

    /**
     * The oldest grants holding at least {@code wanted} slots (with the ties of the one that reached
     * it), walked in the order the nodes were first granted, which is their age order unless the
     * engine's clock went back since the unit last held nothing; null when it did (the caller sorts
     * them all).
     */
    List<Allocation> oldest(long wanted) {
        if (!firstsInOrder) {
            return null;
        }
        List<Allocation> out = new ArrayList<>();
        long sum = 0;
        long cut = Long.MIN_VALUE;   // the age of the grant that reached {@code wanted}: its ties come too
        for (Held h : byNode.values()) {
            if (cut != Long.MIN_VALUE && h.since > cut) {
                break;
            }
            out.add(h.allocation());
            sum += h.slots;
            if (sum >= wanted && cut == Long.MIN_VALUE) {
                cut = h.since;
            }
        }
        out.sort(Comparator.comparingLong(Allocation::since).thenComparingLong(Allocation::seq));
        long kept = 0;
        for (int i = 0; i < out.size(); i++) {
            kept += out.get(i).slots();
            if (kept >= wanted) {
                return out.subList(0, i + 1);
            }
        }
        return out;
    }

    /**
     * The newest grants whose latest slot was granted at or before {@code startedBy}, newest first
     * (by latest grant, then by decision), until they hold {@code wanted} slots: the list is walked
     * from its end, past the few grants too young, and no further than what is returned.
     */
    List<Allocation> newest(long wanted, long startedBy) {
        List<Allocation> out = null;   // made on the first grant old enough: the newest units often have none
        long sum = 0;
        for (Held h = newest; h != null && (out == null || sum < wanted); h = h.older) {
            if (h.latest <= startedBy) {
                // sized once: at most one entry a node, and no more than the slots wanted (a grant holds at least one)
                out = out == null ? new ArrayList<>((int) Math.min(byNode.size(), Math.max(1, wanted))) : out;
                out.add(h.allocation());
                sum += h.slots;
            }
        }
        return out == null ? List.of() : out;
    }

    /** Puts {@code h} in its place by latest grant: at the end, unless the engine's clock went back. */
    private void link(Held h) {
        Held at = newest;
        while (at != null && !h.after(at)) {
            at = at.older;
        }
        // h goes right after {@code at} (or first when at is null)
        Held next = at == null ? oldest : at.newer;
        h.older = at;
        h.newer = next;
        if (at != null) {
            at.newer = h;
        } else {
            oldest = h;
        }
        if (next != null) {
            next.older = h;
        } else {
            newest = h;
        }
    }

    private void unlink(Held h) {
        if (h.older != null) {
            h.older.newer = h.newer;
        } else {
            oldest = h.newer;
        }
        if (h.newer != null) {
            h.newer.older = h.older;
        } else {
            newest = h.older;
        }
        h.older = null;
        h.newer = null;
    }
}

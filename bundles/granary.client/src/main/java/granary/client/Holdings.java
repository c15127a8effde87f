package granary.client;

import granary.api.model.UnitId;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Where the client's units hold slots: (unit, node) → slots and the agent's endpoint, as the
 * master's hints said, less the releases sent that those hints may not count yet. A hint's
 * placement of a pair counts every release of a request whose mark is at most the hint's
 * {@code through} (docs/protocol.md, "Marks"); a release of a later mark is still taken off — a
 * hint written before the master applied it would otherwise give the slots back to the job master,
 * which would then give them back a second time: running workers' slots. Confined to the client's
 * loop.
 */
final class Holdings {

    /** One change of a (unit, node) pair's slot count. */
    record Change(UnitId unit, String node, String endpoint, int oldSlots, int newSlots) {
    }

    private record Key(UnitId unit, String node) {
    }

    private record Held(int slots, String endpoint, long epoch) {
    }

    /** A release sent with the request marked {@code mark}. */
    private record Releasing(long mark, Key key, int slots) {
    }

    /** What the master's hints said (less the exits they reported since). */
    private final Map<Key, Held> held = new HashMap<>();
    private final List<Releasing> releasing = new ArrayList<>();

    /**
     * Sets the pair to {@code slots}; the change, or null if neither the count nor the agent's endpoint
     * changed (an agent that restarted elsewhere keeps its slots but moves: plans must follow it).
     */
    Change set(UnitId unit, String node, int slots, String endpoint) {
        return set(unit, node, slots, endpoint, 0);
    }

    /** As {@link #set(UnitId, String, int, String)}, with the node's epoch (a change of it is a change too). */
    Change set(UnitId unit, String node, int slots, String endpoint, long epoch) {
        return set(unit, node, slots, endpoint, epoch, -1);
    }

    /**
     * As a hint says: the pair holds {@code slots}, counting the releases of requests marked up to
     * {@code through} (-1: a count that counts none of those on their way).
     */
    Change set(UnitId unit, String node, int slots, String endpoint, long epoch, long through) {
        Key k = new Key(unit, node);
        Held before = held.get(k);
        int old = view(k);
        if (slots == 0) {
            held.remove(k);
        } else {
            held.put(k, new Held(slots, endpoint, epoch));
        }
        releasing.removeIf(r -> r.key().equals(k) && r.mark() <= through);
        int now = view(k);
        boolean moved = before != null && now > 0 && (!before.endpoint().equals(endpoint) || before.epoch() != epoch);
        return old == now && !moved ? null : new Change(unit, node, endpoint, old, now);
    }

    /** One slot of the pair is gone (its worker ended); the change, or null if it held none. */
    Change release(UnitId unit, String node) {
        Held h = held.get(new Key(unit, node));
        if (h == null) {
            return null;
        }
        Key k = new Key(unit, node);
        int old = view(k);
        held.put(k, new Held(h.slots() - 1, h.endpoint(), h.epoch()));
        if (h.slots() - 1 <= 0) {
            held.remove(k);
        }
        int now = view(k);
        return old == now ? null : new Change(unit, node, h.endpoint(), old, now);
    }

    /** {@code slots} of the pair given back by the request marked {@code mark}; the change. */
    Change releasing(long mark, UnitId unit, String node, int slots) {
        Key k = new Key(unit, node);
        int old = view(k);
        releasing.add(new Releasing(mark, k, slots));
        int now = view(k);
        Held h = held.get(k);
        return old == now ? null : new Change(unit, node, h == null ? "" : h.endpoint(), old, now);
    }

    /** The request marked {@code mark} was refused: its releases took nothing; the changes. */
    List<Change> refused(long mark) {
        List<Change> out = new ArrayList<>();
        for (Releasing r : List.copyOf(releasing)) {
            if (r.mark() == mark) {
                int old = view(r.key());
                releasing.remove(r);
                int now = view(r.key());
                Held h = held.get(r.key());
                if (old != now) {
                    out.add(new Change(r.key().unit(), r.key().node(), h == null ? "" : h.endpoint(), old, now));
                }
            }
        }
        return out;
    }

    /** Releases on their way (for tests and status). */
    int releasing() {
        return releasing.size();
    }

    private int view(Key k) {
        Held h = held.get(k);
        int n = h == null ? 0 : h.slots();
        for (Releasing r : releasing) {
            if (r.key().equals(k)) {
                n -= r.slots();
            }
        }
        return Math.max(0, n);
    }

    /** Forgets every pair; the changes to 0. */
    List<Change> clear() {
        List<Change> out = new ArrayList<>();
        held.forEach((k, h) -> out.add(new Change(k.unit(), k.node(), h.endpoint(), view(k), 0)));
        held.clear();
        releasing.clear();
        return out;
    }

    int slots(UnitId unit, String node) {
        return view(new Key(unit, node));
    }

    /** One pair held, with its agent's endpoint and the node's epoch (what the hint file keeps). */
    record Entry(UnitId unit, String node, int slots, String endpoint, long epoch) {
    }

    /** Every pair held now, with endpoints, in a stable order. */
    List<Entry> entries() {
        List<Entry> out = new ArrayList<>();
        held.forEach((k, h) -> {
            if (view(k) > 0) {
                out.add(new Entry(k.unit(), k.node(), view(k), h.endpoint(), h.epoch()));
            }
        });
        out.sort(java.util.Comparator.comparing((Entry x) -> x.unit()).thenComparing(Entry::node));
        return out;
    }

    /** unit → node → slots. */
    Map<UnitId, Map<String, Integer>> byUnit() {
        Map<UnitId, Map<String, Integer>> out = new java.util.TreeMap<>();
        held.forEach((k, h) -> {
            if (view(k) > 0) {
                out.computeIfAbsent(k.unit(), u -> new java.util.TreeMap<>()).put(k.node(), view(k));
            }
        });
        return out;
    }

    /** Every pair held now, as a full request reports them (docs/recovery.md). */
    List<granary.protocol.Request.Holding> all() {
        List<granary.protocol.Request.Holding> out = new ArrayList<>();
        held.forEach((k, h) -> {
            if (view(k) > 0) {
                out.add(new granary.protocol.Request.Holding(k.unit(), k.node(), view(k)));
            }
        });
        out.sort(java.util.Comparator.comparing((granary.protocol.Request.Holding x) -> x.unit()).thenComparing(x -> x.node()));
        return out;
    }
}

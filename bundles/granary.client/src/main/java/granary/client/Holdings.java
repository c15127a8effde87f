package granary.client;

import granary.api.model.UnitId;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Where the client's units hold slots, as the master's hints said: (unit, node) → slots and the agent's endpoint. Confined to the client's loop. */
final class Holdings {

    /** One change of a (unit, node) pair's slot count. */
    record Change(UnitId unit, String node, String endpoint, int oldSlots, int newSlots) {
    }

    private record Key(UnitId unit, String node) {
    }

    private record Held(int slots, String endpoint, long epoch) {
    }

    private final Map<Key, Held> held = new HashMap<>();

    /**
     * Sets the pair to {@code slots}; the change, or null if neither the count nor the agent's endpoint
     * changed (an agent that restarted elsewhere keeps its slots but moves: plans must follow it).
     */
    Change set(UnitId unit, String node, int slots, String endpoint) {
        return set(unit, node, slots, endpoint, 0);
    }

    /** As {@link #set(UnitId, String, int, String)}, with the node's epoch (a change of it is a change too). */
    Change set(UnitId unit, String node, int slots, String endpoint, long epoch) {
        Key k = new Key(unit, node);
        Held before = held.get(k);
        int old = before == null ? 0 : before.slots();
        if (slots == 0) {
            held.remove(k);
        } else {
            held.put(k, new Held(slots, endpoint, epoch));
        }
        boolean moved = before != null && slots > 0 && (!before.endpoint().equals(endpoint) || before.epoch() != epoch);
        return old == slots && !moved ? null : new Change(unit, node, endpoint, old, slots);
    }

    /** One slot of the pair is gone (its worker ended); the change, or null if it held none. */
    Change release(UnitId unit, String node) {
        Held h = held.get(new Key(unit, node));
        return h == null ? null : set(unit, node, h.slots() - 1, h.endpoint(), h.epoch());
    }

    /** Forgets every pair; the changes to 0. */
    List<Change> clear() {
        List<Change> out = new ArrayList<>();
        held.forEach((k, h) -> out.add(new Change(k.unit(), k.node(), h.endpoint(), h.slots(), 0)));
        held.clear();
        return out;
    }

    int slots(UnitId unit, String node) {
        Held h = held.get(new Key(unit, node));
        return h == null ? 0 : h.slots();
    }

    /** One pair held, with its agent's endpoint and the node's epoch (what the hint file keeps). */
    record Entry(UnitId unit, String node, int slots, String endpoint, long epoch) {
    }

    /** Every pair held now, with endpoints, in a stable order. */
    List<Entry> entries() {
        List<Entry> out = new ArrayList<>();
        held.forEach((k, h) -> out.add(new Entry(k.unit(), k.node(), h.slots(), h.endpoint(), h.epoch())));
        out.sort(java.util.Comparator.comparing((Entry x) -> x.unit()).thenComparing(Entry::node));
        return out;
    }

    /** unit → node → slots. */
    Map<UnitId, Map<String, Integer>> byUnit() {
        Map<UnitId, Map<String, Integer>> out = new java.util.TreeMap<>();
        held.forEach((k, h) -> out.computeIfAbsent(k.unit(), u -> new java.util.TreeMap<>()).put(k.node(), h.slots()));
        return out;
    }

    /** Every pair held now, as a full request reports them (docs/recovery.md). */
    List<granary.protocol.Request.Holding> all() {
        List<granary.protocol.Request.Holding> out = new ArrayList<>();
        held.forEach((k, h) -> out.add(new granary.protocol.Request.Holding(k.unit(), k.node(), h.slots())));
        out.sort(java.util.Comparator.comparing((granary.protocol.Request.Holding x) -> x.unit()).thenComparing(x -> x.node()));
        return out;
    }
}

package granary.jobmaster;

import java.util.HashMap;
import java.util.Map;

/**
 * Ends learned from an agent before the master's hint brought them (docs/recovery.md, "Exits that
 * never arrive"), by node and slot. When the hint's exit comes it lowers the unit's desire for a task
 * already counted as ended, so nothing is asked again for it. While no master acknowledged the exit
 * the slot is not free to launch into: the master has not given it back yet. A master that restarted
 * rebuilt without them ({@link #clear}), and one that died with the exit leaves the slot held and
 * free: an entry goes after two verification rounds ({@link #forgetOlderThan}).
 */
final class EndsAhead {

    private record Ahead(long at, boolean slotHeld) {
    }

    private final Map<String, Ahead> ends = new HashMap<>();

    /** The worker in {@code slot} on {@code node} ended at {@code now}; {@code slotHeld}: no master acknowledged it yet. */
    void ended(String node, int slot, long now, boolean slotHeld) {
        ends.put(key(node, slot), new Ahead(now, slotHeld));
    }

    /** The end of {@code slot} on {@code node} came from the master: true if it was known ahead. */
    boolean arrived(String node, int slot) {
        return ends.remove(key(node, slot)) != null;
    }

    /** Slots on {@code node} whose worker ended and that the master has not released yet. */
    int held(String node) {
        String prefix = node + "#";
        int n = 0;
        for (Map.Entry<String, Ahead> e : ends.entrySet()) {
            if (e.getValue().slotHeld() && e.getKey().startsWith(prefix)) {
                n++;
            }
        }
        return n;
    }

    /** Forgets the ends learned before {@code at}; true if any went (their slots are free). */
    boolean forgetOlderThan(long at) {
        return ends.values().removeIf(a -> a.at() < at);
    }

    /** A new master's full hint says what the units hold. */
    void clear() {
        ends.clear();
    }

    private static String key(String node, int slot) {
        return node + "#" + slot;
    }
}

package granary.engine.state;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * What the next scheduling cycle must look at: nodes whose free resources grew (passive
 * scheduling), units that were requested or want more (active scheduling), and which gangs deserve
 * a try — every waiting one when resources were freed, else only the new ones. Kept in insertion order so that cycles are deterministic.
 */
public final class Agenda {

    private final Set<NodeState> freed = new LinkedHashSet<>();
    private final Set<UnitState> fresh = new LinkedHashSet<>();
    private final Set<UnitState> freshGangs = new LinkedHashSet<>();
    private boolean gangs;
    private boolean sweep;

    public void freed(NodeState n) {
        freed.add(n);
        gangs = true;
    }

    public void fresh(UnitState u) {
        if (u.allOrNothing()) {
            freshGangs.add(u);
        } else {
            fresh.add(u);
        }
    }

    /** Every node deserves another look (a limit or a filter changed). */
    public void sweep() {
        sweep = true;
        gangs = true;
    }

    public boolean takeSweep() {
        boolean s = sweep;
        sweep = false;
        return s;
    }

    public void forget(NodeState n) {
        freed.remove(n);
    }

    public List<NodeState> takeFreed() {
        return drain(freed);
    }

    public List<UnitState> takeFresh() {
        return drain(fresh);
    }

    /** True if every waiting gang deserves another try (resources were freed, a limit changed). */
    public boolean takeGangs() {
        boolean g = gangs;
        gangs = false;
        if (g) {
            freshGangs.removeIf(u -> true);   // by its iterator, not clear(): see drain
        }
        return g;
    }

    /** Gangs that were requested or want more since the last cycle (tried alone when nothing was freed). */
    public List<UnitState> takeFreshGangs() {
        return drain(freshGangs);
    }

    /**
     * Empties {@code set} and returns what it held, in order, in one pass of its iterator. Not
     * {@code clear()}, which walks the whole hash table: a table grown once (every node freed by a
     * slice boundary) would otherwise cost its full size at every cycle after.
     */
    private static <T> List<T> drain(Set<T> set) {
        if (set.isEmpty()) {
            return List.of();   // most cycles: nothing to allocate
        }
        List<T> l = new ArrayList<>(set.size());
        for (Iterator<T> it = set.iterator(); it.hasNext(); ) {
            l.add(it.next());
            it.remove();
        }
        return l;
    }

    public boolean hasFreed() {
        return !freed.isEmpty() || sweep;
    }
}

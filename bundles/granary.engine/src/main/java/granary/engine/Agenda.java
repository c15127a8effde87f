package granary.engine;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * What the next scheduling cycle must look at: nodes whose free resources grew (passive
 * scheduling), units that were requested or want more (active scheduling), and whether waiting
 * gangs deserve another try. Kept in insertion order so that cycles are deterministic.
 */
final class Agenda {

    private final Set<NodeState> freed = new LinkedHashSet<>();
    private final Set<UnitState> fresh = new LinkedHashSet<>();
    private boolean gangs;
    private boolean sweep;

    void freed(NodeState n) {
        freed.add(n);
        gangs = true;
    }

    void fresh(UnitState u) {
        if (u.allOrNothing()) {
            gangs = true;
        } else {
            fresh.add(u);
        }
    }

    void gangs() {
        gangs = true;
    }

    /** Every node deserves another look (a limit or a filter changed). */
    void sweep() {
        sweep = true;
        gangs = true;
    }

    boolean takeSweep() {
        boolean s = sweep;
        sweep = false;
        return s;
    }

    void forget(NodeState n) {
        freed.remove(n);
    }

    List<NodeState> takeFreed() {
        List<NodeState> l = new ArrayList<>(freed);
        freed.clear();
        return l;
    }

    List<UnitState> takeFresh() {
        List<UnitState> l = new ArrayList<>(fresh);
        fresh.clear();
        return l;
    }

    boolean takeGangs() {
        boolean g = gangs;
        gangs = false;
        return g;
    }

    boolean hasFreed() {
        return !freed.isEmpty() || sweep;
    }
}

package granary.sim.trace;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import granary.sim.workload.SimUnit;

/**
 * Dependencies between the units of one job. A cycle would never start (every unit of it waits for
 * another), so a workload with one is refused, naming the cycle.
 */
final class Dag {

    private Dag() {
    }

    /** The first cycle among {@code units}' {@code after} names, as {@code [a, b, a]}, or null if there is none. */
    static List<String> cycle(List<SimUnit> units) {
        Map<String, SimUnit> byName = new HashMap<>();
        units.forEach(u -> byName.put(u.name(), u));
        Set<String> done = new HashSet<>();
        for (SimUnit u : units) {
            List<String> c = visit(u.name(), byName, new ArrayList<>(), done);
            if (c != null) {
                return c;
            }
        }
        return null;
    }

    /** {@code job j1: tasks form a cycle: M1 -> R2 -> M1}. */
    static String message(String job, String what, List<String> cycle) {
        return "job " + job + ": " + what + " form a cycle: " + String.join(" -> ", cycle);
    }

    private static List<String> visit(String n, Map<String, SimUnit> byName, List<String> path, Set<String> done) {
        if (done.contains(n)) {
            return null;
        }
        int at = path.indexOf(n);
        if (at >= 0) {
            List<String> c = new ArrayList<>(path.subList(at, path.size()));
            c.add(n);
            return c;
        }
        path.add(n);
        SimUnit u = byName.get(n);
        if (u != null) {
            for (String d : u.after()) {
                List<String> c = visit(d, byName, path, done);
                if (c != null) {
                    return c;
                }
            }
        }
        path.remove(path.size() - 1);
        done.add(n);
        return null;
    }
}

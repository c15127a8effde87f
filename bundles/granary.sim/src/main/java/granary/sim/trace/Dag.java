package granary.sim.trace;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import granary.sim.workload.ReadReport;
import granary.sim.workload.SimUnit;

/** Dependencies between the units of one job: a cycle would never start, so its edges are dropped (counted). */
final class Dag {

    private Dag() {
    }

    static List<SimUnit> breakCycles(List<SimUnit> units, ReadReport report, String where) {
        Map<String, SimUnit> byName = new HashMap<>();
        units.forEach(u -> byName.put(u.name(), u));
        Set<String> done = new HashSet<>();
        Set<String> cyclic = new HashSet<>();
        for (SimUnit u : units) {
            visit(u.name(), byName, new HashSet<>(), done, cyclic);
        }
        if (cyclic.isEmpty()) {
            return units;
        }
        List<SimUnit> out = new ArrayList<>();
        for (SimUnit u : units) {
            if (cyclic.contains(u.name())) {
                report.adjust("dependency cycle: the task's dependencies are ignored", where);
                out.add(new SimUnit(u.spec(), u.arrivalMs(), u.durationMs(), List.of()));
            } else {
                out.add(u);
            }
        }
        return out;
    }

    private static void visit(String n, Map<String, SimUnit> byName, Set<String> path, Set<String> done, Set<String> cyclic) {
        if (done.contains(n)) {
            return;
        }
        if (!path.add(n)) {
            cyclic.addAll(path);
            return;
        }
        SimUnit u = byName.get(n);
        if (u != null) {
            for (String d : u.after()) {
                visit(d, byName, path, done, cyclic);
            }
        }
        path.remove(n);
        done.add(n);
    }
}

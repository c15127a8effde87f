package granary.sim.run;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import granary.sim.workload.SimJob;
import granary.sim.workload.SimUnit;

/** One replayed job: its units' tracks, the group the engine put it in, and whether it was refused. */
final class JobTrack {

    final SimJob job;
    final Map<String, UnitTrack> units = new LinkedHashMap<>();
    final Map<String, List<UnitTrack>> dependents = new LinkedHashMap<>();
    String group;
    long submittedAt = -1;
    String refusal;
    int unfinished;

    JobTrack(SimJob job) {
        this.job = job;
        for (SimUnit u : job.units()) {
            units.put(u.name(), new UnitTrack(u, this));
        }
        for (UnitTrack t : units.values()) {
            for (String dep : t.unit.after()) {
                dependents.computeIfAbsent(dep, k -> new ArrayList<>()).add(t);
            }
        }
        unfinished = units.size();
    }

    boolean submitted() {
        return submittedAt >= 0;
    }
}

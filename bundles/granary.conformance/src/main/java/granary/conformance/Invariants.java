package granary.conformance;

import granary.api.model.JobSpec;
import granary.api.model.UnitId;
import granary.api.model.UnitSpec;
import granary.protocol.Cap;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What must hold (docs/recovery.md, "Invariants"). After every step: no agent holds caps beyond its
 * node's capacity, the engine's own invariants hold (checked on every event in strict mode), the
 * master revokes no online slot and no agent stops an online worker for a withdrawn cap (both
 * reported as they happen). Once the world has settled: the master's grants equal every agent's
 * caps and every job master's holdings, every job a job master runs is known to the master, and
 * every online unit holds exactly the slots it wants (no slot granted twice after a recovery).
 */
public final class Invariants {

    private Invariants() {
    }

    static void everyStep(World w) {
        for (SimAgent a : w.agents.values()) {
            if (!a.capped().fitsIn(a.capacity)) {
                w.violation("agent " + a.node + " holds caps for " + a.capped() + ", beyond its capacity " + a.capacity);
            }
        }
    }

    /** Where the master and the peers disagree now; empty when they agree. */
    public static List<String> agreement(World w) {
        List<String> out = new ArrayList<>();
        for (SimAgent a : w.agents.values()) {
            if (!w.engineKnows(a.node)) {
                out.add("the master does not know node " + a.node);
                continue;
            }
            Map<UnitId, Integer> held = new TreeMap<>();
            for (Cap.Grant g : a.caps().values()) {
                held.put(g.unit(), g.slots());
            }
            Map<UnitId, Integer> granted = w.engineCaps(a.node);
            if (!held.equals(granted)) {
                out.add("node " + a.node + ": the master grants " + granted + ", the agent holds caps " + held);
            }
        }
        for (SimJobMaster j : w.jobMasters.values()) {
            Map<UnitId, Map<String, Integer>> granted = new TreeMap<>();
            for (JobSpec job : j.jobs()) {
                if (job.units().stream().allMatch(u -> u.desired() == 0)) {
                    continue; // finished: the master forgets a job with nothing left to run
                }
                if (w.engineJob(job.id()) == null) {
                    out.add("job master " + j.id() + " runs job " + job.id() + ", which the master does not know");
                    continue;
                }
                for (UnitSpec u : job.units()) {
                    UnitId id = new UnitId(job.id(), u.name());
                    Map<String, Integer> h = w.engineHoldings(id);
                    if (!h.isEmpty()) {
                        granted.put(id, h);
                    }
                    int held = h.values().stream().mapToInt(Integer::intValue).sum();
                    if (u.kind() == granary.api.model.UnitKind.ONLINE && held != u.desired()) {
                        out.add("online unit " + id + " holds " + held + " slots, its job master wants " + u.desired());
                    }
                }
            }
            if (!granted.equals(j.holdings())) {
                out.add("job master " + j.id() + " holds " + j.holdings() + ", the master grants " + granted);
            }
        }
        return out;
    }
}

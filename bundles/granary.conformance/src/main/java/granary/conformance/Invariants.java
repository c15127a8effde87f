package granary.conformance;

import granary.api.model.JobSpec;
import granary.api.model.Resources;
import granary.api.model.UnitId;
import granary.api.model.UnitKind;
import granary.api.spi.JobView;
import granary.api.spi.UnitView;
import granary.master.ProtocolMaster;
import granary.protocol.Cap;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What must hold (docs/recovery.md, "Invariants"). After every step: no agent holds caps beyond its
 * node's capacity, the engine's own invariants hold (checked on every event in strict mode), the
 * master revokes no online slot (reported as it happens), no task runs twice ({@link TaskLedger}).
 * Once the world has settled: the master's grants equal every agent's caps and every job master's
 * holdings, every job a job master runs is known to the master, every online unit holds exactly the
 * slots it wants, and no worker runs without a grant. At the end: no worker outlives its job.
 */
public final class Invariants {

    private Invariants() {
    }

    static void everyStep(World w) {
        for (SimNode n : w.nodes.values()) {
            if (n.agent == null || !n.agent.alive()) {
                continue;
            }
            Resources sum = Resources.ZERO;
            for (Cap.Grant g : n.agent.role.caps()) {
                sum = sum.plus(g.size().times(g.slots()));
            }
            if (!sum.fitsIn(n.capacity)) {
                w.violation("agent " + n.name + " holds caps for " + sum + ", beyond its capacity " + n.capacity);
            }
        }
    }

    /** Where the master and the peers disagree now; empty when they agree. */
    public static List<String> agreement(World w) {
        List<String> out = new ArrayList<>();
        for (SimNode n : w.nodes.values()) {
            if (n.agent == null || !n.agent.alive() || !n.agent.role.registered()) {
                out.add("agent " + n.name + " is not registered");
                continue;
            }
            if (!w.engineKnows(n.name)) {
                out.add("the master does not know node " + n.name);
                continue;
            }
            Map<UnitId, Integer> held = new TreeMap<>();
            for (Cap.Grant g : n.agent.role.caps()) {
                held.put(g.unit(), g.slots());
            }
            Map<UnitId, Integer> granted = w.engineCaps(n.name);
            if (!held.equals(granted)) {
                out.add("node " + n.name + ": the master grants " + granted + ", the agent holds caps " + held);
            }
        }
        for (JobMasterProcess.Spec spec : w.specs.values()) {
            if (w.finished.containsKey(spec.id()) || w.cancelConfirmed.contains(spec.id())) {
                continue; // done, or done and waiting for its services' ends
            }
            JobMasterProcess jm = w.current(spec.id());
            if (jm == null || !jm.alive() || jm.client() == null || !jm.client().synced()) {
                out.add("job master " + spec.id() + " is not connected");
                continue;
            }
            JobView job = w.engineJob(spec.job());
            if (job == null) {
                out.add("job master " + spec.id() + " runs job " + spec.job() + ", which the master does not know");
                continue;
            }
            Map<UnitId, Map<String, Integer>> granted = new TreeMap<>();
            for (UnitView u : job.units()) {
                Map<String, Integer> h = w.engineHoldings(u.id());
                if (!h.isEmpty()) {
                    granted.put(u.id(), h);
                }
                if (u.kind() == UnitKind.ONLINE && u.granted() != u.desired()) {
                    out.add("online unit " + u.id() + " holds " + u.granted() + " slots, it wants " + u.desired());
                }
            }
            Map<UnitId, Map<String, Integer>> believed = jm.client().holdings();
            if (!granted.equals(believed)) {
                out.add("job master " + spec.id() + " holds " + believed + ", the master grants " + granted);
            }
        }
        return out;
    }

    /** Workers that run without a grant, or whose job the master does not know (once the world settled). */
    static List<String> workers(World w) {
        List<String> out = new ArrayList<>();
        for (SimNode n : w.nodes.values()) {
            Map<UnitId, Integer> running = new TreeMap<>();
            for (SimOs.Proc p : n.os.alive()) {
                running.merge(p.record.unit(), 1, Integer::sum);
            }
            Map<UnitId, Integer> granted = w.engineCaps(n.name);
            running.forEach((unit, count) -> {
                int g = granted.getOrDefault(unit, 0);
                if (count > g) {
                    out.add("node " + n.name + " runs " + count + " workers of " + unit + " under a grant of " + g);
                }
                if (!ProtocolMaster.isRestartJob(unit.job()) && w.engineJob(unit.job()) == null) {
                    out.add("node " + n.name + " runs workers of " + unit + ", whose job the master does not know");
                }
            });
        }
        return out;
    }

    /** Workers of ended jobs still running. */
    static List<String> outlived(World w) {
        List<String> out = new ArrayList<>();
        for (SimNode n : w.nodes.values()) {
            for (SimOs.Proc p : n.os.alive()) {
                String job = p.record.unit().job();
                boolean ended = w.specs.values().stream().anyMatch(s -> s.job().equals(job) && w.finished.containsKey(s.id()));
                if (ended) {
                    out.add("worker " + p.record.unit() + " slot " + p.record.slot() + " (pid " + p.pid + ") on " + n.name
                            + " outlived its job");
                }
            }
        }
        return out;
    }

    /** The service workers running now: job → pids. */
    static Map<String, List<Long>> services(World w) {
        Map<String, List<Long>> out = new TreeMap<>();
        for (SimNode n : w.nodes.values()) {
            for (SimOs.Proc p : n.os.alive()) {
                if (p.record.online() && p.record.unit().unit().equals("service")) {
                    out.computeIfAbsent(p.record.unit().job(), k -> new ArrayList<>()).add(p.pid);
                }
            }
        }
        out.values().forEach(l -> l.sort(null));
        return out;
    }

    static String describe(JobSpec j) {
        return j.id();
    }
}

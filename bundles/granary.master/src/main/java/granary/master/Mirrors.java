package granary.master;

import granary.api.model.UnitId;
import granary.api.spi.EngineView;
import granary.api.spi.JobView;
import granary.api.spi.NodeView;
import granary.api.spi.UnitView;
import granary.protocol.Heartbeat;
import granary.protocol.Hint;
import granary.recovery.Adoption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The master's mirrors of its engine's grants: per agent the slots per unit on its node, per job
 * master the slots per unit and node; kept in step with the engine's outputs and with inputs that
 * change grants without one, and the news of nodes lost and back, exits and moved endpoints.
 */
final class Mirrors extends MasterPart {


    Mirrors(MasterBook book) {
        super(book);
    }

    void move(UnitId unit, String node, int delta, boolean withdrawal) {
        long now = clock.millis();
        AgentPeer a = agents.get(node);
        if (a != null) {
            a.set(unit, a.caps.getOrDefault(unit, 0) + delta, withdrawal, now);
            deliver(a);
        }
        JobMasterPeer j = jobMasterOf(unit.job());
        if (j != null) {
            int held = j.placements.getOrDefault(unit, Map.of()).getOrDefault(node, 0);
            j.set(unit, node, held + delta, now);
            deliver(j);
        }
    }

    /**
     * Sets the counts of {@code units} on {@code nodes} from the engine's state, on the engine
     * thread, after an input that changed them without an output event.
     */
    void sync(Set<UnitId> units, Set<String> nodes, boolean withdrawal) {
        if (units.isEmpty()) {
            return;
        }
        query(v -> {
            long now = clock.millis();
            for (String node : nodes) {
                NodeView n = v.cluster().node(node);
                AgentPeer a = agents.get(node);
                for (UnitId u : units) {
                    int slots = n == null ? 0 : n.slotsOf(u);
                    if (a != null && a.caps.getOrDefault(u, 0) != slots) {
                        a.set(u, slots, withdrawal, now);
                    }
                    JobMasterPeer j = jobMasterOf(u.job());
                    if (j != null && j.placements.getOrDefault(u, Map.of()).getOrDefault(node, 0) != slots) {
                        j.set(u, node, slots, now);
                    }
                }
                if (a != null) {
                    deliver(a);
                }
            }
            for (JobMasterPeer j : jobMasters.values()) {
                deliver(j);
            }
            return null;
        });
    }

    /**
     * An agent came back at another address (a restart on a new port): every job master holding slots
     * on its node is sent those placements again, unchanged but for the endpoint, or it would go on
     * sending plans to the old address (docs/recovery.md, "Exits that never arrive").
     */
    void endpointMoved(String node, long now) {
        for (JobMasterPeer j : jobMasters.values()) {
            boolean holds = false;
            for (Map.Entry<UnitId, Map<String, Integer>> u : new ArrayList<>(j.placements.entrySet())) {
                Integer slots = u.getValue().get(node);
                if (slots != null && slots > 0) {
                    j.set(u.getKey(), node, slots, now);
                    holds = true;
                }
            }
            if (holds) {
                j.forgetPass(node); // its agent registered again, perhaps with another token: a new pass with the placements
                deliver(j);
            }
        }
    }

    /**
     * Queues the exits of workers on {@code node} for their job masters' next hint, each with its
     * pair's current count (so that "last count − exits" is never taken for the truth when a
     * re-grant kept the count unchanged), and answers their parked polls.
     */
    void tellJobMasters(String node, List<Heartbeat.Exit> exited) {
        if (exited.isEmpty()) {
            return;
        }
        long now = clock.millis();
        Set<JobMasterPeer> told = new LinkedHashSet<>();
        for (Heartbeat.Exit x : exited) {
            JobMasterPeer j = jobMasterOf(x.unit().job());
            if (j != null) {
                j.exited(new Hint.Exit(x.unit(), node, x.slot(), x.exitCode(), x.stopped(), x.oom()), now);
                j.set(x.unit(), node, j.placements.getOrDefault(x.unit(), Map.of()).getOrDefault(node, 0), now);
                told.add(j);
            } else if (formerOwners.containsKey(x.unit().job()) && jobMasters.get(formerOwners.get(x.unit().job())) != null) {
                j = jobMasters.get(formerOwners.get(x.unit().job()));
                j.exited(new Hint.Exit(x.unit(), node, x.slot(), x.exitCode(), x.stopped(), x.oom()), now); // a worker of a job it cancelled: gone
                told.add(j);
            }
        }
        told.forEach(j -> deliver(j));
    }

    /** The job masters holding slots on each of {@code nodes} now: those to tell of a change of it In a turn of the loop. */
    Map<String, List<JobMasterPeer>> holdersOn(List<String> nodes) {
        Map<String, List<JobMasterPeer>> out = new java.util.LinkedHashMap<>();
        for (String node : nodes) {
            for (JobMasterPeer j : jobMasters.values()) {
                if (j.holdsOn(node)) {
                    out.computeIfAbsent(node, n -> new ArrayList<>()).add(j);
                }
            }
        }
        return out;
    }

    /**
     * Tells each job master in {@code toTell} that the agent of the node is {@code state}
     * (docs/recovery.md, "A silent node"): the master keeps online slots there and takes the offline
     * ones back; the job master decides what to do about its work. A job master told a node is lost
     * is told when it is back, whether it still holds slots there or not.
     */
    void tellNodeState(Map<String, List<JobMasterPeer>> toTell, String state) {
        if (toTell.isEmpty()) {
            return;
        }
        long now = clock.millis();
        Set<JobMasterPeer> told = new LinkedHashSet<>();
        toTell.forEach((node, jms) -> jms.forEach(j -> {
            j.nodeState(node, state, now);
            if (Hint.NodeState.LOST.equals(state)) {
                j.toldLost.add(node);
            } else {
                j.toldLost.remove(node);
            }
            told.add(j);
        }));
        told.forEach(j -> deliver(j));
    }

    /** The job masters told that {@code node} was lost: to be told it is back. */
    Map<String, List<JobMasterPeer>> toldLost(String node) {
        Map<String, List<JobMasterPeer>> out = new java.util.LinkedHashMap<>();
        for (JobMasterPeer j : jobMasters.values()) {
            if (j.toldLost.contains(node)) {
                out.computeIfAbsent(node, n -> new ArrayList<>()).add(j);
            }
        }
        return out;
    }

    /** Takes {@code slots} off the mirror of {@code unit} on {@code node} (agent and job master). In a turn of the loop. */
    void lower(String node, UnitId unit, int slots, boolean withdrawal) {
        long now = clock.millis();
        AgentPeer a = agents.get(node);
        if (a != null) {
            a.set(unit, Math.max(0, a.caps.getOrDefault(unit, 0) - slots), withdrawal, now);
        }
        JobMasterPeer j = jobMasterOf(unit.job());
        if (j != null) {
            j.set(unit, node, Math.max(0, j.placements.getOrDefault(unit, Map.of()).getOrDefault(node, 0) - slots), now);
        }
    }

    /** The placements of {@code p}'s units from the engine, plus online slots kept for agents that have not returned. In a turn of the loop. */
    void fillPlacements(JobMasterPeer p, EngineView v) {
        p.placements.clear();
        for (String job : p.jobs) {
            JobView j = v.job(job);
            if (j != null) {
                for (UnitView u : j.units()) {
                    u.allocations().forEach((node, slots) -> p.placements.computeIfAbsent(u.id(), x -> new HashMap<>()).put(node, slots));
                }
            }
        }
        for (Adoption a : book.recovered.awaiting()) {
            if (p.jobs.contains(a.unit().job())) {
                p.placements.computeIfAbsent(a.unit(), x -> new HashMap<>()).merge(a.node(), a.slots(), Integer::sum);
            }
        }
    }

    /**
     * The slots kept for a returning agent leave the job masters' mirrors before the engine grants
     * what the agent still runs (counted from there on): counting both told a job master twice the
     * slots it held there, and it gave the surplus back — the running services' slots. The pair is
     * in the next hint either way, with its count then (the kept slots forgotten: fewer). In a turn of the loop.
     */
    void unkept(List<Adoption> kept) {
        long now = clock.millis();
        for (Adoption a : kept) {
            JobMasterPeer j = jobMasterOf(a.unit().job());
            if (j != null) {
                j.set(a.unit(), a.node(), j.placements.getOrDefault(a.unit(), Map.of()).getOrDefault(a.node(), 0) - a.slots(), now);
            }
        }
    }
}

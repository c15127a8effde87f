package granary.master;

import granary.api.model.UnitId;
import granary.api.spi.JobView;
import granary.api.spi.NodeView;
import granary.api.spi.UnitView;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** What the master tells its monitors: its peers, the drift of its mirrors from the engine, delivery latency. */
final class MasterStatus extends MasterPart {

    private final Restarting restarting;

    MasterStatus(MasterBook book, Restarting restarting) {
        super(book);
        this.restarting = restarting;
    }

    List<String> driftNow() {
        return query(v -> {
            List<String> out = new ArrayList<>();
            if (book.window != null || book.rebuilding) {
                return out;
            }
            for (AgentPeer a : agents.values()) {
                NodeView n = v.cluster().node(a.node);
                if (a.registration == null || n == null) {
                    continue;
                }
                Map<UnitId, Integer> engine = new HashMap<>(n.allocations());
                if (!engine.equals(a.caps)) {
                    out.add("agent " + a.node + ": the master's caps " + a.caps + ", its engine " + engine);
                }
            }
            for (JobMasterPeer j : jobMasters.values()) {
                for (String job : j.jobs) {
                    JobView jv = v.job(job);
                    if (jv == null) {
                        continue;
                    }
                    for (UnitView u : jv.units()) {
                        Map<String, Integer> engine = new HashMap<>(u.allocations());
                        Map<String, Integer> mirror = new HashMap<>(j.placements.getOrDefault(u.id(), Map.of()));
                        // slots kept for an agent that has not come back (docs/recovery.md): not in the engine yet
                        mirror.keySet().removeIf(node -> v.cluster().node(node) == null);
                        if (!engine.equals(mirror)) {
                            out.add("job master " + j.id + " unit " + u.id() + ": the master's hints " + mirror + ", its engine " + engine);
                        }
                    }
                }
            }
            return out;
        });
    }

    List<PeerStatus> agentsNow() {
        long now = clock.millis();
        List<PeerStatus> out = new ArrayList<>();
        for (AgentPeer a : agents.values()) {
            if (a.registration != null) {
                out.add(new PeerStatus("agent", a.node, a.lost ? "lost" : "live", a.registeredIncarnation, now - a.lastSeen,
                        a.caps.size(), a.slots(), a.workers, 0, a.registration.endpoint(), "",
                        a.usage == null ? null : a.usage.node(), a.unhealthy == null ? "" : a.unhealthy));
            }
        }
        out.sort(java.util.Comparator.comparing(PeerStatus::id));
        return out;
    }

    List<PeerStatus> jobMastersNow() {
        long now = clock.millis();
        List<PeerStatus> out = new ArrayList<>();
        for (JobMasterPeer j : jobMasters.values()) {
            int running = running(j);
            // finished: every job it ran has ended (a batch done, a job cancelled), whether it still speaks or not
            boolean finished = j.finished || !j.jobs.isEmpty() && running == 0;
            String state = j.restarting != null ? "restarting" : finished ? "finished" : j.lost ? "lost" : "live";
            out.add(new PeerStatus("job-master", j.id, state, j.requestIncarnation, now - j.lastSeen,
                    j.placements.size(), j.slots(), -1, running, "-", restarting.restartNote(j)));
        }
        out.sort(java.util.Comparator.comparing(PeerStatus::id));
        return out;
    }

    long[] deliveryLatencyNow(Latencies l) {
        return new long[] {l.count(), l.quantile(0.5), l.quantile(0.99)};
    }
}

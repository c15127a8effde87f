package granary.master;

import granary.api.event.GrantReleased;
import granary.api.event.NodeBlacklisted;
import granary.api.event.NodeRemoved;
import granary.api.event.UnitDesireChanged;
import granary.api.model.InvalidRequestException;
import granary.api.model.UnitId;
import granary.api.model.UnitKind;
import granary.api.spi.JobView;
import granary.api.spi.NodeView;
import granary.api.spi.UnitView;
import granary.protocol.Hint;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Peers silent longer than their timeout are declared lost (docs/protocol.md, "Timeouts"): a lost
 * node's offline grants run elsewhere, a lost job master is started again or its offline jobs
 * dropped; plan passes are renewed and stalled restarts retried.
 */
final class Timeouts extends MasterPart {

    private final Mirrors mirrors;
    private final Restarting restarting;
    private final RequestHandler requests;

    Timeouts(MasterBook book, Mirrors mirrors, Restarting restarting, RequestHandler requests) {
        super(book);
        this.mirrors = mirrors;
        this.restarting = restarting;
        this.requests = requests;
    }


    /** Job masters whose plan passes come due get a hint with new ones. */
    private void renewPasses(long now) {
        for (JobMasterPeer j : jobMasters.values()) {
            if (!j.lost && j.renewPasses(now)) {
                deliver(j);
            }
        }
    }

    void expireNow() {
        if (book.closed) {
            return;
        }
        long now = clock.millis();
        List<AgentPeer> lostAgents = new ArrayList<>();
        List<JobMasterPeer> lostJobMasters = new ArrayList<>();
        if (book.window != null || book.rebuilding) {
            return; // nobody is lost before the master rebuilt
        }
        for (AgentPeer a : agents.values()) {
            if (a.registration != null && !a.lost && now - a.lastSeen > options.agentTimeout().toMillis()) {
                a.lost = true;
                lostAgents.add(a);
            }
        }
        for (JobMasterPeer j : jobMasters.values()) {
            if (!j.lost && now - j.lastSeen > options.jobMasterTimeout().toMillis()) {
                j.lost = true;
                lostJobMasters.add(j);
            }
        }
        // Told after the slots there were taken back (so that their hint does not find offline slots
        // on the lost node still held), but those holding slots there now are the ones to tell.
        Map<String, List<JobMasterPeer>> toTell = mirrors.holdersOn(lostAgents.stream().map(a -> a.node).toList());
        for (AgentPeer a : lostAgents) {
            try {
                try {
                    apply(new NodeRemoved(a.node, false));
                } catch (InvalidRequestException online) {
                    // It holds online work, which the master never takes back on its own: keep the
                    // online grants, send nothing new there until its agent returns, and run the
                    // offline ones again elsewhere (docs/recovery.md, "A silent node").
                    apply(new NodeBlacklisted(a.node, true));
                    revokeOffline(a.node);
                }
                Set<UnitId> units;
                units = new LinkedHashSet<>(a.caps.keySet());
                mirrors.sync(units, Set.of(a.node), true);
            } catch (RuntimeException ex) {
                // The engine refused both; the next round tries again.
                a.lost = false;
            }
        }
        mirrors.tellNodeState(toTell, Hint.NodeState.LOST);
        renewPasses(now);
        restarting.retryRestarts(now);
        for (JobMasterPeer j : lostJobMasters) {
            if (j.restarting == null && running(j) == 0) {
                finished(j);
                continue;
            }
            if (restarting.restartable(j)) {
                restarting.restart(j); // started again elsewhere (docs/recovery.md, "Restarting a lost job master"); its jobs, offline ones too, wait for it
                continue;
            }
            List<String> offline;
            offline = new ArrayList<>(j.jobs);
            Set<String> keep = query(v -> {
                Set<String> online = new HashSet<>();
                for (String job : offline) {
                    JobView jv = v.job(job);
                    if (jv != null && jv.units().stream().anyMatch(u -> u.kind() == UnitKind.ONLINE)) {
                        online.add(job);
                    }
                }
                return online;
            });
            for (String job : offline) {
                if (!keep.contains(job)) {
                    requests.cancel(j, job, new ArrayList<>());
                    book.recovered.forget(job);
                }
            }
        }
    }

    /**
     * A job master silent past its timeout whose jobs have all ended is done, not lost: it is not
     * started again and nothing of it is cancelled; its jobs are forgotten (late exits of their
     * workers still go to it) and its status says finished.
     */
    private void finished(JobMasterPeer j) {
        j.finished = true;
        for (String job : j.jobs) {
            if (j.id.equals(owners.remove(job))) {
                formerOwners.put(job, j.id);
            }
            book.recovered.forget(job);
        }
        j.jobs.clear();
    }

    /** Takes the offline grants off {@code node} and lets their units wait for slots elsewhere. */
    private void revokeOffline(String node) {
        List<int[]> counts = new ArrayList<>();
        List<UnitId> units = new ArrayList<>();
        query(v -> {
            NodeView n = v.cluster().node(node);
            if (n != null) {
                n.allocations().forEach((unit, slots) -> {
                    UnitView u = v.unit(unit);
                    if (u != null && u.kind() == UnitKind.OFFLINE) {
                        units.add(unit);
                        counts.add(new int[] {slots, u.desired()});
                    }
                });
            }
            return null;
        });
        for (int i = 0; i < units.size(); i++) {
            UnitId u = units.get(i);
            int slots = counts.get(i)[0];
            int desired = counts.get(i)[1];
            // A release lowers the desired count with the slots; raise it first so that they run again.
            collect(new ArrayList<>(), () -> apply(new UnitDesireChanged(u, desired + slots)));
            mirrors.lower(node, u, slots, true);
            collect(new ArrayList<>(), () -> apply(new GrantReleased(u, node, slots)));
        }
        mirrors.sync(new LinkedHashSet<>(units), Set.of(node), true);
    }
}

package granary.master;

import granary.api.event.GrantReleased;
import granary.api.event.JobCancelled;
import granary.api.event.JobsSubmitted;
import granary.api.event.UnitDesireChanged;
import granary.api.model.InvalidRequestException;
import granary.api.model.Problem;
import granary.api.model.UnitId;
import granary.api.model.UnitKind;
import granary.api.spi.NodeView;
import granary.api.spi.UnitView;
import granary.protocol.Envelope;
import granary.protocol.Heartbeat;
import granary.protocol.Request;
import granary.recovery.Rebuild;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Starting lost job masters again (docs/recovery.md, "Restarting a lost job master"): a restart is
 * a job of the master's own whose one slot's cap carries the launch; the lost incarnation is fenced
 * once its successor runs, and a start is called off if the lost one comes back first.
 */
final class Restarting extends MasterPart {

    private final Mirrors mirrors;

    Restarting(MasterBook book, Mirrors mirrors) {
        super(book);
        this.mirrors = mirrors;
    }

    /** How long the master waits, after the process it started for a job master died, for another incarnation to speak. */
    private static final long RESTART_GRACE_MILLIS = 3_000;

    /** A lost job master is started again if it said how and still runs jobs (one that ended them has nothing to fail over). */
    boolean restartable(JobMasterPeer j) {
        return j.restart != null && !j.jobs.isEmpty();
    }

    /**
     * A lost job master is started again (docs/recovery.md, "The 17 cases": 3): ends a run of an earlier restart that holds a slot still (its process hangs: the
     * withdrawn cap stops it) and asks the engine for a slot for the next one. The lost incarnation
     * is fenced only once the next one runs — its agent reports the worker started, or it sends its
     * full request ({@link #fence}) — and if it comes back before that it goes on and the start is
     * called off ({@link #back}). Fencing it at once would leave nobody running its jobs if this
     * master died before the launch reached an agent: a new master knows nothing of the restart.
     */
    void restart(JobMasterPeer j) {
        Restarts.Run old;
        String avoid;
        j.retryAt = Long.MAX_VALUE;
        old = restarts.current(j.id);
        avoid = j.restart == null ? null : j.restart.node();
        if (old != null) {
            avoid = old.node != null ? old.node : avoid;
            endRun(old);
        }
        beginRun(j, avoid);
    }

    /** Submits the restart job of {@code j}, kept off {@code avoid} when another node could hold its slot. */
    private void beginRun(JobMasterPeer j, String avoid) {
        Request.Restart spec;
        spec = j.restart;
        if (spec == null) {
            j.restarting = null; // a full request withdrew the spec meanwhile
            return;
        }
        boolean elsewhere = avoid != null && query(v -> {
            for (NodeView n : v.cluster().nodes()) {
                if (!n.name().equals(avoid) && spec.size().fitsIn(n.capacity())) {
                    return true;
                }
            }
            return false;
        });
        Restarts.Run run;
        run = restarts.begin(j.id, spec, elsewhere ? avoid : null);
        run.lostIncarnation = j.requestIncarnation;
        unitSpecs.put(run.unit, run.spec);
        j.restarting = "waiting for a node with room for " + spec.size() + (elsewhere ? " other than " + avoid : "");
        try {
            apply(new JobsSubmitted(List.of(run.job())));
            makeRoom(j, run, spec, elsewhere ? avoid : null);
        } catch (InvalidRequestException ex) {
            restarts.end(run);
            unitSpecs.remove(run.unit);
            j.restarting = "could not ask for a slot: " + ex.problems().get(0).message() + "; trying again";
            j.retryAt = clock.millis() + options.jobMasterTimeout().toMillis();
        }
    }

    /**
     * When no node has room for the restart's slot, the lost job master's own offline slots make it:
     * granted to it and not planned by anyone while it is away, they would otherwise hold the nodes
     * until its next incarnation — which needs one of them to start (a batch that filled the cluster
     * before its job master was lost). One slot is taken back where the job master holds the most
     * (not on {@code avoid}), and its unit still wants it: a worker there, if any, stops and runs
     * again later. Offline work only: online slots are never taken (docs/recovery.md).
     */
    private void makeRoom(JobMasterPeer j, Restarts.Run run, Request.Restart spec, String avoid) {
        Set<String> jobs;
        jobs = new HashSet<>(j.jobs);
        UnitId[] victim = new UnitId[1];
        String node = query(v -> {
            UnitView placed = v.unit(run.unit);
            if (placed == null || placed.granted() > 0) {
                return null; // placed already (or gone)
            }
            String best = null;
            int most = 0;
            for (NodeView n : v.cluster().nodes()) {
                if (spec.size().fitsIn(n.free()) && !n.name().equals(avoid) && !n.blacklisted()) {
                    return null; // room already
                }
            }
            for (NodeView n : v.cluster().nodes()) {
                if (n.name().equals(avoid) || n.blacklisted() || !spec.size().fitsIn(n.capacity())) {
                    continue;
                }
                for (Map.Entry<UnitId, Integer> a : n.allocations().entrySet()) {
                    UnitView u = v.unit(a.getKey());
                    if (u != null && jobs.contains(a.getKey().job()) && u.kind() == UnitKind.OFFLINE && a.getValue() > most
                            && spec.size().fitsIn(n.free().plus(u.slot()))) {
                        most = a.getValue();
                        best = n.name();
                        victim[0] = a.getKey();
                    }
                }
            }
            return best;
        });
        if (node == null) {
            return;
        }
        Integer desired = query(v -> v.unit(victim[0]) == null ? null : v.unit(victim[0]).desired());
        if (desired == null) {
            return;
        }
        // A release lowers the desired count with the slot: raise it first so that it is granted again later.
        collect(new ArrayList<>(), () -> apply(new UnitDesireChanged(victim[0], desired + 1)));
        mirrors.lower(node, victim[0], 1, true);
        collect(new ArrayList<>(), () -> apply(new GrantReleased(victim[0], node, 1)));
        mirrors.sync(Set.of(victim[0]), Set.of(node), true);
    }

    /** Cancels a run's job: its slot is freed and, if its process still runs, the withdrawn cap stops it. */
    void endRun(Restarts.Run run) {
        String node;
        restarts.end(run);
        node = run.node;
        if (node != null) {
            mirrors.lower(node, run.unit, Integer.MAX_VALUE, true);
        }
        collect(new ArrayList<>(), () -> apply(new JobCancelled(run.unit.job())));
        unitSpecs.remove(run.unit);
        if (node != null) {
            mirrors.sync(Set.of(run.unit), Set.of(node), true);
        }
    }

    /** The engine granted (or took back) a restart's slot: the node it launches on. In a turn of the loop. */
    void placed(UnitId unit, String node, int delta) {
        Restarts.Run run = restarts.of(unit.job());
        if (run == null) {
            return;
        }
        run.node = delta > 0 ? node : null;
        run.launchedAt = clock.millis();
        JobMasterPeer j = jobMasters.get(run.jobMaster);

        if (j != null && j.restarting != null) {
            j.restarting = delta > 0 ? "launched on " + node + ", waiting for its full request" : "waiting for a node";
        }
    }

    /**
     * An agent started a restarted job master's process: the incarnation it replaces is fenced, and
     * an earlier start that died is ended (this one's cap holds the launch now).
     */
    void restartsStarted(List<Heartbeat.Worker> started) {
        List<JobMasterPeer> running = new ArrayList<>();
        for (Heartbeat.Worker w : started) {
            Restarts.Run run = restarts.of(w.unit().job());
            if (run != null && !restarts.isSpent(run)) {
                fence(run);
                addIfNotNull(running, jobMasters.get(run.jobMaster));
            }
        }
        running.forEach(this::endSpent);
    }

    /** The next incarnation of {@code run}'s job master runs: the lost one's messages are refused from now on. In a turn of the loop. */
    private void fence(Restarts.Run run) {
        JobMasterPeer j = jobMasters.get(run.jobMaster);
        if (j != null && run.lostIncarnation >= 0) {
            j.fencedThrough = Math.max(j.fencedThrough, run.lostIncarnation);
        }
    }

    /**
     * A restarted job master's process exited (its slot was released like any worker's): its run
     * ends. Exit 0 is a job master that finished on purpose: it is not started again. Otherwise, if
     * it never reported back, it is tried again after another timeout.
     */
    void restartsExited(List<Heartbeat.Exit> exited) {
        for (Heartbeat.Exit x : exited) {
            Restarts.Run run;
            JobMasterPeer j;
            run = restarts.of(x.unit().job());
            j = run == null ? null : jobMasters.get(run.jobMaster);
            if (run == null || x.stopped()) {
                continue;
            }
            endRun(run);
            if (j != null && x.exitCode() == 0) {
                j.restart = null;
                j.restarting = null;
            } else if (j != null && j.restarting != null) {
                j.restarting = "its start on " + run.node + " exited with " + x.exitCode() + "; trying again";
                j.retryAt = clock.millis() + options.jobMasterTimeout().toMillis();
            }
        }
    }

    /**
     * True if exit {@code x} is that of a process the master started for a lost job master that ran
     * and died, while the job master still needs starting (it said how, runs jobs, and no start is
     * under way): unless another incarnation speaks within a short grace, it is started again now,
     * not a timeout later. Its run is retired, not ended: its slot is not released, and the cap there
     * keeps the launch on its agent until a later start's process runs or the job master speaks.
     * Released at once, only this master's memory held the spec until the next launch reached an
     * agent, and a failover in between left the jobs to nobody (kit seed 8097; docs/recovery.md,
     * "Restarting a lost job master"). A spent run it displaces goes to {@code displaced}, to end.
     * In a turn of the loop.
     */
    boolean keepsLaunch(Heartbeat.Exit x, List<Restarts.Run> displaced) {
        Restarts.Run run = restarts.of(x.unit().job());
        JobMasterPeer j = run == null ? null : jobMasters.get(run.jobMaster);
        if (j == null || x.stopped() || x.exitCode() == 0 || restarts.isSpent(run) || j.restarting != null
                || j.restart == null || j.jobs.isEmpty()) {
            return false;
        }
        addIfNotNull(displaced, restarts.retire(run));
        long now = clock.millis();
        long grace = Math.min(options.jobMasterTimeout().toMillis(), RESTART_GRACE_MILLIS);
        j.restarting = "its process on " + run.node + " exited with " + x.exitCode()
                + "; started again unless another incarnation speaks within " + grace + " ms";
        j.retryAt = now + grace;
        j.diedAt = now;
        return true;
    }

    /**
     * Ends the spent run of {@code j}, if any: a later start's process runs, or the job master spoke
     * for itself, so the launch its cap kept is needed no more (its process is gone already).
     */
    private void endSpent(JobMasterPeer j) {
        Restarts.Run spent;
        spent = restarts.takeSpent(j.id);
        if (spent != null) {
            endRun(spent);
        }
    }

    /**
     * Starts again the restarts whose last attempt failed, once their retry is due, and those launched
     * a timeout ago whose job master never reported back (the start hangs: its slot is taken back,
     * which stops it, and the next start avoids that node).
     */
    void retryRestarts(long now) {
        List<JobMasterPeer> due = new ArrayList<>();
        List<JobMasterPeer> hung = new ArrayList<>();
        List<JobMasterPeer> settled = new ArrayList<>();
        for (JobMasterPeer j : jobMasters.values()) {
            Restarts.Run run = restarts.current(j.id);
            if (j.restarting == null || j.restart == null) {
                continue;
            }
            if (run == null && j.retryAt <= now) {
                j.retryAt = Long.MAX_VALUE;
                if (j.diedAt > 0 && (j.lastSeen > j.diedAt || j.jobs.isEmpty())) {
                    j.restarting = null; // another incarnation speaks for it, or its jobs ended: nothing to start
                    settled.add(j);
                } else {
                    due.add(j);
                }
                j.diedAt = 0;
            } else if (run != null && run.node != null && now - run.launchedAt > options.jobMasterTimeout().toMillis()) {
                hung.add(j);
            }
        }
        for (JobMasterPeer j : due) {
            Request.Restart spec;
            spec = j.restart;
            beginRun(j, spec == null ? null : spec.node());
        }
        hung.forEach(this::restart);
        settled.forEach(this::endSpent);
    }

    /**
     * A full request was applied: the job master says again how to restart it (or no longer does).
     * While a restart runs: the lost incarnation itself, back before its successor ran (it is not
     * fenced yet), goes on and the start is called off, placed or not (a withdrawn cap stops a launch);
     * a newer incarnation is the start itself, if the start was placed (the lost one is fenced now),
     * or one its operator started, if the start still waits for a slot (the start is not needed). A run that holds its slot is left alone: its
     * process is, most likely, this incarnation; its slot is freed when it exits.
     */
    void back(JobMasterPeer p, Request r, boolean reborn) {
        Restarts.Run waiting;
        p.restart = r.restart();
        p.restarting = null;
        p.retryAt = Long.MAX_VALUE;
        Restarts.Run run = restarts.current(p.id);
        if (run != null && run.lostIncarnation < 0 && run.node != null && r.restart() != null
                && run.node.equals(r.restart().node()) && reborn) {
            // A run this master found in an agent's caps after it restarted: the incarnation that
            // reports from its node is its process, and every one before it is the lost one.
            run.lostIncarnation = p.requestIncarnation - 1;
        }
        boolean lostOneBack = run != null && p.requestIncarnation == run.lostIncarnation;
        if (run != null && !lostOneBack && run.node != null) {
            fence(run);
        }
        waiting = run != null && (lostOneBack || run.node == null) ? run : null;
        if (waiting != null && waiting.node != null) {
            // its launch may have started a process already: that one is told to exit when it speaks
            p.calledOffNode = waiting.node;
            p.calledOffUntil = clock.millis() + options.jobMasterTimeout().toMillis();
        }
        if (waiting != null) {
            endRun(waiting);
        }
        endSpent(p); // it says how to start it again itself now
    }

    /**
     * True if {@code e} comes from the process of a start the master called off (the lost
     * incarnation came back first): a newer incarnation whose first full request says it runs on the
     * node that start was placed on, within a timeout of the call-off. In a turn of the loop.
     */
    boolean calledOff(JobMasterPeer p, Envelope e) {
        if (p.calledOffNode == null || clock.millis() > p.calledOffUntil) {
            p.calledOffNode = null;
            return false;
        }
        return e.incarnation() > p.requestIncarnation && e.message() instanceof Request r && r.full() && r.restart() != null
                && p.calledOffNode.equals(r.restart().node());
    }

    /**
     * The restarts the agents' caps hold (a cap of a restart slot carries its launch): taken on as
     * runs, so that a restart survives a failover of this master (docs/recovery.md, "Restarting a
     * lost job master"). In a turn of the loop.
     */
    void recoverRestarts(Rebuild b, long now) {
        Set<Placed> adopted = null; // made only if some cap is a restart's: most rebuilds have none
        for (AgentPeer a : agents.values()) {
            if (a.registration == null) {
                continue;
            }
            for (granary.protocol.Cap.Grant g : a.registration.caps()) {
                if (g.launch() == null || !Restarts.OWNER.equals(g.jobMaster())) {
                    continue;
                }
                if (adopted == null) {
                    adopted = new HashSet<>();
                    for (var x : b.adoptions()) {
                        adopted.add(new Placed(x.unit(), x.node()));
                    }
                }
                if (adopted.contains(new Placed(g.unit(), a.node))) {
                    recoverRestart(a.node, g, now);
                }
            }
        }
    }

    /** Takes on restart job {@code job} from the caps a late agent brought. In a turn of the loop. */
    boolean restartOf(String job, String node, List<granary.protocol.Cap.Grant> caps, long now) {
        for (granary.protocol.Cap.Grant g : caps) {
            if (g.unit().job().equals(job) && g.slots() > 0 && recoverRestart(node, g, now)) {
                return true;
            }
        }
        return false;
    }

    /** A unit on a node. */
    private record Placed(granary.api.model.UnitId unit, String node) {
    }

    /**
     * Takes on the restart whose slot {@code g} on {@code node} holds, if it is one (its cap names
     * the master as owner and carries the launch). In a turn of the loop. Returns whether it was one.
     */
    private boolean recoverRestart(String node, granary.protocol.Cap.Grant g, long now) {
        if (g.launch() == null || !Restarts.OWNER.equals(g.jobMaster())) {
            return false;
        }
        Restarts.Run run = restarts.recover(g.unit(), g.launch(), g.size(), node, now);
        if (run == null) {
            return false;
        }
        JobMasterPeer j = jobMasters.computeIfAbsent(run.jobMaster, JobMasterPeer::new);
        if (restarts.isSpent(run)) {
            return true; // a start that died, kept for its launch while a later one is under way: that one fences
        }
        if (j.restart == null) {
            // the spec died with the master before: the cap's launch and slot say it again, so
            // that the process it started is started again if it dies before it reports
            j.restart = new Request.Restart(g.launch(), g.size(), node);
        }
        if (node.equals(j.restart.node()) && j.requestIncarnation > 0) {
            // its process reported already: the incarnations before it are the lost one
            run.lostIncarnation = j.requestIncarnation - 1;
            fence(run);
        }
        return true;
    }

    /** The refusal of a fenced incarnation: it was declared lost and replaced; the process should exit. */
    Problem fenced(JobMasterPeer j, long incarnation) {
        return Problem.of("job master " + j.id + " incarnation " + incarnation, "$.incarnation",
                "incarnation " + incarnation + " is fenced: job master " + j.id + " was declared lost after "
                        + options.jobMasterTimeout().toSeconds() + " s of silence and the master started it again; "
                        + "this process must exit");
    }

    String restartNote(JobMasterPeer j) {
        if (j.restarting != null) {
            return j.restarting;
        }
        Restarts.Run run = restarts.current(j.id);
        return run == null || run.node == null ? "" : "runs on " + run.node + " (started by the master)";
    }
}

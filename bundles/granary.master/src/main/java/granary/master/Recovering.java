package granary.master;

import granary.api.event.GrantAdopted;
import granary.api.event.JobsAdopted;
import granary.api.event.JobsSubmitted;
import granary.api.event.NodeAdded;
import granary.api.event.NodeBlacklisted;
import granary.api.event.UnitDesireChanged;
import granary.api.model.InvalidRequestException;
import granary.api.model.JobSpec;
import granary.api.model.NodeSpec;
import granary.api.model.UnitId;
import granary.api.model.UnitKind;
import granary.api.model.UnitSpec;
import granary.api.spi.EngineView;
import granary.api.spi.JobView;
import granary.api.spi.NodeView;
import granary.api.spi.UnitView;
import granary.protocol.Request;
import granary.recovery.Adoption;
import granary.recovery.Rebuild;
import granary.recovery.Recovered;
import granary.recovery.RecoveryWindow;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executor;

/**
 * The master after a restart (docs/recovery.md): the window's reports rebuilt into grants, what
 * was acknowledged meanwhile applied after, and what is kept for peers that return late.
 */
final class Recovering extends MasterPart {

    private final Mirrors mirrors;
    private final Restarting restarting;
    private final Executor timer;

    Recovering(MasterBook book, Mirrors mirrors, Restarting restarting, Executor timer) {
        super(book);
        this.mirrors = mirrors;
        this.restarting = restarting;
        this.timer = timer;
    }


    /**
     * What it takes to make the engine's jobs say what {@code listed} says: desired counts (never
     * below what a unit holds, less what is kept for agents that have not returned), units added and
     * units dropped. On the engine thread.
     */
    List<Recovered.Conversion> reconcile(List<JobSpec> listed, EngineView v) {
        List<Recovered.Conversion> out = new ArrayList<>();
        for (JobSpec j : listed) {
            JobView jv = v.job(j.id());
            if (jv == null) {
                continue;
            }
            Map<UnitId, Integer> desires = new HashMap<>();
            List<UnitSpec> added = new ArrayList<>();
            Set<String> names = new HashSet<>();
            for (UnitSpec u : j.units()) {
                names.add(u.name());
                UnitId id = new UnitId(j.id(), u.name());
                UnitView uv = v.unit(id);
                if (uv == null) {
                    added.add(u);
                    continue;
                }
                int kept;
                kept = book.recovered.reserved(id);
                int want = Math.max(uv.granted(), Math.max(0, u.desired() - kept));
                if (want != uv.desired()) {
                    desires.put(id, want);
                }
            }
            List<UnitId> cancelled = new ArrayList<>();
            for (UnitView uv : jv.units()) {
                if (!names.contains(uv.id().unit())) {
                    cancelled.add(uv.id());
                }
            }
            if (!desires.isEmpty() || !added.isEmpty() || !cancelled.isEmpty()) {
                out.add(new Recovered.Conversion(j.id(), desires, added, cancelled));
            }
        }
        return out;
    }

    /**
     * After the window: online slots a job master holds on nodes whose agent has not come back are
     * kept for the agent, not granted again elsewhere (docs/recovery.md, "The 17 cases": 17, the job master back first). In a turn of the loop.
     */
    void keepAbsent(JobMasterPeer p, Request r, Set<String> absent) {
        if (absent.isEmpty()) {
            return;
        }
        Set<String> kept = new HashSet<>();
        book.recovered.awaiting().forEach(a -> kept.add(a.unit() + "@" + a.node()));
        Map<UnitId, UnitSpec> specs = new HashMap<>();
        r.jobs().forEach(j -> j.units().forEach(u -> specs.put(new UnitId(j.id(), u.name()), u)));
        for (Request.Holding x : r.holdings()) {
            UnitSpec u = specs.get(x.unit());
            if (absent.contains(x.node()) && x.slots() > 0 && u != null && u.kind() == UnitKind.ONLINE
                    && !kept.contains(x.unit() + "@" + x.node())) {
                book.recovered.keep(new Adoption(x.unit(), x.node(), x.slots(), true));
            }
        }
    }

    /** {@code j} with each unit's desired count lowered by the slots kept for agents that have not returned. In a turn of the loop. */
    JobSpec withoutKept(JobSpec j) {
        List<UnitSpec> us = new ArrayList<>();
        for (UnitSpec u : j.units()) {
            int kept = book.recovered.reserved(new UnitId(j.id(), u.name()));
            us.add(kept == 0 ? u : u.withDesired(Math.max(0, u.desired() - kept)));
        }
        return new JobSpec(j.id(), j.group(), j.user(), j.productionLevel(), j.gang(), us);
    }

    /**
     * The specs, as the engine holds them now, of those of {@code jobs} the master keeps online slots
     * of for agents that have not returned: taken before releases, exits or desires that may end them
     * in the engine ({@link #deferEnded}).
     */
    Map<String, JobSpec> keptJobs(Collection<String> jobs) {
        Set<String> keeping = new HashSet<>();
        jobs.stream().filter(book.recovered::keepsAny).forEach(keeping::add);
        if (keeping.isEmpty()) {
            return Map.of();
        }
        return query(v -> {
            Map<String, JobSpec> out = new HashMap<>();
            for (String job : keeping) {
                JobView j = v.job(job);
                if (j != null) {
                    out.put(job, j.spec());
                }
            }
            return out;
        });
    }

    /**
     * The engine ends a job that wants and holds nothing. One of {@code before} whose last wanted slot
     * went (a release, an exit, a lower desire) while the master keeps online slots of it for agents
     * that have not returned is not over: it is deferred, as the rebuild defers a job all of whose
     * slots are kept (docs/recovery.md, "Peers that return late"), so that the agent's return takes
     * its slots back on and its job master's next desire submits it again. Ended and forgotten, the
     * returning agent's services were stopped as work of a job the master did not run, and every
     * desire of its job master was refused (kit seed 5254).
     */
    void deferEnded(Map<String, JobSpec> before) {
        if (before.isEmpty()) {
            return;
        }
        Set<String> ended = query(v -> {
            Set<String> out = new HashSet<>();
            before.keySet().stream().filter(job -> v.job(job) == null).forEach(out::add);
            return out;
        });
        for (String job : ended) {
            if (owners.containsKey(job) && book.recovered.keepsAny(job)) {
                List<UnitSpec> us = new ArrayList<>();
                // what it wants now is what is kept (the engine held nothing more of it)
                before.get(job).units().forEach(u -> us.add(u.withDesired(book.recovered.reserved(new UnitId(job, u.name())))));
                JobSpec j = before.get(job);
                book.recovered.defer(new JobSpec(job, j.group(), j.user(), j.productionLevel(), j.gang(), us));
            }
        }
    }

    /**
     * A desire of a unit whose job is deferred ({@link #deferEnded}): the job's spec takes it, and the
     * job is submitted again once it wants more than the slots kept for absent agents. True if the
     * job was deferred (the engine, which does not hold it, is not asked).
     */
    boolean desiredWhileDeferred(Request.Desire d) {
        JobSpec rest;
        JobSpec spec = book.recovered.deferredJob(d.unit().job());
        if (spec == null) {
            return false;
        }
        List<UnitSpec> us = new ArrayList<>();
        spec.units().forEach(u -> us.add(!u.name().equals(d.unit().unit()) ? u
                : d.avoid() == null ? u.withDesired(d.desired()) : u.withDesired(d.desired()).withBlacklist(d.avoid())));
        spec = new JobSpec(spec.id(), spec.group(), spec.user(), spec.productionLevel(), spec.gang(), us);
        book.recovered.defer(spec);
        rest = withoutKept(spec);
        if (rest.units().stream().allMatch(u -> u.desired() == 0)) {
            return true;
        }
        try {
            apply(new JobsSubmitted(List.of(rest)));
            book.recovered.undefer(rest.id());
        } catch (InvalidRequestException ex) {
            // no node can hold it yet: submitted when one joins (submitDeferred)
        }
        return true;
    }

    /** Runs {@code r} on the master's timer thread, off the loop (answers to parked polls). */
    void wakeLater(Runnable r) {
        if (!book.closed) {
            timer.execute(r);
        }
    }

    /** Closes the recovery window if it is due, rebuilds, then applies what was deferred. */
    void recoverIfDue() {
        RecoveryWindow w;
        if (book.window == null || book.rebuilding || book.closed || !book.window.due(clock.millis())) {
            return;
        }
        w = book.window;
        book.window = null;
        book.rebuilding = true;
        long closedAt = clock.millis();
        long started = System.nanoTime(); // measured for monitors only: no decision reads it
        Rebuild b = null;
        try {
            b = w.close();
            rebuild(b);
        } finally {
            while (true) {
                List<Runnable> batch;
                if (book.deferred.isEmpty()) {
                    book.lastRebuild = new MasterMonitor.Rebuilt(closedAt, System.nanoTime() - started,
                            b == null ? 0 : b.adoptions().size(), b == null ? 0 : b.dropped().stream().mapToInt(d -> d.slots()).sum());
                    book.rebuilding = false;
                    break;
                }
                batch = new ArrayList<>(book.deferred);
                book.deferred.clear();
                for (Runnable r : batch) {
                    try {
                        r.run();
                    } catch (RuntimeException ex) {
                        // a deferred message the engine refused now: its peer resends its state on the next full sync
                    }
                }
            }
        }
    }

    /**
     * Applies a rebuild: the nodes (blacklisted, so that no cycle grants anything before the
     * adoptions), the jobs, the adoptions; then the mirrors of every peer from the engine and a full
     * cap / hint to each; then the nodes are opened for new grants.
     */
    private void rebuild(Rebuild b) {
        long now = clock.millis();
        List<String> nodes = new ArrayList<>();
        // one engine cycle for all nodes (they come blacklisted: nothing is granted on them yet)
        book.engine.batch(() -> {
            for (NodeSpec n : b.nodes()) {
                try {
                    apply(new NodeAdded(n, true));
                    nodes.add(n.name());
                } catch (InvalidRequestException ex) {
                    // a node the engine refuses (duplicate, bad capacity): its agent is told when it sends again
                }
            }
        });
        owners.putAll(b.owners());
        // caps dropped by the rebuild are withdrawn: their workers' exits go to the job master they named
        b.dropped().forEach(d -> {
            if (!owners.containsKey(d.unit().job()) && d.jobMaster() != null) {
                formerOwners.put(d.unit().job(), d.jobMaster());
            }
        });
        restarting.recoverRestarts(b, now);
        for (JobSpec j : b.jobs()) {
            j.units().forEach(u -> unitSpecs.putIfAbsent(new UnitId(j.id(), u.name()), u));
            if (restarts.of(j.id()) != null) {
                continue; // a restart of a lost job master: the master's own, no placeholder holds it
            }
            if (b.mocks().contains(j.id())) {
                // A job master that has not returned: a placeholder holds its mock jobs until it does.
                JobMasterPeer jm = jobMasters.computeIfAbsent(b.owners().get(j.id()), JobMasterPeer::new);
                jm.jobs.add(j.id());
                jm.lastSeen = now;
            }
        }
        List<JobSpec> noRoomYet = new ArrayList<>();
        try {
            apply(new JobsSubmitted(b.jobs()));
        } catch (InvalidRequestException all) {
            for (JobSpec j : b.jobs()) {
                try {
                    apply(new JobsSubmitted(List.of(j)));
                } catch (InvalidRequestException one) {
                    if (tooFewNodes(one)) {
                        // No node that could hold it has reported yet (the window closed without them):
                        // kept out of the engine until one registers (docs/recovery.md, "Rebuilding").
                        noRoomYet.add(j);
                        continue;
                    }
                    String owner = owners.remove(j.id());
                    JobMasterPeer jm = owner == null ? null : jobMasters.get(owner);
                    if (jm != null) {
                        jm.jobs.remove(j.id());
                    }
                }
            }
        }
        // one engine cycle for all adoptions, not one each (200,000 at 20,000 agents; the nodes are
        // blacklisted, so no cycle could grant in between anyway); the mirrors are filled whole from
        // the engine below, so the adoptions' grants do not move them one by one
        book.adopting = true;
        try {
            book.engine.batch(() -> {
                for (Adoption a : b.adoptions()) {
                    try {
                        apply(new GrantAdopted(a.unit(), a.node(), a.slots()));
                    } catch (InvalidRequestException ex) {
                        // not taken on: the full cap below withdraws it, the full hint says where the unit holds slots
                    }
                }
            });
        } finally {
            book.adopting = false;
        }
        query(v -> {
            book.recovered = new Recovered(b);
            noRoomYet.forEach(book.recovered::defer);
            for (AgentPeer a : agents.values()) {
                if (a.registration != null) {
                    NodeView n = v.cluster().node(a.node);
                    a.caps.clear();
                    if (n != null) {
                        a.caps.putAll(n.allocations());
                    }
                    a.sendFull(now);
                    deliver(a);
                }
            }
            for (JobMasterPeer j : jobMasters.values()) {
                mirrors.fillPlacements(j, v);
                j.sendFull(now);
            }
            // Every pair a job master reported that the rebuild does not confirm is gone: say so.
            b.holdings().forEach((id, held) -> {
                JobMasterPeer j = jobMasters.get(id);
                if (j != null) {
                    for (Request.Holding x : held) {
                        if (j.placements.getOrDefault(x.unit(), Map.of()).getOrDefault(x.node(), 0) == 0) {
                            j.set(x.unit(), x.node(), 0, now);
                        }
                    }
                }
            });
            jobMasters.values().forEach(j -> deliver(j));
            return null;
        });
        // the nodes open together: one cycle grants what waits, over all of them
        book.engine.batch(() -> {
            for (String n : nodes) {
                collect(new ArrayList<>(), () -> apply(new NodeBlacklisted(n, false)));
            }
        });
    }

    /** True if every problem of {@code ex} is a slot no node of the cluster can hold (too few nodes have reported). */
    static boolean tooFewNodes(InvalidRequestException ex) {
        return !ex.problems().isEmpty() && ex.problems().stream().allMatch(p -> p.message() != null
                && p.message().contains("is larger than every node"));
    }

    /**
     * Deferred jobs that want slots beyond those kept for absent agents are submitted once a node
     * joined: those a rebuild kept out because no node that could hold them had reported yet.
     */
    void submitDeferred() {
        List<JobSpec> ready = new ArrayList<>();
        for (JobSpec j : book.recovered.deferredJobs()) {
            JobSpec rest = withoutKept(j);
            if (rest.units().stream().anyMatch(u -> u.desired() > 0)) {
                ready.add(rest);
            }
        }
        for (JobSpec j : ready) {
            try {
                apply(new JobsSubmitted(List.of(j)));
                book.recovered.undefer(j.id());
            } catch (InvalidRequestException ex) {
                // still no node that can hold it: tried again when the next one joins
            }
        }
    }

    /** Whether the recovery keeps slots for {@code node}: its job masters held them when its agent had not come back. */
    boolean keptFor(String node) {
        return book.recovered.awaiting().stream().anyMatch(a -> a.node().equals(node));
    }

    /**
     * An agent the engine does not know registers with caps, or without any where slots were kept
     * for it (a torn checkpoint: they are forgotten, and asked for again): it did not report within the window
     * (or the master had none). Its online caps are taken on, offline ones withdrawn (docs/recovery.md,
     * "Peers that return late").
     */
    void returned(NodeSpec node, List<granary.protocol.Cap.Grant> caps) {
        Set<String> knownJobs = new HashSet<>();
        Map<UnitId, UnitKind> kinds = query(v -> {
            Map<UnitId, UnitKind> out = new HashMap<>();
            for (granary.protocol.Cap.Grant g : caps) {
                UnitView u = v.unit(g.unit());
                if (u != null) {
                    out.put(g.unit(), u.kind());
                }
                if (v.job(g.unit().job()) != null) {
                    knownJobs.add(g.unit().job());
                }
            }
            return out;
        });
        Recovered.AgentReturn back;
        List<Adoption> keptHere = book.recovered.awaiting().stream().filter(a -> a.node().equals(node.name())).toList();
        back = book.recovered.agentReturned(node.name(), caps, kinds::get, jm -> {
            JobMasterPeer j = jobMasters.get(jm);
            return j != null && j.requestIncarnation >= 0;
        }, knownJobs::contains);
        mirrors.unkept(keptHere);
        for (JobSpec m : back.mocks()) {
            // The agent back first (docs/recovery.md, "The 17 cases": 17): its online caps of a job master that has not come back hold as a mock.
            // (A deferred job coming back has its owner already.)
            String owner = back.mockOwners().get(m.id());
            if (owner == null) {
                continue;
            }
            if (Restarts.OWNER.equals(owner) && restarting.restartOf(m.id(), node.name(), caps, clock.millis())) {
                // a restarted job master's process, on an agent that came back late: still the master's restart
                m.units().forEach(u -> unitSpecs.put(new UnitId(m.id(), u.name()), u));
                continue;
            }
            owners.put(m.id(), owner);
            m.units().forEach(u -> unitSpecs.put(new UnitId(m.id(), u.name()), u));
            JobMasterPeer jm = jobMasters.computeIfAbsent(owner, JobMasterPeer::new);
            jm.jobs.add(m.id());
            jm.lastSeen = clock.millis();
        }
        apply(new NodeAdded(node, true));
        try {
            if (!back.mocks().isEmpty()) {
                // Submitted and adopted in one step: no cycle can place these slots elsewhere in between.
                List<GrantAdopted> grants = new ArrayList<>();
                back.mockGrants().forEach(a -> grants.add(new GrantAdopted(a.unit(), a.node(), a.slots())));
                collect(new ArrayList<>(), () -> apply(new JobsAdopted(back.mocks(), grants)));
            }
            for (Adoption a : back.adopt()) {
                // Raising the desired count in the same step: nothing is granted elsewhere in between.
                collect(new ArrayList<>(), () -> apply(new GrantAdopted(a.unit(), a.node(), a.slots(), true)));
            }
            for (Map.Entry<UnitId, Integer> raise : back.raise().entrySet()) {
                Integer desired = query(v -> {
                    UnitView u = v.unit(raise.getKey());
                    return u == null ? null : u.desired();
                });
                if (desired != null) {
                    collect(new ArrayList<>(), () -> apply(new UnitDesireChanged(raise.getKey(), desired + raise.getValue())));
                }
            }
        } finally {
            apply(new NodeBlacklisted(node.name(), false));
        }
        Set<UnitId> units = new LinkedHashSet<>();
        back.adopt().forEach(a -> units.add(a.unit()));
        back.forgotten().forEach(d -> units.add(d.unit()));
        back.mockGrants().forEach(a -> units.add(a.unit()));
        mirrors.sync(units, Set.of(node.name()), false);
    }
}

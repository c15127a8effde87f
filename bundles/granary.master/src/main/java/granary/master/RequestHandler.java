package granary.master;

import granary.api.event.GrantReleased;
import granary.api.event.JobCancelled;
import granary.api.event.JobsSubmitted;
import granary.api.event.UnitCancelled;
import granary.api.event.UnitBlacklistChanged;
import granary.api.event.UnitDesireChanged;
import granary.api.event.UnitRequested;
import granary.api.model.InvalidRequestException;
import granary.api.model.JobSpec;
import granary.api.model.Problem;
import granary.api.model.UnitId;
import granary.api.model.UnitSpec;
import granary.protocol.Ack;
import granary.protocol.Envelope;
import granary.protocol.Request;
import granary.protocol.link.Reply;
import granary.recovery.JobMasterReport;
import granary.recovery.Recovered;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * A job master's {@code request} (docs/protocol.md): it submits, changes and cancels its jobs and
 * releases slots, applied whole in one turn; a full request is the whole truth of what it runs.
 */
final class RequestHandler extends MasterPart {

    private final Mirrors mirrors;
    private final Recovering recovering;
    private final Restarting restarting;

    RequestHandler(MasterBook book, Mirrors mirrors, Recovering recovering, Restarting restarting) {
        super(book);
        this.mirrors = mirrors;
        this.recovering = recovering;
        this.restarting = restarting;
    }


    Ack request(JobMasterPeer p, Envelope e, Request r) {
        String who = e.sender().toString();
        if (p.requestIncarnation != e.incarnation() && !r.full()) {
            return refuse(e, Problem.of(who, "$.message.full", "the first request of incarnation " + e.incarnation() + " must be full"));
        }
        if (book.window != null) {
            return requestInWindow(p, e, r);
        }
        if (p.lost && !r.full()) {
            return refuse(e, Problem.of(who, "$.message.full", "job master " + p.id + " was declared lost after "
                    + options.jobMasterTimeout().toSeconds() + " s of silence: send a full request"));
        }
        if (r.full()) {
            p.lost = false;
            p.finished = false;
        }
        List<Problem> problems = new ArrayList<>();
        Set<String> listed = new HashSet<>();
        // Jobs in the engine not run by a job master (a request without jobs asks nothing of the engine).
        Set<String> engineJobs = r.jobs().isEmpty() ? Set.of() : query(v -> {
            Set<String> ids = new HashSet<>();
            r.jobs().forEach(j -> {
                if (v.job(j.id()) != null) {
                    ids.add(j.id());
                }
            });
            return ids;
        });
        // Holdings on nodes the engine does not know: their agents have not come back (yet).
        Set<String> absent = r.holdings().isEmpty() ? Set.of() : query(v -> {
            Set<String> out = new HashSet<>();
            r.holdings().forEach(x -> {
                if (v.cluster().node(x.node()) == null) {
                    out.add(x.node());
                }
            });
            return out;
        });
        for (int i = 0; i < r.jobs().size(); i++) {
            String job = r.jobs().get(i).id();
            listed.add(job);
            String owner = owners.get(job);
            if (Restarts.isRestartJob(job)) {
                problems.add(Problem.of(who, "$.message.jobs[" + i + "].id", "job ids starting with " + Restarts.PREFIX
                        + " are the master's restarts of lost job masters, got " + job));
            } else if (owner != null && !owner.equals(p.id)) {
                problems.add(Problem.of(who, "$.message.jobs[" + i + "].id", "job " + job + " belongs to job master " + owner));
            } else if (owner == null && engineJobs.contains(job)) {
                problems.add(Problem.of(who, "$.message.jobs[" + i + "].id", "job " + job + " is in the cluster and not run by a job master"));
            }
        }
        for (int i = 0; i < r.desires().size(); i++) {
            own(p, r.desires().get(i).unit().job(), "$.message.desires[" + i + "].unit", who, problems, listed);
        }
        for (int i = 0; i < r.cancels().size(); i++) {
            own(p, r.cancels().get(i), "$.message.cancels[" + i + "]", who, problems, listed);
        }
        for (int i = 0; i < r.releases().size(); i++) {
            own(p, r.releases().get(i).unit().job(), "$.message.releases[" + i + "].unit", who, problems, listed);
        }
        if (!problems.isEmpty()) {
            return refuse(e, problems.toArray(new Problem[0]));
        }
        List<String> dropped = new ArrayList<>();
        List<JobSpec> fresh = new ArrayList<>();
        List<Recovered.Conversion> conversions = new ArrayList<>();
        List<JobSpec> known = new ArrayList<>();
        if (r.full()) {
            recovering.keepAbsent(p, r, absent);
        }
        if (r.full()) {
            for (String job : p.jobs) {
                if (!listed.contains(job)) {
                    dropped.add(job);
                    book.recovered.forget(job);
                }
            }
        }
        for (JobSpec j : r.jobs()) {
            if (r.full() && !engineJobs.contains(j.id()) && j.units().stream().allMatch(u -> u.desired() == 0)) {
                // A job that ended while the master was away (or restarting): nothing to run, nothing to refuse.
                owners.remove(j.id());
                p.jobs.remove(j.id());
                continue;
            }
            if (!p.jobs.contains(j.id()) || !engineJobs.contains(j.id())) {
                // New, or gone from the engine meanwhile (a mock whose work all ended): submit it,
                // without the slots kept for agents that have not come back — or, if that is all
                // it wants, keep it out of the engine until one of them returns.
                JobSpec rest = recovering.withoutKept(j);
                if (rest.units().stream().allMatch(u -> u.desired() == 0)) {
                    book.recovered.defer(j);
                } else {
                    book.recovered.undefer(j.id());
                    fresh.add(rest);
                }
                owners.put(j.id(), p.id);
                p.jobs.add(j.id());
                j.units().forEach(u -> unitSpecs.put(new UnitId(j.id(), u.name()), u));
                book.recovered.forget(j.id());
            } else if (book.recovered.isMock(j.id())) {
                // The job master of a mock job returned (docs/recovery.md, "The 17 cases": 11): its real request replaces the mock.
                conversions.add(book.recovered.convert(j));
                j.units().forEach(u -> unitSpecs.put(new UnitId(j.id(), u.name()), u));
            } else if (r.full()) {
                known.add(j);
            }
        }
        if (!known.isEmpty()) {
            // A full request is the whole truth of what the job master wants: a job it lists that the
            // master knows takes the listed desired counts (a job master that restarted and missed
            // exits asks for those tasks again: offline work runs at least once).
            conversions.addAll(query(v -> recovering.reconcile(known, v)));
            // and the nodes it keeps each unit off (docs/agent.md, "Blacklisting a node for one job")
            for (JobSpec j : known) {
                for (UnitSpec u : j.units()) {
                    UnitId id = new UnitId(j.id(), u.name());
                    Set<String> now = query(v -> v.unit(id) == null ? null : v.unit(id).spec().blacklist());
                    if (now != null && !now.equals(u.blacklist())) {
                        collect(problems, () -> apply(new UnitBlacklistChanged(id, u.blacklist())));
                    }
                }
            }
        }
        for (Recovered.Conversion c : conversions) {
            for (UnitSpec u : c.added()) {
                collect(problems, () -> apply(new UnitRequested(c.job(), u)));
            }
            for (UnitId u : c.cancelled()) {
                collect(problems, () -> apply(new UnitCancelled(u)));
            }
            c.desires().forEach((u, n) -> collect(problems, () -> apply(new UnitDesireChanged(u, n))));
        }
        if (!fresh.isEmpty()) {
            try {
                apply(new JobsSubmitted(fresh));
            } catch (InvalidRequestException ex) {
                if (recovering.tooFewNodes(ex) && query(v -> v.cluster().nodes().isEmpty())) {
                    // No agent has registered yet (a master that just started, its window closed before
                    // they did): the jobs wait out of the engine until a node joins, instead of being
                    // refused (docs/recovery.md, "Rebuilding").
                    fresh.forEach(book.recovered::defer);
                } else {
                    fresh.forEach(j -> {
                        owners.remove(j.id());
                        p.jobs.remove(j.id());
                    });
                    return refuse(e, ex.problems().toArray(new Problem[0]));
                }
            }
        }
        if (r.full()) {
            boolean reborn = p.requestIncarnation != e.incarnation();
            p.requestIncarnation = e.incarnation();
            restarting.back(p, r, reborn);
            List<CompletableFuture<Reply>> wake = new ArrayList<>();
            query(v -> {
                if (reborn) {
                    addIfNotNull(wake, p.outbox.reset()); // its inbox numbering starts again
                    p.applied = 0; // and so do its marks
                }
                mirrors.fillPlacements(p, v);
                p.sendFull(clock.millis());
                // Holdings the master does not confirm are gone: say so, the job master may hold them still.
                for (Request.Holding x : r.holdings()) {
                    if (p.placements.getOrDefault(x.unit(), Map.of()).getOrDefault(x.node(), 0) == 0) {
                        p.set(x.unit(), x.node(), 0, clock.millis());
                    }
                }
                return null;
            });
            wake.forEach(f -> f.complete(Reply.empty()));
        }
        List<String> touched = new ArrayList<>();
        r.desires().forEach(d -> touched.add(d.unit().job()));
        r.releases().forEach(x -> touched.add(x.unit().job()));
        Map<String, JobSpec> keeping = recovering.keptJobs(touched);
        for (Request.Desire d : r.desires()) {
            if (recovering.desiredWhileDeferred(d)) {
                continue;
            }
            if (d.avoid() != null) {
                // the job master keeps the unit off these nodes from now on; before its desire, so
                // that a slot it asks for again is not granted where it no longer wants one
                collect(problems, () -> apply(new UnitBlacklistChanged(d.unit(), d.avoid())));
            }
            // Slots kept for an agent that has not returned are not asked for again (docs/recovery.md).
            int kept;
            kept = book.recovered.reserved(d.unit());
            collect(problems, () -> apply(new UnitDesireChanged(d.unit(), Math.max(0, d.desired() - kept))));
        }
        List<String> cancels = new ArrayList<>(r.cancels());
        cancels.addAll(dropped);
        for (String job : cancels) {
            cancel(p, job, problems);
        }
        Set<UnitId> units = new LinkedHashSet<>();
        Set<String> nodes = new LinkedHashSet<>();
        for (Request.Release x : r.releases()) {
            // Checked before the caps go down: a release of more than the unit holds there (an exit
            // released some of them meanwhile) is refused whole and stops no worker.
            int held = query(v -> v.cluster().node(x.node()) == null ? 0 : v.cluster().node(x.node()).slotsOf(x.unit()));
            if (held < x.slots()) {
                problems.add(Problem.of(who, "$.message.releases[" + r.releases().indexOf(x) + "].slots", "unit " + x.unit() + " holds " + held + " slots on node "
                        + x.node() + ", cannot release " + x.slots(), held, x.slots()));
                continue;
            }
            mirrors.lower(x.node(), x.unit(), x.slots(), true);
            units.add(x.unit());
            nodes.add(x.node());
            collect(problems, () -> apply(new GrantReleased(x.unit(), x.node(), x.slots())));
        }
        mirrors.sync(units, nodes, true);
        recovering.deferEnded(keeping);
        List<JobMasterPeer.Spot> spots = new ArrayList<>();
        r.releases().forEach(x -> spots.add(new JobMasterPeer.Spot(x.unit(), x.node())));
        p.applied(r.mark(), spots, clock.millis());
        return problems.isEmpty() ? Ack.applied(e.sequence()) : refuse(e, problems.toArray(new Problem[0]));
    }

    private void own(JobMasterPeer p, String job, String path, String who, List<Problem> problems, Set<String> listed) {
        String owner = owners.get(job);
        if (owner == null && listed.contains(job)) {
            return;
        }
        if (owner == null) {
            problems.add(Problem.of(who, path, "job " + job + " is not known to this master"));
        } else if (!owner.equals(p.id)) {
            problems.add(Problem.of(who, path, "job " + job + " belongs to job master " + owner));
        }
    }

    void cancel(JobMasterPeer p, String job, List<Problem> problems) {
        Set<UnitId> units = new LinkedHashSet<>();
        Set<String> nodes = new LinkedHashSet<>();
        p.placements.forEach((unit, byNode) -> {
            if (unit.job().equals(job)) {
                units.add(unit);
                nodes.addAll(byNode.keySet());
            }
        });
        for (UnitId u : units) {
            for (String node : nodes) {
                mirrors.lower(node, u, Integer.MAX_VALUE, true);
            }
        }
        book.recovered.cancelled(job); // nothing of it kept any more for agents that have not returned
        // A job whose slots are all kept for such agents, or whose work ended meanwhile, is not in the
        // engine: its cancel has nothing to take back there (its caps are withdrawn when they return).
        if (query(v -> v.job(job) != null)) {
            collect(problems, () -> apply(new JobCancelled(job)));
        }
        String owner = owners.remove(job);
        if (owner != null) {
            formerOwners.put(job, owner);
        }
        p.jobs.remove(job);
        unitSpecs.keySet().removeIf(u -> u.job().equals(job));
        mirrors.sync(units, nodes, true);
    }

    /** A full request during the window is the job master's report; anything else waits for the rebuild. In a turn of the loop. */
    private Ack requestInWindow(JobMasterPeer p, Envelope e, Request r) {
        String who = e.sender().toString();
        if (!r.full()) {
            book.deferred.add(() -> request(p, e, r));
            return Ack.applied(e.sequence());
        }
        List<Problem> problems = new ArrayList<>();
        for (int i = 0; i < r.jobs().size(); i++) {
            String owner = owners.get(r.jobs().get(i).id());
            if (owner != null && !owner.equals(p.id)) {
                problems.add(Problem.of(who, "$.message.jobs[" + i + "].id", "job " + r.jobs().get(i).id() + " belongs to job master " + owner));
            }
        }
        if (!problems.isEmpty()) {
            return refuse(e, problems.toArray(new Problem[0]));
        }
        p.jobs.forEach(owners::remove);
        p.jobs.clear();
        for (JobSpec j : r.jobs()) {
            owners.put(j.id(), p.id);
            p.jobs.add(j.id());
            j.units().forEach(u -> unitSpecs.put(new UnitId(j.id(), u.name()), u));
        }
        book.window.jobMaster(new JobMasterReport(p.id, r.jobs(), r.holdings()), clock.millis());
        p.restart = r.restart(); // how to start it again holds from its first full request, window or not
        if (p.requestIncarnation != e.incarnation()) {
            CompletableFuture<Reply> w = p.outbox.reset();
            if (w != null) {
                recovering.wakeLater(() -> w.complete(Reply.empty()));
            }
        }
        if (p.requestIncarnation != e.incarnation()) {
            p.applied = 0;
        }
        p.requestIncarnation = e.incarnation();
        p.applied(r.mark(), List.of(), clock.millis()); // the rebuild's full hint counts what it held
        if (!r.desires().isEmpty() || !r.cancels().isEmpty() || !r.releases().isEmpty()) {
            Request rest = new Request(false, List.of(), r.desires(), r.cancels(), r.releases(), List.of(), null, r.mark());
            book.deferred.add(() -> request(p, e, rest));
        }
        return Ack.applied(e.sequence());
    }
}

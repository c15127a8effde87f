package granary.sim.run;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import granary.api.report.Report;
import granary.engine.Engine;
import granary.sim.metrics.GroupUsage;
import granary.sim.metrics.LongList;
import granary.sim.metrics.SizeClasses;

/** Turns the state at the end of a replay into its {@link RunResult}. */
final class Outcome {

    private Outcome() {
    }

    static RunResult of(Simulation sim, Map<String, String> effective, long end, double wallSeconds) {
        Recorder rec = sim.recorder();
        SimSettings s = sim.settings();
        long timeout = s.timeoutMs();
        LongList jobWaits = new LongList();
        LongList unitWaits = new LongList();
        SizeClasses bySize = new SizeClasses();
        long submitted = 0;
        long refused = 0;
        long finished = 0;
        long neverStarted = 0;
        long jobTimeouts = 0;
        long unitTimeouts = 0;
        long unitsRequested = 0;
        long unitsRefused = 0;
        long unitsNotRequested = 0;
        for (JobTrack j : sim.jobTracks()) {
            if (!j.submitted()) {
                refused++;
                unitsRefused += j.units.size();
                continue;
            }
            submitted++;
            long jobWait = 0;
            long requested = 0;
            boolean started = true;
            for (UnitTrack u : j.units.values()) {
                if (u.refused) {
                    unitsRefused++;
                } else if (u.requestedAt < 0) {
                    unitsNotRequested++;
                } else {
                    unitsRequested++;
                    requested += u.unit.spec().desired();
                    long wait = (u.firstGrantAt >= 0 ? u.firstGrantAt : end) - u.requestedAt;
                    started &= u.firstGrantAt >= 0;
                    unitWaits.add(wait);
                    unitTimeouts += wait > timeout ? 1 : 0;
                    jobWait = Math.max(jobWait, wait);
                }
            }
            jobWaits.add(jobWait);
            if (requested > 0) {
                bySize.add(requested, jobWait);
            }
            boolean timedOut = jobWait > timeout;
            jobTimeouts += timedOut ? 1 : 0;
            neverStarted += started ? 0 : 1;
            finished += j.unfinished == 0 ? 1 : 0;
            rec.groups.computeIfAbsent(j.group, g -> new GroupUsage()).job(timedOut);
        }
        Engine engine = sim.engine();
        RunResult.Jobs jobs = new RunResult.Jobs(submitted, refused, finished, neverStarted, unitsRequested, unitsRefused,
                unitsNotRequested, sim.refusals(), sim.refusalExamples());
        RunResult.Timeouts timeouts = new RunResult.Timeouts(timeout, jobTimeouts, submitted == 0 ? 0 : (double) jobTimeouts / submitted,
                unitTimeouts);
        RunResult.Waits waits = new RunResult.Waits(jobWaits.stats(), unitWaits.stats(), rec.slotWaits.stats(),
                bySize.classes());
        Map<String, RunResult.GroupRow> groups = new LinkedHashMap<>();
        rec.groups.forEach((name, g) -> groups.put(name, new RunResult.GroupRow(g.jobs(), g.timeouts(), g.slotSeconds(),
                g.cpuCoreSeconds(), g.memGibSeconds(), g.peakSlots(), g.revokedSlots(), g.lostSlotSeconds(), g.belowMinSeconds(),
                g.longestBelowMinSeconds(), g.overMaxSeconds(), g.stretchesOverBound(), g.stretches().stream()
                .map(x -> new RunResult.Stretch((x.start() - s.startEpochMs()) / 1000.0, x.length() / 1000.0, x.cause(),
                        x.causes())).toList())));
        Map<String, Map<String, Report>> reports = rec.reports.readAll();
        long decisions = engine.view().status().decisions();
        long simulated = end - s.startEpochMs();
        RunResult.Performance perf = new RunResult.Performance(wallSeconds, decisions / wallSeconds, rec.slotGrants / wallSeconds,
                simulated / 1000.0 / wallSeconds);
        return new RunResult(sim.prepared().label(), sim.prepared().selection(), effective, List.copyOf(sim.notes()), jobs,
                timeouts, waits, rec.utilisation(end), new RunResult.Backlog(rec.backlogUtilisation(), rec.backlogSeconds()),
                rec.stranded(), rec.strandedOfFree(),
                new RunResult.Revocations(rec.revokedSlots, rec.lostSlotMs / 1000.0), groups, reports, rec.series,
                rec.reports.series(), rec.reports.tablesAtEnd(reports), simulated, decisions, rec.slotGrants, perf);
    }
}

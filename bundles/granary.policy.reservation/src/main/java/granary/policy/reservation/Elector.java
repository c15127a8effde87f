package granary.policy.reservation;

import java.util.Comparator;
import java.util.HashMap;
import java.util.Map;

import granary.api.model.Allocation;
import granary.api.model.UnitId;
import granary.api.spi.CycleContext;
import granary.api.spi.JobView;
import granary.api.spi.UnitView;

/**
 * Elects the target (docs/policies.md, "reservation"): among jobs that have starved past the threshold, the highest
 * priority (a job's priority is its highest unit priority), then the longest starving, then the
 * earlier submission, then the id. A job that admission holds back (quota, running-job limits) is
 * passed over: locking nodes would not help it.
 *
 * <p><b>Starving</b> means waiting without progress. A unit starves since it started waiting
 * ({@code waitingSince}) or since it was last seen to get a new grant, whichever is later: a big
 * elastic job that wants more than the cluster but keeps getting slots is served, not starved, and
 * is not elected; a gang, which gets nothing until it gets everything, starves from its first wait.
 * Progress is read at each scan from the latest grant decision of the unit's allocations; a unit
 * first seen holding slots counts as progressing then.
 *
 * <p>Cost: electing scans the jobs, so the elector remembers when the next job can cross the
 * threshold — starving clocks only move forward, and a job that starts waiting now crosses at
 * {@code now + threshold} at the earliest — and does not scan before then. It scans again at once
 * after a reservation ends, and within a second while a crossed job is held back by admission.
 */
final class Elector {

    /** How soon to look again at jobs that have crossed the threshold but admission holds back. */
    private static final long RECHECK_MILLIS = 1_000;

    private static final Comparator<Candidate> BEST_FIRST = Comparator.comparingInt((Candidate c) -> -c.priority)
            .thenComparingLong(c -> c.since).thenComparingLong(c -> c.job.submitTime())
            .thenComparing(c -> c.job.id());

    private final long threshold;
    /** No job can be a candidate before this engine time. */
    private long nextScanAt = Long.MIN_VALUE;
    /** Jobs whose reservation timed out → engine time before which they are not elected again. */
    private final Map<String, Long> heldBack = new HashMap<>();
    /** Waiting units at the last scan → {latest grant decision seen, engine time of the last progress or -1}. */
    private Map<UnitId, long[]> progress = new HashMap<>();

    Elector(long threshold) {
        this.threshold = threshold;
    }

    private record Candidate(JobView job, int priority, long since) {
    }

    /** The target now, or null. */
    JobView elect(CycleContext ctx) {
        long now = ctx.now();
        if (now < nextScanAt) {
            return null;
        }
        // with no threshold every waiting job is a candidate at once: look every cycle
        long next = threshold == 0 ? Long.MIN_VALUE : now + threshold;
        Candidate best = null;
        heldBack.keySet().removeIf(id -> ctx.job(id) == null);
        Map<UnitId, long[]> seen = new HashMap<>();
        for (JobView j : ctx.jobs()) {
            long since = starvingSince(j, now, seen);
            if (since < 0) {
                continue;
            }
            long eligibleAt = Math.max(since + threshold, heldBack.getOrDefault(j.id(), Long.MIN_VALUE));
            if (eligibleAt > now) {
                next = Math.min(next, eligibleAt);
                continue;
            }
            Candidate c = new Candidate(j, Jobs.priority(j), since);
            if (best != null && BEST_FIRST.compare(c, best) >= 0) {
                continue;
            }
            if (!admitted(j, ctx)) {
                next = Math.min(next, now + Math.min(RECHECK_MILLIS, threshold));
                continue;
            }
            best = c;
        }
        progress = seen;
        nextScanAt = best == null ? next : Long.MIN_VALUE;
        return best == null ? null : best.job;
    }

    /** The earliest time since which a waiting unit of the job has starved, or -1 if none waits. */
    private long starvingSince(JobView job, long now, Map<UnitId, long[]> seen) {
        long since = -1;
        for (UnitView u : job.units()) {
            if (!u.live() || u.remaining() == 0 || u.waitingSince() < 0) {
                continue;
            }
            long latest = 0;
            for (Allocation a : u.grants()) {
                latest = Math.max(latest, a.seq());
            }
            long[] before = progress.get(u.id());
            long progressAt = before == null ? (latest > 0 ? now : -1) : latest > before[0] ? now : before[1];
            seen.put(u.id(), new long[] {latest, progressAt});
            long s = Math.max(u.waitingSince(), progressAt);
            since = since < 0 ? s : Math.min(since, s);
        }
        return since;
    }

    /**
     * True if admission lets the job have what it waits for: every waiting unit of a gang (it is
     * granted whole), or at least one slot of some unit otherwise.
     */
    private static boolean admitted(JobView job, CycleContext ctx) {
        boolean any = false;
        for (UnitView u : Jobs.waitingUnits(job)) {
            int allowed = ctx.admissible(u);
            if (u.allOrNothing() && allowed < u.remaining()) {
                return false;
            }
            any |= allowed > 0;
        }
        return any;
    }

    /** After a reservation ended: look for the next target at once. */
    void rescan() {
        nextScanAt = Long.MIN_VALUE;
    }

    /** After a reservation timed out: its target is not elected again before it waits the threshold anew. */
    void holdBack(String job, long now) {
        heldBack.put(job, now + threshold);
        nextScanAt = Long.MIN_VALUE;
    }

    /** Forgets everything (the policy was detached). */
    void reset() {
        heldBack.clear();
        progress = new HashMap<>();
        nextScanAt = Long.MIN_VALUE;
    }
}

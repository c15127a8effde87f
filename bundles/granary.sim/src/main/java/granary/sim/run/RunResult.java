package granary.sim.run;

import java.util.List;
import java.util.Map;

import granary.api.report.Report;
import granary.sim.metrics.SizeClasses;
import granary.sim.metrics.Stats;
import granary.sim.metrics.TimeSeries;

/**
 * What one replay under one policy set measured (docs/operations.md, "What operators measure"). Everything but {@link #performance}
 * depends only on the workload, the cluster, the policies and the settings: the same inputs give
 * the same values on every run.
 *
 * @param label      the policy set as written
 * @param selection  the policies installed, in selection order (added ones included)
 * @param effective  extension point → policy in effect at the start
 * @param notes      what the set setup added, and policies the engine set aside during the run
 * @param simulatedMs simulated time from trace time 0 to the end of the replay
 * @param decisions  the engine's grant and revoke decisions
 * @param slotGrants slots granted in all (a decision may grant several)
 * @param reports    every report of the set's policies at the end: policy → report name → report
 * @param reportSeries the table sections of the sampled reports over time, by section name ({@code groups.csv})
 * @param reportTables the table sections of the other reports at the end, by section name ({@code billing.csv})
 */
public record RunResult(String label, List<String> selection, Map<String, String> effective, List<String> notes,
                        Jobs jobs, Timeouts timeouts, Waits waits, Map<String, Double> utilisation,
                        Backlog backlog,
                        Map<String, Double> strandedShare, double strandedShareOfFree, Revocations revocations,
                        Map<String, GroupRow> groups, Map<String, Map<String, Report>> reports,
                        TimeSeries series, Map<String, TimeSeries> reportSeries, Map<String, TimeSeries> reportTables,
                        long simulatedMs, long decisions, long slotGrants, Performance performance) {

    /**
     * @param submitted     jobs the engine accepted
     * @param refused       jobs the engine refused at submission (bad for this cluster, or a submit filter)
     * @param finished      jobs whose every unit ran to the end
     * @param neverStarted  accepted jobs with a requested unit that never got a slot before the replay ended
     * @param unitsRefused  units refused (their job's refusal included)
     * @param unitsNotRequested units never requested: what they depend on never finished
     * @param refusals      refusal reason (the policy or field named) → count
     * @param refusalExamples the first refusal messages
     */
    public record Jobs(long submitted, long refused, long finished, long neverStarted, long unitsRequested, long unitsRefused,
                       long unitsNotRequested, Map<String, Long> refusals, List<String> refusalExamples) {
    }

    /**
     * @param thresholdMs a wait above this is a timeout
     * @param jobs        accepted jobs that waited longer (a job waits as long as its slowest unit)
     * @param share       jobs / accepted jobs
     * @param units       units that waited longer
     */
    public record Timeouts(long thresholdMs, long jobs, double share, long units) {
    }

    /**
     * Waits in ms: per job (its slowest unit), per unit (request → first slot; all slots for an
     * all-or-nothing unit), per slot (each slot's demand → its grant, to the second). A unit that
     * never got a slot counts with its wait until the end of the replay. Job waits also by the job's
     * size (slots requested, in decades), smallest class first.
     */
    public record Waits(Stats jobs, Stats units, Stats slots, List<SizeClasses.SizeClass> jobsBySize) {

        public Waits {
            jobsBySize = List.copyOf(jobsBySize);
        }
    }

    /** Slots taken back by the master, and the work they lost (slot-seconds run before). */
    public record Revocations(long slots, double lostSlotSeconds) {
    }

    /**
     * Utilisation while something waited (the cluster could have been busier only by placing it), and
     * how long that was.
     */
    public record Backlog(Map<String, Double> utilisation, double seconds) {
    }

    /**
     * One group (by the full name the engine gave it). Slots taken from the group and the slot-seconds
     * their tasks had run (work lost, included in {@code slotSeconds}); then, from the admission
     * policies' group bounds (docs/operations.md, "What operators measure"): time below its guarantee
     * while it had demand (in all, and the longest stretch), time above its limit, and the stretches
     * below its guarantee longer than the bound, in time order, each charged to its causes.
     */
    public record GroupRow(long jobs, long timeouts, double slotSeconds, double cpuCoreSeconds, double memGibSeconds,
                           long peakSlots, long revokedSlots, double lostSlotSeconds, double belowMinSeconds,
                           double longestBelowMinSeconds, double overMaxSeconds, long stretchesOverBound,
                           List<Stretch> stretches) {

        /** How many of the longest stretches results.json and the summary show. */
        public static final int SHOWN_STRETCHES = 10;

        public GroupRow {
            stretches = List.copyOf(stretches);
        }

        /** The longest few stretches over the bound, longest first. */
        public List<Stretch> longestStretches() {
            return stretches.stream().sorted(java.util.Comparator.comparingDouble(Stretch::seconds).reversed())
                    .limit(SHOWN_STRETCHES).toList();
        }

        public GroupRow(long jobs, long timeouts, double slotSeconds, double cpuCoreSeconds, double memGibSeconds,
                        long peakSlots) {
            this(jobs, timeouts, slotSeconds, cpuCoreSeconds, memGibSeconds, peakSlots, 0, 0, 0, 0, 0, 0, List.of());
        }

        /** Work lost to revocations as a share of the slot-seconds the group held; 0 when it held none. */
        public double lostShare() {
            return slotSeconds <= 0 ? 0 : lostSlotSeconds / slotSeconds;
        }
    }

    /**
     * A stretch of a group below its guarantee with demand longer than the bound
     * ({@link granary.sim.metrics.GroupUsage#GUARANTEE_BOUND_MS}), in seconds from trace time 0: the
     * cause it spent most of its time in, and its time per cause ({@code cause s; cause s}), as the
     * group's admission policy said (docs/multi-tenancy.md, "Why a group stays below its min").
     */
    public record Stretch(double startSeconds, double seconds, String cause, String causes) {
    }

    /** Wall-clock figures: they vary from run to run and machine to machine. */
    public record Performance(double wallSeconds, double decisionsPerSecond, double slotGrantsPerSecond, double speedUp) {
    }
}

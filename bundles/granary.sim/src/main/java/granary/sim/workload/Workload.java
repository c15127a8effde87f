package granary.sim.workload;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

import granary.api.model.NodeSpec;

/**
 * A replayable workload: jobs in arrival order (ties keep the order of the input), what the reader
 * did with its input, and — when the trace describes its machines — the cluster it ran on.
 */
public final class Workload {

    private final List<SimJob> jobs;
    private final ReadReport report;
    private final List<NodeSpec> nodes;

    /** @param nodes the trace's own node list, or null if the trace has none */
    public Workload(List<SimJob> jobs, ReadReport report, List<NodeSpec> nodes) {
        List<SimJob> sorted = new ArrayList<>(jobs);
        sorted.sort(Comparator.comparingLong(SimJob::arrivalMs));   // stable: input order at equal times
        this.jobs = List.copyOf(sorted);
        this.report = report;
        this.nodes = nodes == null ? null : List.copyOf(nodes);
    }

    public List<SimJob> jobs() {
        return jobs;
    }

    public ReadReport report() {
        return report;
    }

    /** The trace's node list, or null. */
    public List<NodeSpec> nodes() {
        return nodes;
    }

    public long units() {
        return jobs.stream().mapToLong(j -> j.units().size()).sum();
    }

    public long slots() {
        return jobs.stream().mapToLong(SimJob::slots).sum();
    }

    /** True if some job or unit must be granted all-or-nothing (then a gang-placement policy is needed). */
    public boolean hasAllOrNothing() {
        return jobs.stream().anyMatch(j -> j.gang() || j.units().stream().anyMatch(u -> u.spec().allOrNothing()));
    }

    /**
     * The same jobs, each unit declaring its true run time ({@code expectedSeconds}, rounded up): job
     * masters that know how long their tasks run (an oracle for policies that plan ahead).
     */
    public Workload declaringRunTimes() {
        List<SimJob> out = new ArrayList<>(jobs.size());
        for (SimJob j : jobs) {
            List<SimUnit> units = new ArrayList<>(j.units().size());
            for (SimUnit u : j.units()) {
                long s = Math.min(granary.api.model.UnitSpec.MAX_EXPECTED_SECONDS, Math.max(1, (u.durationMs() + 999) / 1000));
                units.add(new SimUnit(u.spec().withExpectedSeconds(s), u.arrivalMs(), u.durationMs(), u.after()));
            }
            out.add(new SimJob(j.id(), j.group(), j.user(), j.productionLevel(), j.gang(), units, j.origin()));
        }
        return new Workload(out, report, nodes);
    }

    /** The first {@code n} jobs by arrival, and only those arriving at or before {@code untilMs}. */
    public Workload cut(long n, long untilMs) {
        List<SimJob> kept = new ArrayList<>();
        for (SimJob j : jobs) {
            if (kept.size() >= n || j.arrivalMs() > untilMs) {
                break;
            }
            kept.add(j);
        }
        return kept.size() == jobs.size() ? this : new Workload(kept, report, nodes);
    }
}

package granary.planner.whatif;

import java.util.List;
import java.util.Map;

import granary.sim.metrics.Stats;
import granary.sim.run.RunResult;

/**
 * What one side of a what-if measured, in the shape the charts draw it; {@link #run} keeps everything
 * the simulator measured.
 *
 * @param label        {@code draft} or {@code in force}
 * @param jobs         jobs of the cut replayed (submitted and refused)
 * @param finished     jobs whose every unit ran to its end
 * @param refused      jobs the engine refused (e.g. of a group no table funds)
 * @param timeouts     jobs that waited longer than the wait-for-resource timeout
 * @param timeoutShare timeouts of the jobs accepted
 * @param jobWaits     job waits in ms (a job waits as long as its slowest unit): p50, p90, p99
 * @param cpuByHour    cpu utilisation 0..1 per hour of the day (24 entries, NaN where the replay spent no time)
 * @param memByHour    memory utilisation, the same way
 * @param groups       per group, by the tables' names, in the tables' order then others
 */
public record RunSummary(String label, RunResult run, long jobs, long finished, long refused, long timeouts,
                         double timeoutShare, Stats jobWaits, List<Double> cpuByHour, List<Double> memByHour,
                         Map<String, GroupSummary> groups) {

    public RunSummary {
        cpuByHour = List.copyOf(cpuByHour);
        memByHour = List.copyOf(memByHour);
        groups = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(groups));
    }
}

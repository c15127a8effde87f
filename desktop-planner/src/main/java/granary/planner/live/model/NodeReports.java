package granary.planner.live.model;

import java.util.Collection;
import java.util.Map;
import java.util.TreeMap;

/**
 * What the nodes' agents last reported, as the master lists them ({@code GET /api/v1/agents}): each
 * node's cpu and memory in use (absent when its agent does not say), and why a node is unhealthy (it
 * gets no new work meanwhile; docs/agent.md, "Node health"). Immutable; read every few seconds.
 *
 * @param note why there are no reports, or null (e.g. the master lists no agents)
 */
public record NodeReports(Map<String, Report> byNode, String note) {

    /**
     * One node's report.
     *
     * @param usedCpu   cpu in use in 1/100 cores, or -1 if not reported
     * @param usedMem   memory in use in MiB, or -1 if not reported
     * @param unhealthy why its agent says it is unfit for work; empty while it is fit
     */
    public record Report(String node, String state, long usedCpu, long usedMem, String unhealthy) {
        public boolean reportsUse() {
            return usedCpu >= 0 && usedMem >= 0;
        }

        public boolean isUnhealthy() {
            return !unhealthy.isEmpty();
        }
    }

    public static final NodeReports NONE = new NodeReports(Map.of(), null);

    public NodeReports {
        byNode = Map.copyOf(byNode);
    }

    public static NodeReports of(Collection<Report> reports) {
        Map<String, Report> m = new TreeMap<>();
        reports.forEach(r -> m.put(r.node(), r));
        return new NodeReports(m, null);
    }

    /** No report, saying why. */
    public static NodeReports none(String note) {
        return new NodeReports(Map.of(), note);
    }

    /** Node {@code name}'s report, or null. */
    public Report of(String name) {
        return byNode.get(name);
    }

    /** The unhealthy nodes' names. */
    public java.util.List<String> unhealthy() {
        return byNode.values().stream().filter(Report::isUnhealthy).map(Report::node).toList();
    }
}

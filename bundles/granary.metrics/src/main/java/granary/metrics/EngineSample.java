package granary.metrics;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import granary.api.model.Resources;
import granary.api.report.Cell;
import granary.api.report.Report;
import granary.api.report.Row;
import granary.api.report.Section;
import granary.api.spi.EngineStatus;
import granary.api.spi.EngineView;
import granary.api.spi.GroupView;
import granary.api.spi.MetricSpec;
import granary.api.spi.Policy;
import granary.api.spi.PolicyDeclaration;
import granary.api.spi.ReportSpec;

/**
 * What one scrape reads of the engine, copied on the engine thread in one query so that nothing live
 * leaves it: the status counters, one row per group, and the samples of the metrics every policy in
 * effect declares.
 *
 * <p>A policy's metrics are read the way the console reads any report, from the policy's declaration
 * (docs/operations.md, "Metrics"): each {@link MetricSpec} names a report, its table and the cells
 * that label and value a sample. No policy and no report is named here.
 */
record EngineSample(EngineStatus status, List<GroupRow> groups, List<PolicySample> policySamples, List<String> problems) {

    /** One group (quota group or queue) as the engine sees it. */
    record GroupRow(String name, int waitingUnits, long waitingSlots, long usedSlots, Resources used, int jobs,
                    int runningJobs) {
    }

    /**
     * One row of a policy's metric: the policy, the metric, the values of its label cells (in the
     * metric's order) and the value cell's value (a number, {@link Resources}, or anything else, which
     * gives no sample).
     */
    record PolicySample(String policy, MetricSpec metric, List<String> labels, Object value) {
    }

    /** Reads the sample; call on the engine thread (a {@code Scheduler} query). */
    static EngineSample read(EngineView view, Collection<PolicyDeclaration> declarations) {
        EngineStatus status = view.status();
        List<GroupRow> groups = new ArrayList<>();
        for (GroupView g : view.groups()) {
            groups.add(new GroupRow(g.name(), g.waitingUnits(), g.waitingSlots(), g.usedSlots(), g.used(), g.jobs(),
                    g.runningJobs()));
        }
        List<PolicySample> samples = new ArrayList<>();
        List<String> problems = new ArrayList<>();
        Set<String> inEffect = new HashSet<>(status.policies().values());
        for (PolicyDeclaration d : declarations) {
            Policy installed = inEffect.contains(d.name()) ? view.policy(d.name()) : null;
            if (installed == null) {
                continue;
            }
            Map<String, Report> read = new HashMap<>();
            for (MetricSpec m : d.metrics()) {
                try {
                    Report report = read.computeIfAbsent(m.report(), name -> report(d, name).read(installed, view));
                    samples.addAll(rows(d.name(), m, report));
                } catch (RuntimeException ex) {
                    // one policy's broken report must not cost the scrape the rest
                    if (!problems.contains(d.name() + "/" + m.report())) {
                        problems.add(d.name() + "/" + m.report());
                    }
                }
            }
        }
        return new EngineSample(status, List.copyOf(groups), List.copyOf(samples), List.copyOf(problems));
    }

    private static ReportSpec report(PolicyDeclaration d, String name) {
        return d.reports().stream().filter(r -> r.name().equals(name)).findFirst().orElseThrow();
    }

    private static List<PolicySample> rows(String policy, MetricSpec m, Report report) {
        Section table = report.section(m.section());
        if (table == null) {
            return List.of();
        }
        List<PolicySample> out = new ArrayList<>();
        for (Row row : table.rows()) {
            List<String> labels = new ArrayList<>();
            for (String l : m.labels()) {
                Cell c = row.cell(l);
                labels.add(c == null || c.value() == null ? "" : c.value().toString());
            }
            Cell value = row.cell(m.value());
            if (value != null && value.value() != null) {
                out.add(new PolicySample(policy, m, List.copyOf(labels), value.value()));
            }
        }
        return out;
    }
}

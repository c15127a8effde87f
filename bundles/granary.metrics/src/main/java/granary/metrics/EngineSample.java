package granary.metrics;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import granary.api.model.Resources;
import granary.api.report.Cell;
import granary.api.report.Report;
import granary.api.report.Row;
import granary.api.report.Section;
import granary.api.spi.EngineStatus;
import granary.api.spi.EngineView;
import granary.api.spi.GroupView;
import granary.api.spi.Policy;
import granary.api.spi.PolicyDeclaration;
import granary.api.spi.ReportSpec;

/**
 * What one scrape reads of the engine, copied on the engine thread in one query so that nothing live
 * leaves it: the status counters, one row per group, and the guarantees and limits of every policy in
 * effect that declares a {@value #QUOTA_REPORT} report.
 *
 * <p>The quota bounds are read the way the console reads any report, from the policy's declaration
 * (docs/architecture.md, "Reports and commands"): the report {@value #QUOTA_REPORT}, its table
 * {@value #GROUPS_SECTION}, and in each row the cells {@code group}, {@code min} and {@code max} (a number
 * of slots, or resources). No policy class is named here.
 */
record EngineSample(EngineStatus status, List<GroupRow> groups, List<QuotaRow> quotas, List<String> problems) {

    static final String QUOTA_REPORT = "quota";
    static final String GROUPS_SECTION = "groups";

    /** One group (quota group or queue) as the engine sees it. */
    record GroupRow(String name, int waitingUnits, long waitingSlots, long usedSlots, Resources used, int jobs,
                    int runningJobs) {
    }

    /**
     * One group's guarantee and limit in a policy's quota report (a number of slots, {@link Resources},
     * or null), and, where the report says them, the slots preempted from it and the slot-seconds
     * those slots had run (null where it does not).
     */
    record QuotaRow(String policy, String group, Object min, Object max, Number preempted, Number preemptedWork) {
    }

    /** Reads the sample; call on the engine thread (a {@code Scheduler} query). */
    static EngineSample read(EngineView view, Collection<PolicyDeclaration> declarations) {
        EngineStatus status = view.status();
        List<GroupRow> groups = new ArrayList<>();
        for (GroupView g : view.groups()) {
            groups.add(new GroupRow(g.name(), g.waitingUnits(), g.waitingSlots(), g.usedSlots(), g.used(), g.jobs(),
                    g.runningJobs()));
        }
        List<QuotaRow> quotas = new ArrayList<>();
        List<String> problems = new ArrayList<>();
        Set<String> inEffect = new HashSet<>(status.policies().values());
        for (PolicyDeclaration d : declarations) {
            if (!inEffect.contains(d.name())) {
                continue;
            }
            for (ReportSpec r : d.reports()) {
                if (r.name().equals(QUOTA_REPORT)) {
                    try {
                        quotas.addAll(quotaRows(d.name(), r, view));
                    } catch (RuntimeException ex) {
                        // one policy's broken report must not cost the scrape the rest
                        problems.add(d.name() + "/" + r.name());
                    }
                }
            }
        }
        return new EngineSample(status, List.copyOf(groups), List.copyOf(quotas), List.copyOf(problems));
    }

    private static List<QuotaRow> quotaRows(String policyName, ReportSpec spec, EngineView view) {
        Policy installed = view.policy(policyName);
        if (installed == null) {
            return List.of();
        }
        Report report = spec.read(installed, view);
        Section groups = report.section(GROUPS_SECTION);
        if (groups == null) {
            return List.of();
        }
        List<QuotaRow> rows = new ArrayList<>();
        for (Row row : groups.rows()) {
            Cell group = row.cell("group");
            if (group != null && group.value() != null) {
                rows.add(new QuotaRow(policyName, group.value().toString(), value(row.cell("min")), value(row.cell("max")),
                        number(row.cell("preempted_from")), number(row.cell("preempted_work_slot_seconds"))));
            }
        }
        return rows;
    }

    private static Object value(Cell c) {
        return c == null ? null : c.value();
    }

    private static Number number(Cell c) {
        return c != null && c.value() instanceof Number n ? n : null;
    }
}

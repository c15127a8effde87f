package granary.policy.jobcap;

import java.util.ArrayList;
import java.util.List;

import granary.api.report.Cell;
import granary.api.report.Report;
import granary.api.report.Row;
import granary.api.report.Section;
import granary.api.spi.EngineView;
import granary.api.spi.JobView;
import granary.api.spi.MetricSpec;
import granary.api.spi.OptionSpec;
import granary.api.spi.PolicyDeclaration;
import granary.api.spi.PolicyProvider;
import granary.api.spi.ReasonCode;
import granary.api.spi.ResourceSpec;

/**
 * The jobcap policy, declared once (README.md, "jobcap"): its option, how it is made, and what it
 * offers the edges without their naming it: the report {@code capped}, the reason code
 * {@code JOB_CAP}, the metric {@code granary_jobs_at_cap} and the HTTP resource {@code GET /job-caps}.
 */
public final class JobCapProvider implements PolicyProvider {

    static final OptionSpec<Long> MAX_SLOTS = OptionSpec.number("maxSlots", 1000, 1, 100_000_000,
            "The most slots one job holds at once, over all its units.");

    /** A unit of a job that holds its cap waits (README.md, "What operators see"). */
    static final ReasonCode JOB_CAP = ReasonCode.of(JobCapPolicy.JOB_CAP_NAME, "job at its slot cap",
            "{Subject} holds its cap of slots: it gets more when its own units release slots, or when the jobcap"
                    + " policy's maxSlots is raised.");

    public static final PolicyDeclaration DECLARATION = PolicyDeclaration.of(JobCapPolicy.NAME, JobCapPolicy.class)
            .description("Admission: at most maxSlots slots held by one job at once.")
            .option(MAX_SLOTS)
            .factory(s -> new JobCapPolicy(s.get(MAX_SLOTS)))
            .report("capped", "the cap, how many jobs are at it, and every job at its cap: job, group, slots held",
                    JobCapProvider::capped)
            .reason(JOB_CAP)
            .metric(MetricSpec.number("granary_jobs_at_cap", "Jobs holding their jobcap cap of slots now.", "capped",
                    "summary", List.of(), "jobs_at_cap"))
            .resource(ResourceSpec.reports("/job-caps", "listJobCaps", "The jobcap policy's report: the cap and the jobs"
                    + " at it", List.of("capped")))
            .build();

    @Override
    public PolicyDeclaration declaration() {
        return DECLARATION;
    }

    static Report capped(JobCapPolicy p, EngineView view) {
        List<JobView> at = p.atCap(view);
        List<Row> rows = new ArrayList<>();
        for (JobView j : at) {
            rows.add(Row.of(Cell.bare("job", j.id()), Cell.bare("group", j.group()), Cell.of("held", JobCapPolicy.held(j))));
        }
        return Report.of(Section.table("summary", List.of(Row.of(Cell.of("cap", p.maxSlots()),
                        Cell.of("jobs_at_cap", at.size()))), null),
                Section.table("jobs", rows, "no job at its cap"));
    }
}

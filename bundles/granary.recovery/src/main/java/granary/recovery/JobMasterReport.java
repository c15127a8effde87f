package granary.recovery;

import granary.api.model.JobSpec;
import granary.protocol.Request;
import java.util.List;
import java.util.Objects;

/** What a job master told a recovering master in its full request: its jobs and the slots its hints gave it. */
public record JobMasterReport(String id, List<JobSpec> jobs, List<Request.Holding> holdings) {
    public JobMasterReport {
        Objects.requireNonNull(id, "id");
        jobs = List.copyOf(jobs);
        holdings = List.copyOf(holdings);
    }
}

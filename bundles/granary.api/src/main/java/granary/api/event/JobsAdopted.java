package granary.api.event;

import granary.api.model.JobSpec;
import java.util.List;

/**
 * Jobs submitted together with grants they already hold, in one step: the jobs as
 * {@link JobsSubmitted} (validated whole, refused whole), then each grant as {@link GrantAdopted},
 * before any scheduling cycle runs. For a master that learns of running work whose job it did not
 * know — an agent returning after the recovery window with caps of a job master that has not come
 * back (docs/recovery.md, "Peers that return late") — so that the scheduler cannot place those
 * slots elsewhere between the submission and the adoption. A grant that cannot be adopted (no room
 * left, no such node) is skipped: its slots wait like any others.
 */
public record JobsAdopted(List<JobSpec> jobs, List<GrantAdopted> grants) implements InputEvent {
    public JobsAdopted {
        jobs = List.copyOf(jobs);
        grants = List.copyOf(grants);
    }
}

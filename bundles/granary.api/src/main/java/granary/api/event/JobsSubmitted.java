package granary.api.event;

import java.util.List;

import granary.api.model.JobSpec;

/**
 * Several jobs submitted at once, all or nothing: the engine checks every job first and, if any is
 * refused, accepts none and reports every problem of every job. A file of jobs, a protocol batch
 * or an HTTP request with several jobs arrives this way, so that a retry after a fix never meets
 * "already running" for the part that went through.
 */
public record JobsSubmitted(List<JobSpec> jobs) implements InputEvent {

    public JobsSubmitted {
        jobs = jobs == null ? null : List.copyOf(jobs);
    }
}

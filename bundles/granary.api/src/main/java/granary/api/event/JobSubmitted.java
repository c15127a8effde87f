package granary.api.event;

import granary.api.model.JobSpec;

/** A job master submits a job and its units. The job id must be new. */
public record JobSubmitted(JobSpec job) implements InputEvent {
}

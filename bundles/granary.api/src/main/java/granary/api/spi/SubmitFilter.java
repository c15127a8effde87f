package granary.api.spi;

import granary.api.model.JobSpec;

import org.osgi.annotation.versioning.ConsumerType;

/**
 * Extension point {@code submit-filter} (composable): refuses, at submission, work that can never be
 * scheduled (a gang larger than the cluster, an unknown queue).
 *
 * <p>Called on the engine thread before a job, an added unit or a raised desire is accepted, with
 * the job as it would be after the change. {@code REJECT} refuses the change with the reason and
 * nothing is changed; anything else lets it pass.
 */
@ConsumerType
public interface SubmitFilter extends Policy {

    Verdict check(JobSpec job, EngineView view);
}

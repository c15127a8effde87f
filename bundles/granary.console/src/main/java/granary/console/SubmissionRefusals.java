package granary.console;

import java.util.concurrent.atomic.AtomicLong;

import granary.api.event.InputEvent;
import granary.api.event.JobSubmitted;
import granary.api.event.JobsSubmitted;
import granary.engine.HandlingListener;

/**
 * Counts the job submissions the live engine refused, whoever sent them (the console, the demo, a job
 * master), so that {@code granary:status} says so (docs/operations.md, "What the console shows"): a
 * refused job is never in {@code jobs=}, and without this line a cluster that refuses every job looks
 * idle and healthy. Called on the engine thread; read from the console's.
 */
final class SubmissionRefusals implements HandlingListener {

    private final AtomicLong submissions = new AtomicLong();
    private final AtomicLong jobs = new AtomicLong();

    @Override
    public void handled(InputEvent event, long nanos, boolean accepted) {
        if (accepted) {
            return;
        }
        if (event instanceof JobSubmitted) {
            submissions.incrementAndGet();
            jobs.incrementAndGet();
        } else if (event instanceof JobsSubmitted batch) {
            submissions.incrementAndGet();
            jobs.addAndGet(batch.jobs().size());
        }
    }

    /** Refused submissions (a batch is one: it is refused whole). */
    long submissions() {
        return submissions.get();
    }

    /** The jobs in those submissions. */
    long jobs() {
        return jobs.get();
    }
}

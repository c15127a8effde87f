package granary.console;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

import granary.api.event.InputEvent;
import granary.api.event.JobSubmitted;
import granary.api.event.JobsSubmitted;
import granary.engine.HandlingListener;

/**
 * Counts the job submissions the live engine refused, whoever sent them (the console, the demo, a job
 * master), and their jobs by the refusal's reason, so that {@code granary:status} says so
 * (docs/operations.md, "What the console shows"): a refused job is never in {@code jobs=}, and without
 * these lines a cluster that refuses every job looks idle and healthy. Called on the engine thread;
 * read from the console's.
 */
final class SubmissionRefusals implements HandlingListener {

    private final AtomicLong submissions = new AtomicLong();
    private final AtomicLong jobs = new AtomicLong();
    private final Map<String, AtomicLong> jobsByReason = new ConcurrentHashMap<>();

    @Override
    public void handled(InputEvent event, long nanos, String refusal) {
        if (refusal == null) {
            return;
        }
        long n;
        if (event instanceof JobSubmitted) {
            n = 1;
        } else if (event instanceof JobsSubmitted batch) {
            n = batch.jobs().size();
        } else {
            return;
        }
        submissions.incrementAndGet();
        jobs.addAndGet(n);
        jobsByReason.computeIfAbsent(refusal, r -> new AtomicLong()).addAndGet(n);
    }

    /** Refused submissions (a batch is one: it is refused whole). */
    long submissions() {
        return submissions.get();
    }

    /** The jobs in those submissions. */
    long jobs() {
        return jobs.get();
    }

    /** The jobs in those submissions by the refusal's reason ({@code duplicate}, {@code unknown_group}, ...), sorted. */
    Map<String, Long> jobsByReason() {
        Map<String, Long> out = new TreeMap<>();
        jobsByReason.forEach((reason, n) -> out.put(reason, n.get()));
        return out;
    }
}

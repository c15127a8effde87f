package granary.demo;

import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;

import granary.api.model.InvalidRequestException;
import granary.api.model.NodeSpec;
import granary.api.event.Scheduler;
import granary.api.model.UnitId;
import granary.api.event.GrantReleased;
import granary.api.event.Granted;
import granary.api.event.JobCancelled;
import granary.api.event.JobSubmitted;
import granary.api.event.NodeAdded;
import granary.api.event.NodeRemoved;
import granary.api.event.OutputEvent;
import granary.api.spi.EngineView;

/**
 * The embedded demo: adds a cluster of in-process nodes to a {@link Scheduler} and feeds it a steady
 * stream of synthetic jobs whose tasks finish after a random time, so the scheduler's counters move.
 *
 * <p>Threads: arrivals and releases run on the demo's own single scheduler thread; grants arrive on
 * the engine thread, where the demo only schedules their releases (it never blocks there). Every
 * slot granted to a demo job is released once, after its task time; a release that the engine
 * refuses (the job was cancelled or the slot revoked meanwhile) is counted and ignored.
 *
 * <p>{@link #stop} leaves the scheduler as the demo found it: it cancels the demo's jobs and removes
 * the nodes it added (a node that still holds someone else's online work stays).
 */
public final class Demo {

    /** Upper bound for each wait on the engine (a query, the clean-up at stop). */
    private static final long CALL_TIMEOUT_SECONDS = 5;

    /** What the demo did so far. */
    public record Counters(long jobsSubmitted, long jobsRefused, long arrivalsCapped, long slotsGranted,
                           long slotsReleased, long releasesIgnored, long failures) {
    }

    private final Scheduler scheduler;
    private final DemoSettings settings;
    private final String ownPrefix;
    private final JobGenerator jobs;
    private final Random taskTimes;
    private final ScheduledExecutorService executor;
    private final Set<String> addedNodes = ConcurrentHashMap.newKeySet();
    private final AtomicLong jobsSubmitted = new AtomicLong();
    private final AtomicLong jobsRefused = new AtomicLong();
    private final AtomicLong arrivalsCapped = new AtomicLong();
    private final AtomicLong slotsGranted = new AtomicLong();
    private final AtomicLong slotsReleased = new AtomicLong();
    private final AtomicLong releasesIgnored = new AtomicLong();
    private final AtomicLong failures = new AtomicLong();
    private volatile Throwable lastFailure;
    private volatile boolean running;
    private boolean started;
    private AutoCloseable subscription;

    public Demo(Scheduler scheduler, DemoSettings settings) {
        this.scheduler = scheduler;
        this.settings = settings;
        this.ownPrefix = settings.jobPrefix() + "-";
        this.jobs = new JobGenerator(settings);
        this.taskTimes = new Random(settings.seed() + 1);
        this.executor = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "granary-demo");
            t.setDaemon(true);
            return t;
        });
    }

    /** Adds the nodes and starts the arrivals. A demo starts once. */
    public synchronized void start() {
        if (started) {
            throw new IllegalStateException("demo: already started; create a new one");
        }
        started = true;
        running = true;
        subscription = scheduler.subscribe(this::onOutput);
        for (NodeSpec node : DemoCluster.nodes(settings)) {
            scheduler.submit(new NodeAdded(node)).whenComplete((r, e) -> {
                // a refused node (its name is taken) is used, but not removed at stop: it is not the demo's
                if (e == null) {
                    addedNodes.add(node.name());
                } else if (!(cause(e) instanceof InvalidRequestException)) {
                    fail(e);
                }
            });
        }
        if (settings.jobsPerSecond() > 0) {
            long periodMicros = Math.max(1, Math.round(1_000_000 / settings.jobsPerSecond()));
            executor.scheduleAtFixedRate(this::arrive, periodMicros, periodMicros, TimeUnit.MICROSECONDS);
        }
    }

    /** Stops arrivals and releases, then cancels the demo's jobs and removes its nodes. Idempotent. */
    public synchronized void stop() {
        if (!running) {
            return;
        }
        running = false;
        closeSubscription();
        executor.shutdownNow();
        try {
            executor.awaitTermination(CALL_TIMEOUT_SECONDS, TimeUnit.SECONDS);
            cleanUp();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** True between {@link #start} and {@link #stop}. */
    public boolean running() {
        return running;
    }

    /** True once the demo's thread has ended after {@link #stop}. */
    public boolean terminated() {
        return executor.isTerminated();
    }

    public Counters counters() {
        return new Counters(jobsSubmitted.get(), jobsRefused.get(), arrivalsCapped.get(), slotsGranted.get(),
                slotsReleased.get(), releasesIgnored.get(), failures.get());
    }

    /** The last unexpected error (not a refused request), or null. */
    public Throwable lastFailure() {
        return lastFailure;
    }

    /** True if the job is one of the demo's. */
    public boolean owns(String jobId) {
        return jobId.startsWith(ownPrefix);
    }

    /** The demo's jobs in the engine now, waiting or running. Call on the engine thread (a query). */
    public int countOwnJobs(EngineView view) {
        int n = 0;
        for (var job : view.jobs()) {
            if (owns(job.id())) {
                n++;
            }
        }
        return n;
    }

    // ---- arrivals (demo thread) ----

    private void arrive() {
        try {
            int inEngine = scheduler.query(this::countOwnJobs).get(CALL_TIMEOUT_SECONDS, TimeUnit.SECONDS);
            if (!running) {
                return;
            }
            if (inEngine >= settings.maxRunningJobs()) {
                arrivalsCapped.incrementAndGet();   // wait for jobs to finish
                return;
            }
            scheduler.submit(new JobSubmitted(jobs.next())).whenComplete((r, e) -> {
                if (e == null) {
                    jobsSubmitted.incrementAndGet();
                } else if (cause(e) instanceof InvalidRequestException) {
                    jobsRefused.incrementAndGet();   // e.g. a submit filter of the active policies said no
                } else {
                    fail(e);
                }
            });
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException | RuntimeException e) {
            fail(e);   // never let the periodic task die: the next arrival tries again
        }
    }

    // ---- grants (engine thread) and releases (demo thread) ----

    private void onOutput(OutputEvent event) {
        if (!(event instanceof Granted g) || !running || !owns(g.unit().job())) {
            return;
        }
        slotsGranted.addAndGet(g.slots());
        try {
            for (int i = 0; i < g.slots(); i++) {
                executor.schedule(() -> release(g.unit(), g.node()), taskMillis(), TimeUnit.MILLISECONDS);
            }
        } catch (RejectedExecutionException e) {
            // stopping: the clean-up cancels the job anyway
        } catch (RuntimeException e) {
            fail(e);   // never throw into the engine: it would abort the scheduling cycle
        }
    }

    private long taskMillis() {
        long span = settings.maxTaskMillis() - settings.minTaskMillis();
        return settings.minTaskMillis() + (span == 0 ? 0 : (long) (taskTimes.nextDouble() * (span + 1)));
    }

    private void release(UnitId unit, String node) {
        scheduler.submit(new GrantReleased(unit, node, 1)).whenComplete((r, e) -> {
            if (e == null) {
                slotsReleased.incrementAndGet();
            } else if (cause(e) instanceof InvalidRequestException || !running) {
                releasesIgnored.incrementAndGet();   // cancelled or revoked meanwhile
            } else {
                fail(e);
            }
        });
    }

    // ---- stop ----

    private void closeSubscription() {
        try {
            subscription.close();
        } catch (Exception e) {
            fail(e);
        }
    }

    /** Cancels the demo's jobs, then removes its nodes; events run in order, so waiting for the last suffices. */
    private void cleanUp() throws InterruptedException {
        try {
            List<String> own = scheduler.query(view -> view.jobs().stream()
                    .map(j -> j.id()).filter(this::owns).toList()).get(CALL_TIMEOUT_SECONDS, TimeUnit.SECONDS);
            CompletableFuture<?> last = CompletableFuture.completedFuture(null);
            for (String job : own) {
                last = scheduler.submit(new JobCancelled(job));
            }
            for (String node : addedNodes) {
                last = scheduler.submit(new NodeRemoved(node, false));
            }
            last.handle((r, e) -> null).get(CALL_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        } catch (ExecutionException | TimeoutException e) {
            // the scheduler is stopping or stopped: nothing left to clean
        }
    }

    private void fail(Throwable e) {
        failures.incrementAndGet();
        lastFailure = cause(e);
    }

    private static Throwable cause(Throwable e) {
        while ((e instanceof CompletionException || e instanceof ExecutionException) && e.getCause() != null) {
            e = e.getCause();
        }
        return e;
    }
}

package granary.planner.live.model;

import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * Publishes the model to the UI at most once per pulse, however fast events come: 100,000 events a
 * second must not become 100,000 UI updates. At every pulse, if the model changed, one {@link Frame}
 * is copied out and handed to the UI executor; while the UI has not taken the previous frame, no
 * other is queued behind it (a slow UI gets fewer, fresher frames rather than a backlog).
 */
public final class Coalescer implements AutoCloseable {

    private final ClusterModel model;
    private final Executor ui;
    private final Consumer<Frame> sink;
    private final long pulseMillis;
    private final LongSupplier clock;
    private final AtomicBoolean inFlight = new AtomicBoolean();
    private ScheduledExecutorService timer;

    /**
     * @param ui          runs the sink on the UI thread ({@code Platform::runLater}; any executor in tests)
     * @param sink        takes each frame, on the UI thread
     * @param pulseMillis the shortest time between two frames (33: at most 30 a second)
     * @param clock       wall time in ms, for the model's group history
     */
    public Coalescer(ClusterModel model, Executor ui, Consumer<Frame> sink, long pulseMillis, LongSupplier clock) {
        if (pulseMillis <= 0) {
            throw new IllegalArgumentException("pulse must be positive, got " + pulseMillis + " ms");
        }
        this.model = model;
        this.ui = ui;
        this.sink = sink;
        this.pulseMillis = pulseMillis;
        this.clock = clock;
    }

    /** Starts pulsing on a daemon thread of its own. */
    public synchronized Coalescer start() {
        if (timer == null) {
            timer = Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "granary-live-frames");
                t.setDaemon(true);
                return t;
            });
            timer.scheduleAtFixedRate(this::pulse, 0, pulseMillis, TimeUnit.MILLISECONDS);
        }
        return this;
    }

    /**
     * One pulse: a frame to the UI if the model changed and the UI took the last one. Also called
     * directly by tests and by {@link #close()}'s callers that want the last state shown.
     */
    public void pulse() {
        model.tick(clock.getAsLong());
        if (!model.dirty() || !inFlight.compareAndSet(false, true)) {
            return;
        }
        Frame f;
        try {
            f = model.frame();
        } catch (RuntimeException e) {
            inFlight.set(false);
            throw e;
        }
        try {
            ui.execute(() -> {
                try {
                    sink.accept(f);
                } finally {
                    inFlight.set(false);
                }
            });
        } catch (RuntimeException e) {
            inFlight.set(false); // the UI executor refused (shutting down): nothing is in flight
        }
    }

    public long pulseMillis() {
        return pulseMillis;
    }

    @Override
    public synchronized void close() {
        if (timer != null) {
            timer.shutdownNow();
            try {
                timer.awaitTermination(2, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            timer = null;
        }
    }
}

package granary.engine;

import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Function;

import granary.api.event.Receipt;
import granary.api.event.Scheduler;
import granary.api.event.ClockTick;
import granary.api.event.EngineAccess;
import granary.api.event.InputEvent;
import granary.api.event.OutputEvent;
import granary.api.model.InvalidRequestException;
import granary.api.spi.EngineView;

/**
 * The live runtime's scheduler: one thread that owns an {@link Engine} and feeds it events and
 * queries from a queue, one at a time, so the engine needs no locks. While idle it sends a
 * {@link ClockTick} every {@code tickMillis} so that time-driven policies act. It times every event
 * it hands the engine and tells its {@link HandlingListener}s (the runtime's metrics) of it, and of
 * why the engine refused it.
 */
public final class EventLoop implements Scheduler, EngineHost, AutoCloseable {

    private final Engine engine;
    private final BlockingQueue<Runnable> tasks = new LinkedBlockingQueue<>();
    private volatile long tickMillis;
    private final Thread thread;
    private volatile boolean running = true;
    private long lastTick = System.nanoTime();
    private final List<HandlingListener> handlingListeners = new CopyOnWriteArrayList<>();

    public EventLoop(Engine engine, long tickMillis, String threadName) {
        this.engine = engine;
        this.tickMillis = tickMillis;
        this.thread = new Thread(this::run, threadName);
        this.thread.setDaemon(true);
    }

    /** Starts the loop thread; tasks queued before are run first, in order. */
    public EventLoop start() {
        thread.start();
        return this;
    }

    @Override
    public CompletableFuture<Receipt> submit(InputEvent event) {
        return call(e -> handle(e, event));
    }

    /** Handles one event on the loop thread, timed for the {@link HandlingListener}s. */
    private Receipt handle(Engine e, InputEvent event) {
        long start = System.nanoTime();
        String refusal = HandlingListener.ERROR;
        try {
            Receipt r = e.handle(event);
            refusal = null;
            return r;
        } catch (InvalidRequestException refused) {
            refusal = refused.reason();
            throw refused;
        } finally {
            long nanos = System.nanoTime() - start;
            for (HandlingListener l : handlingListeners) {
                try {
                    l.handled(event, nanos, refusal);
                } catch (RuntimeException ignored) {
                    // a monitor's fault must not touch scheduling: the event is handled already
                }
            }
        }
    }

    @Override
    public <T> CompletableFuture<T> query(Function<? super EngineView, T> query) {
        return call(e -> query.apply(e.view()));
    }

    @Override
    public <T> CompletableFuture<T> onEngine(Function<? super EngineAccess, T> work) {
        if (onLoopThread()) {
            try {
                return CompletableFuture.completedFuture(work.apply(access));
            } catch (RuntimeException | Error e) {
                return CompletableFuture.failedFuture(e);
            }
        }
        return call(e -> work.apply(access));
    }

    /** The engine as a task on this loop's thread sees it: events handled (and timed) at once. */
    private final EngineAccess access = new EngineAccess() {
        @Override
        public Receipt apply(InputEvent event) {
            return handle(engine, event);
        }

        @Override
        public EngineView view() {
            return engine.view();
        }

        @Override
        public void batch(Runnable work) {
            engine.batch(work);
        }
    };

    /** Runs any function on the engine thread. */
    @Override
    public <T> CompletableFuture<T> call(Function<Engine, T> work) {
        CompletableFuture<T> f = new CompletableFuture<>();
        if (!running) {
            f.completeExceptionally(new IllegalStateException("scheduler is stopped"));
            return f;
        }
        tasks.add(() -> {
            try {
                f.complete(work.apply(engine));
            } catch (RuntimeException | Error e) {
                f.completeExceptionally(e);
            }
        });
        return f;
    }

    @Override
    public AutoCloseable subscribe(Consumer<? super OutputEvent> listener) {
        engine.subscribe(listener);
        return () -> engine.unsubscribe(listener);
    }

    @Override
    public AutoCloseable watchHandling(HandlingListener listener) {
        handlingListeners.add(listener);
        return () -> handlingListeners.remove(listener);
    }

    /** Changes the idle tick period. */
    public void tickMillis(long ms) {
        this.tickMillis = Math.max(10, ms);
    }

    /** True once {@link #start} was called and until {@link #close}. */
    public boolean started() {
        return thread.isAlive() && running;
    }

    /** True if the caller runs on the loop thread (where waiting for a task would deadlock). */
    public boolean onLoopThread() {
        return Thread.currentThread() == thread;
    }

    private void run() {
        while (running) {
            try {
                long wait = tickMillis - TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - lastTick);
                Runnable task = wait > 0 ? tasks.poll(wait, TimeUnit.MILLISECONDS) : null;
                if (task != null) {
                    task.run();
                } else if (running) {
                    lastTick = System.nanoTime();
                    try {
                        handle(engine, new ClockTick());
                    } catch (RuntimeException e) {
                        // a tick cannot be invalid; a fault was already recorded by the engine
                    }
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    /** Stops the thread after the task at hand; pending tasks fail. */
    @Override
    public void close() {
        running = false;
        thread.interrupt();
        try {
            thread.join(5000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        Runnable r;
        while ((r = tasks.poll()) != null) {
            r.run();   // completes with the engine as it is; callers are not left hanging
        }
    }
}

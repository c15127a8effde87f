package granary.protocol.link;

import granary.api.model.Clock;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * A {@link Loop} on one daemon thread of its own: how an agent or a job master client runs in a
 * process. A task that throws is reported to {@code errors} and the loop goes on.
 */
public final class ThreadLoop implements Loop, AutoCloseable {

    private final Clock clock;
    private final Consumer<Throwable> errors;
    private final ScheduledThreadPoolExecutor executor;
    private volatile Thread thread;

    /**
     * @param name   the thread's name
     * @param errors told of every task that threw (the loop keeps running)
     */
    public ThreadLoop(String name, Clock clock, Consumer<Throwable> errors) {
        this.clock = clock;
        this.errors = errors;
        this.executor = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, name);
            t.setDaemon(true);
            thread = t;
            return t;
        });
        executor.setRemoveOnCancelPolicy(true);
        executor.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
    }

    @Override
    public long now() {
        return clock.millis();
    }

    @Override
    public void execute(Runnable task) {
        if (!executor.isShutdown()) {
            try {
                executor.execute(() -> run(task));
            } catch (java.util.concurrent.RejectedExecutionException ex) {
                // closed meanwhile: the task belongs to a loop that ended
            }
        }
    }

    @Override
    public Timer schedule(long delayMillis, Runnable task) {
        if (executor.isShutdown()) {
            return NONE;
        }
        try {
            ScheduledFuture<?> f = executor.schedule(() -> run(task), Math.max(0, delayMillis), TimeUnit.MILLISECONDS);
            return () -> f.cancel(false);
        } catch (java.util.concurrent.RejectedExecutionException ex) {
            return NONE;
        }
    }

    private void run(Runnable task) {
        try {
            task.run();
        } catch (RuntimeException | Error ex) {
            errors.accept(ex);
        }
    }

    /** True on the loop's own thread. */
    @Override
    public boolean inLoop() {
        return Thread.currentThread() == thread;
    }

    /**
     * Runs {@code task} on the loop and waits for its value: how another thread (an HTTP server's,
     * a caller's) reads or changes what the loop owns. On the loop itself it runs at once.
     *
     * @throws TimeoutException the loop did not get to it within {@code timeout}
     */
    public <T> T call(Supplier<T> task, Duration timeout) throws TimeoutException {
        if (inLoop()) {
            return task.get();
        }
        CompletableFuture<T> f = new CompletableFuture<>();
        execute(() -> {
            try {
                f.complete(task.get());
            } catch (RuntimeException ex) {
                f.completeExceptionally(ex);
            }
        });
        try {
            return f.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new TimeoutException("interrupted while waiting for the loop");
        } catch (ExecutionException ex) {
            if (ex.getCause() instanceof RuntimeException r) {
                throw r;
            }
            throw new IllegalStateException(ex.getCause());
        }
    }

    /** Stops the thread; tasks not run yet are dropped. Waits up to 2 s for a running task. */
    @Override
    public void close() {
        executor.shutdownNow();
        if (!inLoop()) {
            try {
                executor.awaitTermination(Duration.ofSeconds(2).toMillis(), TimeUnit.MILLISECONDS);
            } catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
        }
    }

    public boolean isClosed() {
        return executor.isShutdown();
    }
}

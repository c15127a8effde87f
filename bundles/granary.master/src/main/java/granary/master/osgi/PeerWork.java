package granary.master.osgi;

import granary.master.http.AsyncBody;
import jakarta.servlet.AsyncContext;
import jakarta.servlet.http.HttpServletResponse;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The peers' own threads (docs/security.md, "Limits"): what the master does for an agent's or a job
 * master's post or poll runs here, not on the HTTP server's threads. Jetty's threads only parse,
 * authenticate and move bytes, so a thousand peers queueing for the master never hold the threads
 * operators' API calls need, and operators' calls (limited apart) never hold the peers' work.
 * The master applies one message at a time anyway; a few threads keep decoding and encoding on
 * every core. The queue is bounded: past it a peer gets 503 with {@code Retry-After} and tries
 * again, as after a standby's answer.
 */
final class PeerWork implements AutoCloseable {

    /** Threads that run the master's side of peers' requests. */
    static final int THREADS = 8;
    /** Requests that may wait for one of them: more than 4 per peer of 10,000 peers. */
    static final int QUEUE = 50_000;

    private final ThreadPoolExecutor pool;

    PeerWork() {
        AtomicInteger n = new AtomicInteger();
        pool = new ThreadPoolExecutor(THREADS, THREADS, 60, TimeUnit.SECONDS, new ArrayBlockingQueue<>(QUEUE), r -> {
            Thread t = new Thread(r, "granary wire " + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
    }

    /**
     * Runs {@code task} (which answers the request of {@code async} and completes it) on a peers'
     * thread; if none can take it, answers 503 and completes it here.
     */
    void run(AsyncContext async, Runnable task) {
        try {
            pool.execute(task);
        } catch (RejectedExecutionException full) {
            sendAgainLater(async);
        }
    }

    /** Answers the request of {@code async} 503 with {@code Retry-After: 1} (the peer sends again) and completes it. */
    static void sendAgainLater(AsyncContext async) {
        try {
            HttpServletResponse resp = (HttpServletResponse) async.getResponse();
            resp.setStatus(503);
            resp.setHeader("Retry-After", "1");
        } catch (IllegalStateException ex) {
            // answered already
        } finally {
            AsyncBody.complete(async);
        }
    }

    /**
     * Where answers are handed to the container: a peers' thread, not the master's loop, which does
     * no network I/O (the write is non-blocking, but it runs the connection's flusher). Past the
     * queue the answer is handed over by the thread that completed it.
     */
    java.util.concurrent.Executor executor() {
        return task -> {
            try {
                pool.execute(task);
            } catch (RejectedExecutionException full) {
                task.run();
            }
        };
    }

    @Override
    public void close() {
        pool.shutdown();
    }
}

package granary.master.http;

import jakarta.servlet.AsyncContext;
import jakarta.servlet.ServletOutputStream;
import jakarta.servlet.WriteListener;
import java.io.IOException;

/**
 * Writes an answer's body without holding a thread while the caller does not read it
 * (docs/security.md, "Limits"): an asynchronous servlet write, the request completed once the body
 * has left. A peer that stops reading (a full socket, an HTTP/2 window it never opens) costs no
 * thread; its request ends with the async context's timeout. Before, the answer was written with a
 * blocking write on one of the peers' few threads: eight peers that did not read stopped every
 * other peer's answers.
 */
public final class AsyncAnswer implements WriteListener {

    private final AsyncContext async;
    private final ServletOutputStream out;
    private final byte[] body;
    /** The body was handed to the output (by the writer's thread at once, or by Jetty's). */
    private boolean written;
    /** The body has left and the request is completed. */
    private boolean done;

    private AsyncAnswer(AsyncContext async, ServletOutputStream out, byte[] body) {
        this.async = async;
        this.out = out;
        this.body = body;
    }

    /**
     * Writes {@code body} (status and headers set already) to the response of {@code async} and
     * completes it when the body has been written, or at once if it is empty. The body goes out on
     * the caller's thread when the connection can take it now, which is nearly always; otherwise when
     * Jetty says it can. Waiting for Jetty's call every time cost a thread switch per answer, and
     * under overload Jetty's queue of such calls outlasted the post's time: the container then
     * answered a post whose answer was ready 500 (benchmarks/RESULTS.md, "Answers written where
     * they are handed over").
     */
    public static void write(AsyncContext async, byte[] body) throws IOException {
        if (body.length == 0) {
            AsyncBody.complete(async);
            return;
        }
        ServletOutputStream out = async.getResponse().getOutputStream();
        AsyncAnswer a = new AsyncAnswer(async, out, body);
        out.setWriteListener(a);
        if (out.isReady()) {
            a.onWritePossible();
        }
    }

    /**
     * Called by the writer at once and by Jetty (after the listener is set, and when a write that could
     * not all go at once has gone): writes the body the first time, completes the request once it has
     * left. Synchronized because the first two calls may come on two threads together.
     */
    @Override
    public synchronized void onWritePossible() throws IOException {
        if (done) {
            return;
        }
        if (!written) {
            written = true;
            out.write(body);   // taken whole; if it could not all go now, isReady says so and we are called again
        }
        if (out.isReady()) {
            done = true;
            AsyncBody.complete(async);
        }
    }

    @Override
    public void onError(Throwable failure) {
        AsyncBody.complete(async);   // the caller went away
    }
}

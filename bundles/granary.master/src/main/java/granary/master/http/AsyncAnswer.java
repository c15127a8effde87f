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
    private boolean written;

    private AsyncAnswer(AsyncContext async, ServletOutputStream out, byte[] body) {
        this.async = async;
        this.out = out;
        this.body = body;
    }

    /**
     * Writes {@code body} (status and headers set already) to the response of {@code async} and
     * completes it when the body has been written, or at once if it is empty.
     */
    public static void write(AsyncContext async, byte[] body) throws IOException {
        if (body.length == 0) {
            AsyncBody.complete(async);
            return;
        }
        ServletOutputStream out = async.getResponse().getOutputStream();
        out.setWriteListener(new AsyncAnswer(async, out, body));
    }

    @Override
    public void onWritePossible() throws IOException {
        if (!written) {
            written = true;
            out.write(body);   // taken whole; if it could not all go now, isReady says so and we are called again
            if (!out.isReady()) {
                return;
            }
        }
        AsyncBody.complete(async);
    }

    @Override
    public void onError(Throwable failure) {
        AsyncBody.complete(async);   // the caller went away
    }
}

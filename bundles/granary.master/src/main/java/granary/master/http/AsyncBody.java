package granary.master.http;

import jakarta.servlet.AsyncContext;
import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;
import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletInputStream;
import java.io.IOException;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Reads a request's body as it arrives, holding no thread while bytes do not come (docs/security.md,
 * "Limits"): asynchronous servlet reads, at most {@code maxBytes} + 1 bytes kept (the one more says
 * "too large" without reading the rest), within the async context's timeout in all. Whatever
 * happens — the whole body, too large, the deadline, the caller gone — {@link Done} hears it exactly
 * once, and answers; it completes the context when it has (now, or later from another thread).
 * A body that is only to be dropped (a refused request's) is read the same way, keeping nothing.
 */
public final class AsyncBody implements ReadListener, AsyncListener {

    /** How a body's reading ended. */
    public enum End {
        /** All of it arrived (and it is at most the limit). */
        WHOLE,
        /** More than the limit arrived; the rest is not read. */
        TOO_LARGE,
        /** The context's timeout passed before the body ended. */
        TIMED_OUT,
        /** The connection failed or the caller went away: nobody to answer. */
        FAILED
    }

    /** Hears once how the body ended, with what was kept of it (empty when discarding). */
    @FunctionalInterface
    public interface Done {
        void accept(byte[] body, End end);
    }

    private final ServletInputStream in;
    private final long maxBytes;
    private final boolean keep;
    private final Done done;
    /**
     * What has arrived: sized by the request's Content-Length when it says one within the limit (a
     * peer's message is read into exactly its own array; at most {@value #FIRST_MAX} bytes before
     * any arrive, so a declared size alone holds little), else grown as bytes come; a discarded
     * body reads into a small array over and over.
     */
    private byte[] buf;
    private final AtomicBoolean ended = new AtomicBoolean();
    private long read;

    private AsyncBody(ServletInputStream in, long maxBytes, boolean keep, long declared, Done done) {
        this.in = in;
        this.maxBytes = maxBytes;
        this.keep = keep;
        this.done = done;
        // one byte more than declared: a body longer than its header said is seen, and refused as too large
        this.buf = new byte[!keep ? 1024 : declared >= 0 && declared <= maxBytes ? (int) Math.min(declared + 1, FIRST_MAX) : 1024];
    }

    /** The most bytes set aside for a body before any of it arrived. */
    static final int FIRST_MAX = 64 * 1024;

    /**
     * Reads the body of {@code async}'s request (started by the caller, its timeout set: the total
     * time the body may take) and tells {@code done}.
     */
    public static void read(AsyncContext async, long maxBytes, Done done) throws IOException {
        start(async, maxBytes, true, done);
    }

    /** Reads and drops the body of {@code async}'s request, then tells {@code done} (with an empty body). */
    public static void discard(AsyncContext async, long maxBytes, Done done) throws IOException {
        start(async, maxBytes, false, done);
    }

    private static void start(AsyncContext async, long maxBytes, boolean keep, Done done) throws IOException {
        ServletInputStream in = async.getRequest().getInputStream();
        AsyncBody reader = new AsyncBody(in, maxBytes, keep, async.getRequest().getContentLengthLong(), done);
        async.addListener(reader);
        in.setReadListener(reader);
    }

    /** Completes {@code async}, if the container has not (a timeout completes it by itself). */
    public static void complete(AsyncContext async) {
        try {
            async.complete();
        } catch (IllegalStateException ex) {
            // completed by the container already
        }
    }

    @Override
    public void onDataAvailable() throws IOException {
        while (in.isReady() && !in.isFinished()) {
            int at = keep ? (int) read : 0;
            if (keep && at == buf.length) {
                buf = Arrays.copyOf(buf, (int) Math.min((long) buf.length * 2, maxBytes + 1));
            }
            int n = in.read(buf, at, buf.length - at);
            if (n < 0) {
                break;
            }
            read += n;
            if (read > maxBytes) {
                end(End.TOO_LARGE);
                return;
            }
        }
        if (in.isFinished()) {
            end(End.WHOLE);
        }
    }

    @Override
    public void onAllDataRead() {
        end(End.WHOLE);
    }

    @Override
    public void onError(Throwable t) {
        end(End.FAILED);
    }

    @Override
    public void onTimeout(AsyncEvent event) {
        end(End.TIMED_OUT);
    }

    @Override
    public void onError(AsyncEvent event) {
        end(End.FAILED);
    }

    @Override
    public void onComplete(AsyncEvent event) {
    }

    @Override
    public void onStartAsync(AsyncEvent event) {
    }

    private void end(End end) {
        if (ended.compareAndSet(false, true)) {
            done.accept(keep ? (read == buf.length ? buf : Arrays.copyOf(buf, (int) read)) : new byte[0], end);
        }
    }
}

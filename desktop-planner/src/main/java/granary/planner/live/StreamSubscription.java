package granary.planner.live;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.Locale;

import granary.planner.live.model.ClusterModel;
import granary.planner.live.model.SseReader;
import granary.planner.live.model.StreamDecoder;
import granary.planner.master.ApiError;
import granary.planner.master.MasterClient;

/**
 * Keeps one master's allocation stream flowing into a {@link ClusterModel}, on a thread of its own:
 * after a drop it reconnects with {@code Last-Event-ID} (the master then sends what was missed, or a
 * snapshot) after a backoff that doubles up to a bound and starts again once events flow. A refusal
 * that another try cannot mend — 401 (no token or not this master's), 403 — ends it.
 */
public final class StreamSubscription implements AutoCloseable {

    /** Where the subscription stands, told from its thread. */
    public interface Listener {
        void state(ConnectionState state, String text);
    }

    private final MasterClient client;
    private final ClusterModel model;
    private final Listener listener;
    private final long minBackoffMillis;
    private final long maxBackoffMillis;
    private final long silenceMillis;
    private final Thread thread;
    private final Thread watchdog;
    private volatile boolean closed;
    private volatile InputStream current;
    /** When the current stream last gave bytes (System.nanoTime()). */
    private volatile long lastRead;
    private volatile boolean silent;

    /**
     * @param silenceMillis how long a stream may give nothing before it is taken for dead and
     *                      reopened: a master sends a keep-alive every 15 s, so a silent minute means
     *                      a connection that broke without a word (a partition, a suspended laptop)
     */
    public StreamSubscription(MasterClient client, ClusterModel model, Listener listener, long minBackoffMillis, long maxBackoffMillis,
                              long silenceMillis) {
        this.client = client;
        this.model = model;
        this.listener = listener;
        this.minBackoffMillis = minBackoffMillis;
        this.maxBackoffMillis = Math.max(minBackoffMillis, maxBackoffMillis);
        this.silenceMillis = silenceMillis;
        this.thread = new Thread(this::run, "granary-live-stream");
        this.thread.setDaemon(true);
        this.watchdog = new Thread(this::watch, "granary-live-stream-watchdog");
        this.watchdog.setDaemon(true);
    }

    public StreamSubscription start() {
        thread.start();
        watchdog.start();
        return this;
    }

    /** Closes a stream that has been silent too long: its reader then fails and reconnects. */
    private void watch() {
        while (!closed) {
            try {
                Thread.sleep(Math.max(10, silenceMillis / 4));
            } catch (InterruptedException e) {
                return;
            }
            InputStream in = current;
            if (in != null && System.nanoTime() - lastRead > silenceMillis * 1_000_000L) {
                silent = true;
                try {
                    in.close();
                } catch (IOException e) {
                    // closing to unblock the reader: nothing more to do
                }
            }
        }
    }

    /** Notes the time of every read, for the watchdog. */
    private final class Watched extends FilterInputStream {
        Watched(InputStream in) {
            super(in);
        }

        @Override
        public int read() throws IOException {
            int b = super.read();
            lastRead = System.nanoTime();
            return b;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            int n = super.read(b, off, len);
            lastRead = System.nanoTime();
            return n;
        }
    }

    private void run() {
        long backoff = minBackoffMillis;
        boolean first = true;
        while (!closed) {
            String resume = model.lastEventId();
            listener.state(first ? ConnectionState.CONNECTING : ConnectionState.RECONNECTING,
                    (first ? "connecting to " : "reconnecting to ") + client.api() + "/stream" + (resume == null ? "" : " after event " + resume));
            String why;
            silent = false;
            try (InputStream in = new Watched(client.stream(resume))) {
                lastRead = System.nanoTime();
                current = in;
                if (closed) {
                    return;
                }
                listener.state(ConnectionState.CONNECTED, "connected to " + client.api() + "/stream");
                SseReader reader = new SseReader(in, new StreamDecoder(model));
                reader.run();
                if (reader.line() > 0) {
                    backoff = minBackoffMillis; // it worked for a while: the next drop starts the backoff again
                }
                why = silent ? silence() : "the master ended the stream";
            } catch (ApiError e) {
                if (e.status() == 401 || e.status() == 403) {
                    listener.state(ConnectionState.FAILED, refusal(e));
                    return;
                }
                why = e.describe();
            } catch (IOException e) {
                why = silent ? silence() : "the stream broke off\ndetails: " + e.getClass().getSimpleName()
                        + (e.getMessage() == null ? "" : ": " + e.getMessage());
            } finally {
                current = null;
            }
            if (closed) {
                return;
            }
            first = false;
            listener.state(ConnectionState.RECONNECTING, why + "; retrying in " + seconds(backoff)
                    + (model.lastEventId() == null ? "" : " after event " + model.lastEventId()));
            try {
                Thread.sleep(backoff);
            } catch (InterruptedException e) {
                return; // closed
            }
            backoff = Math.min(maxBackoffMillis, backoff * 2);
        }
    }

    private String silence() {
        return "the stream gave nothing for " + seconds(silenceMillis) + " (a master sends a keep-alive every 15 s)";
    }

    private static String refusal(ApiError e) {
        String hint = e.status() == 401
                ? " (the token is missing or not one of this master's: issue one with --issue-token=reader/NAME)"
                : " (the token's role may not read the stream: a reader token is needed)";
        return e.describe() + hint;
    }

    private static String seconds(long millis) {
        return millis < 1000 ? millis + " ms" : String.format(Locale.ROOT, "%.0f s", millis / 1000.0);
    }

    /** Stops reading: closes the stream and waits (bounded) for the thread to end. */
    @Override
    public void close() {
        closed = true;
        InputStream in = current;
        if (in != null) {
            try {
                in.close();
            } catch (IOException e) {
                // closing to unblock the reader: nothing more to do
            }
        }
        thread.interrupt();
        watchdog.interrupt();
        try {
            thread.join(2000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}

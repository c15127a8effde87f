package granary.protocol.link;

import granary.api.model.Problem;
import granary.protocol.Ack;
import granary.protocol.Envelope;
import granary.protocol.Message;
import granary.protocol.ProtocolException;
import granary.protocol.Sender;
import granary.protocol.WireCodec;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import javax.net.ssl.SSLContext;

/**
 * One peer's connection to a server (an agent's or job master's to the master, a job master's to an
 * agent): numbers its envelopes, posts them with retries, and reads the server's inbox.
 *
 * <p>Exactly once: a message that got no answer (a timeout, a dropped connection, a 5xx) is posted
 * again with the <em>same</em> sequence number, so the server applies it once however often it
 * arrives. If every retry fails, {@link #send} throws {@link LinkException.Kind#UNREACHABLE} and
 * keeps the envelope: the next {@code send} posts it first.
 *
 * <p>Re-sync: every reply names the server's incarnation. When it changes the server restarted and
 * holds nothing of this peer: numbering starts again at 1 and the call throws
 * {@link LinkException.Kind#RESTARTED}; the caller then sends its full state (an agent registers, a
 * job master sends a full request).
 *
 * <p>{@link #send} calls are serialized; {@link #poll} may run concurrently on another thread.
 */
public final class PeerLink {

    /**
     * @param requestTimeout longest wait for one answer (an inbox poll waits its wait on top)
     * @param retries        how many times a message is posted again after no answer
     * @param backoff        pause before the first retry; doubled each time, at most 5 s
     * @param tls            the SSL context for {@code https} servers, or null for the JDK default
     */
    public record Options(Duration requestTimeout, int retries, Duration backoff, SSLContext tls) {
        public static Options defaults() {
            return new Options(Duration.ofSeconds(10), 5, Duration.ofMillis(200), null);
        }

        public Options withRetries(int n) {
            return new Options(requestTimeout, n, backoff, tls);
        }

        public Options withTls(SSLContext context) {
            return new Options(requestTimeout, retries, backoff, context);
        }
    }

    private final URI base;
    private final Sender self;
    private final long incarnation;
    private final String authorization;
    private final Options options;
    private final WireCodec codec;
    private final HttpClient http;
    private final Object sending = new Object();
    private long nextSequence = 1;
    private Envelope pending;
    private volatile Long serverIncarnation;
    private long received;

    public PeerLink(URI base, Sender self, long incarnation, String token, Options options) {
        this.base = Objects.requireNonNull(base, "base");
        this.self = Objects.requireNonNull(self, "self");
        this.incarnation = incarnation;
        this.authorization = "Bearer " + Objects.requireNonNull(token, "token");
        this.options = Objects.requireNonNull(options, "options");
        this.codec = new WireCodec(self.role());
        HttpClient.Builder b = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(options.requestTimeout());
        if (options.tls() != null) {
            b.sslContext(options.tls());
        }
        this.http = b.build();
    }

    public URI base() {
        return base;
    }

    public Sender self() {
        return self;
    }

    public long incarnation() {
        return incarnation;
    }

    /** The server's incarnation seen last, or null before its first answer. */
    public Long serverIncarnation() {
        return serverIncarnation;
    }

    /**
     * Sends {@code m} as the next envelope and returns the server's ack (applied, or refused with
     * problems; a refusal is an answer, not an exception).
     *
     * @throws LinkException no answer after the retries, a refused token, or a restarted server
     */
    public Ack send(Message m) {
        synchronized (sending) {
            if (pending != null) {
                post(pending);
                pending = null;
            }
            Envelope e = Envelope.of(self, incarnation, nextSequence++, m);
            pending = e;
            Ack ack = post(e);
            pending = null;
            return ack;
        }
    }

    /**
     * Asks the server's inbox for its next envelope after the last one received, waiting up to
     * {@code waitMillis}; acknowledges everything received before.
     *
     * @return the envelope, or empty if none came within the wait (or it was a repeat)
     * @throws LinkException as {@link #send}; UNREACHABLE after one failed attempt (the caller polls again)
     */
    public Optional<Envelope> poll(long waitMillis) {
        long after;
        synchronized (this) {
            after = received;
        }
        URI uri = base.resolve(Paths.INBOX + "?after=" + after + "&wait=" + waitMillis + "&incarnation=" + incarnation);
        HttpRequest req = HttpRequest.newBuilder(uri).timeout(options.requestTimeout().plusMillis(waitMillis))
                .header("Authorization", authorization).GET().build();
        HttpResponse<byte[]> resp;
        try {
            resp = http.send(req, HttpResponse.BodyHandlers.ofByteArray());
        } catch (IOException ex) {
            throw new LinkException(LinkException.Kind.UNREACHABLE, "cannot reach " + uri + ": " + ex, List.of(), ex);
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new LinkException(LinkException.Kind.UNREACHABLE, "interrupted while polling " + uri, List.of(), ex);
        }
        if (resp.statusCode() == 204) {
            return Optional.empty();
        }
        Envelope e = answer(uri, resp);
        if (e.message() instanceof Ack a && a.isRefusal()) {
            throw new LinkException(resp.statusCode() == 409 ? LinkException.Kind.FORGOTTEN : LinkException.Kind.PROTOCOL,
                    uri + " refused the poll: " + a.problems(), a.problems(), null);
        }
        synchronized (this) {
            if (e.sequence() != received + 1) {
                return Optional.empty();
            }
            received = e.sequence();
        }
        return Optional.of(e);
    }

    private Ack post(Envelope e) {
        byte[] body = codec.encode(e);
        URI uri = base.resolve(Paths.MESSAGES);
        long pause = options.backoff().toMillis();
        IOException last = null;
        for (int attempt = 0; attempt <= options.retries(); attempt++) {
            if (attempt > 0) {
                sleep(pause);
                pause = Math.min(pause * 2, 5_000);
            }
            HttpRequest req = HttpRequest.newBuilder(uri).timeout(options.requestTimeout())
                    .header("Authorization", authorization).header("Content-Type", Reply.CONTENT_TYPE)
                    .POST(HttpRequest.BodyPublishers.ofByteArray(body)).build();
            HttpResponse<byte[]> resp;
            try {
                resp = http.send(req, HttpResponse.BodyHandlers.ofByteArray());
            } catch (IOException ex) {
                last = ex;
                continue;
            } catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                throw new LinkException(LinkException.Kind.UNREACHABLE, "interrupted while sending to " + uri, List.of(), ex);
            }
            if (resp.statusCode() >= 500) {
                last = new IOException("HTTP " + resp.statusCode());
                continue;
            }
            Envelope reply = answer(uri, resp);
            if (!(reply.message() instanceof Ack ack)) {
                throw new LinkException(LinkException.Kind.PROTOCOL, uri + " answered a " + reply.message().type()
                        + " where an ack was due", List.of(), null);
            }
            return ack;
        }
        throw new LinkException(LinkException.Kind.UNREACHABLE, "no answer from " + uri + " after "
                + (options.retries() + 1) + " attempts: " + last, List.of(), last);
    }

    /** Reads a reply envelope; notes the server's incarnation; turns 401/403 and a restart into exceptions. */
    private Envelope answer(URI uri, HttpResponse<byte[]> resp) {
        Envelope e;
        try {
            e = codec.decode(resp.body(), uri.toString());
        } catch (ProtocolException ex) {
            throw new LinkException(LinkException.Kind.PROTOCOL, uri + " answered HTTP " + resp.statusCode()
                    + " with a body that is not an envelope: " + ex.getMessage(), ex.problems(), ex);
        }
        if (resp.statusCode() == 401 || resp.statusCode() == 403) {
            List<Problem> problems = e.message() instanceof Ack a ? a.problems() : List.of();
            throw new LinkException(LinkException.Kind.UNAUTHORIZED, uri + " refused the token of " + self
                    + " (HTTP " + resp.statusCode() + ")" + (problems.isEmpty() ? "" : ": " + problems.get(0).message()), problems, null);
        }
        if (resp.statusCode() == 404) {
            throw new LinkException(LinkException.Kind.PROTOCOL, uri + " is not a Granary endpoint (HTTP 404)", List.of(), null);
        }
        Long seen = serverIncarnation;
        if (seen == null || e.incarnation() > seen) {
            serverIncarnation = e.incarnation();
            if (seen != null) {
                restart();
                throw new LinkException(LinkException.Kind.RESTARTED, e.sender() + " restarted (incarnation " + seen
                        + " → " + e.incarnation() + "): send the full state again", List.of(), null);
            }
        } else if (e.incarnation() < seen) {
            throw new LinkException(LinkException.Kind.PROTOCOL, "an answer from " + e.sender() + " incarnation "
                    + e.incarnation() + ", which ended when " + seen + " began", List.of(), null);
        }
        return e;
    }

    private void restart() {
        synchronized (this) {
            received = 0;
        }
        nextSequence = 1;
        pending = null;
    }

    /** The pause before a retry ({@link Options#backoff()}): the same envelope is posted again after it. */
    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new LinkException(LinkException.Kind.UNREACHABLE, "interrupted", List.of(), ex);
        }
    }
}

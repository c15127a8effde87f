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
 * <p>Several masters (high availability, docs/ha.md): a link may be given a list of master URLs. It
 * talks to one at a time; when that one cannot be reached (or answers 5xx) the next one in the list
 * is tried, and a standby's refusal ({@link Standby#STATUS} with the leader's URL in
 * {@link Standby#LEADER_HEADER}) is followed at once. A new leader answers with a larger
 * incarnation (its leadership epoch), so the peer re-syncs as after a restart.
 *
 * <p>Fencing: an answer from a server incarnation smaller than the largest one seen (a deposed
 * leader still answering) is never taken: a reply to {@link #send} counts as no answer and the next
 * master is tried, an inbox envelope is dropped unacknowledged.
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

    private final List<URI> servers;
    private volatile URI base;
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
        this(List.of(Objects.requireNonNull(base, "base")), self, incarnation, token, options);
    }

    /**
     * A link to whichever of {@code servers} leads (one of them, or one they point to); starts with
     * the first.
     */
    public PeerLink(List<URI> servers, Sender self, long incarnation, String token, Options options) {
        if (servers.isEmpty()) {
            throw new IllegalArgumentException("a link needs at least one server URL");
        }
        this.servers = List.copyOf(servers);
        this.base = this.servers.get(0);
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

    /** The server talked to now (with several masters: the one believed to lead). */
    public URI base() {
        return base;
    }

    /** Every server URL this link was given, in order. */
    public List<URI> servers() {
        return servers;
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
        URI server = base;
        URI uri = server.resolve(Paths.INBOX + "?after=" + after + "&wait=" + waitMillis + "&incarnation=" + incarnation);
        HttpRequest req = HttpRequest.newBuilder(uri).timeout(options.requestTimeout().plusMillis(waitMillis))
                .header("Authorization", authorization).GET().build();
        HttpResponse<byte[]> resp;
        try {
            resp = http.send(req, HttpResponse.BodyHandlers.ofByteArray());
        } catch (IOException ex) {
            next(server);
            throw new LinkException(LinkException.Kind.UNREACHABLE, "cannot reach " + uri + ": " + ex, List.of(), ex);
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new LinkException(LinkException.Kind.UNREACHABLE, "interrupted while polling " + uri, List.of(), ex);
        }
        if (resp.statusCode() == 204) {
            return Optional.empty();
        }
        if (resp.statusCode() == Standby.STATUS) {
            follow(server, resp);
            return Optional.empty();
        }
        if (resp.statusCode() >= 500) {
            next(server);
            throw new LinkException(LinkException.Kind.UNREACHABLE, uri + " answered HTTP " + resp.statusCode()
                    + standbyText(resp), List.of(), null);
        }
        Envelope e;
        try {
            e = answer(uri, resp);
        } catch (Fenced f) {
            next(server);
            return Optional.empty();
        }
        if (e.message() instanceof Ack a && a.isRefusal()) {
            LinkException.Kind kind = resp.statusCode() != 409 ? LinkException.Kind.PROTOCOL
                    : LinkException.fencing(a.problems()) ? LinkException.Kind.FENCED : LinkException.Kind.FORGOTTEN;
            throw new LinkException(kind,
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
        long pause = options.backoff().toMillis();
        IOException last = null;
        int redirects = 0;
        URI uri = base.resolve(Paths.MESSAGES);
        for (int attempt = 0; attempt <= options.retries(); attempt++) {
            if (attempt > 0) {
                sleep(pause);
                pause = Math.min(pause * 2, 5_000);
            }
            URI server = base;
            uri = server.resolve(Paths.MESSAGES);
            HttpRequest req = HttpRequest.newBuilder(uri).timeout(options.requestTimeout())
                    .header("Authorization", authorization).header("Content-Type", Reply.CONTENT_TYPE)
                    .POST(HttpRequest.BodyPublishers.ofByteArray(body)).build();
            HttpResponse<byte[]> resp;
            try {
                resp = http.send(req, HttpResponse.BodyHandlers.ofByteArray());
            } catch (IOException ex) {
                last = ex;
                next(server);
                continue;
            } catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                throw new LinkException(LinkException.Kind.UNREACHABLE, "interrupted while sending to " + uri, List.of(), ex);
            }
            if (resp.statusCode() == Standby.STATUS && redirects < 2 * servers.size() + 2) {
                redirects++;
                follow(server, resp);
                attempt--; // following a standby's pointer is not a failed attempt
                continue;
            }
            if (resp.statusCode() >= 500 || resp.statusCode() == Standby.STATUS) {
                last = new IOException("HTTP " + resp.statusCode() + standbyText(resp));
                next(server);
                continue;
            }
            Envelope reply;
            try {
                reply = answer(uri, resp);
            } catch (Fenced f) {
                last = new IOException(f.getMessage());
                next(server);
                continue;
            }
            if (!(reply.message() instanceof Ack ack)) {
                throw new LinkException(LinkException.Kind.PROTOCOL, uri + " answered a " + reply.message().type()
                        + " where an ack was due", List.of(), null);
            }
            if (resp.statusCode() == 409 && LinkException.fencing(ack.problems())) {
                throw new LinkException(LinkException.Kind.FENCED, uri + " fenced " + self + " incarnation " + incarnation
                        + ": " + ack.problems().get(0).message(), ack.problems(), null);
            }
            if (resp.statusCode() == 409 && ack.problems().stream().anyMatch(p -> "sequence".equals(p.field())
                    && Long.valueOf(1).equals(p.limit()))) {
                // The server holds no session of this incarnation (it restarted, and our first number
                // went to a message it refused before any session, e.g. a heartbeat before the
                // registration): numbering starts again, and the caller sends its full state.
                restart();
                throw new LinkException(LinkException.Kind.RESTARTED, uri + " holds no session of " + self + " incarnation "
                        + incarnation + ": numbering starts again at 1; send the full state", ack.problems(), null);
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
            throw new Fenced("an answer from " + e.sender() + " incarnation " + e.incarnation() + " at " + uri
                    + ", which ended when " + seen + " began (fenced: ignored)");
        }
        return e;
    }

    /** An answer from an incarnation older than the newest one seen: a deposed master's. */
    static final class Fenced extends LinkException {
        private static final long serialVersionUID = 1L;

        Fenced(String message) {
            super(LinkException.Kind.PROTOCOL, message, List.of(), null);
        }
    }

    /** {@code from} failed or is fenced: with several servers, the next one in the list is tried. */
    private void next(URI from) {
        if (servers.size() > 1 && base.equals(from)) {
            int i = servers.indexOf(from);
            base = servers.get((i + 1) % servers.size()); // -1 (a followed pointer) + 1 = the first
        }
    }

    /** A standby named the leader: talk to it from now on (or to the next server if it named none). */
    private void follow(URI from, HttpResponse<byte[]> resp) {
        Optional<String> leader = resp.headers().firstValue(Standby.LEADER_HEADER);
        URI to = null;
        if (leader.isPresent()) {
            try {
                URI u = URI.create(leader.get().trim());
                if ((u.getScheme() != null && u.getScheme().startsWith("http")) && u.getHost() != null) {
                    to = u;
                }
            } catch (IllegalArgumentException ex) {
                // not a URL: try the next server instead
            }
        }
        if (to == null || to.equals(from)) {
            next(from);
        } else if (base.equals(from)) {
            base = to;
        }
    }

    private static String standbyText(HttpResponse<byte[]> resp) {
        return resp.headers().firstValue(Standby.LEADER_HEADER).map(l -> " (a standby; leader " + l + ")").orElse("");
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

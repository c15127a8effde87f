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
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * One peer's connection to a server (an agent's or a job master's to the master, a job master's
 * to an agent), written for a {@link Loop}: every method is called on the loop, and every answer
 * comes back as a task on it. Nothing blocks, nothing is locked. The same class runs over HTTP in
 * a process and over the simulated wire in the conformance kit (docs/recovery.md).
 *
 * <p><b>Exactly once.</b> Messages are sent one at a time, in the order given. A message gets its
 * sequence number when it is first posted and is posted again with that same number until an answer
 * comes — however long the server is away (a timeout, a refused connection, a 5xx, a 401 while a
 * master restarts with another secret): the server applies it once however often it arrives. Each
 * failed attempt is reported to the {@link Watcher} ({@link Watcher#trouble}), which decides whether
 * to go on; the pause between attempts doubles up to {@link Options#maxBackoff}, each pause spread
 * ({@link #spread}) so that peers failing together do not try again together. A message never
 * posted yet can be taken back ({@link #cancelQueued}); one posted may have been applied.
 *
 * <p><b>Re-sync.</b> Every answer names the server's incarnation. A larger one than seen before
 * means the server restarted and holds nothing of this peer: numbering starts again at 1, every
 * message not answered yet ends with {@link LinkException.Kind#RESTARTED}, and
 * {@link Watcher#restarted} tells the owner to send its full state. The same happens when the
 * server says it holds no session of this incarnation (a 409 asking to resend from 1).
 *
 * <p><b>Several masters</b> (docs/ha.md): the link talks to one server of its list at a time, moves
 * to the next when one cannot be reached or answers 5xx, and follows a standby's pointer
 * ({@link Standby#STATUS}) at once. <b>Fencing:</b> an answer from a server incarnation smaller than
 * the largest seen (a deposed leader) is never taken: for a post it counts as no answer, an inbox
 * envelope is dropped unacknowledged.
 */
public final class Link {

    /**
     * @param requestTimeout longest wait for one answer (an inbox poll waits its wait on top)
     * @param backoff        pause before the first attempt again; doubled each time
     * @param maxBackoff     the longest pause between attempts
     * @param refusalsFinal  true: a 401, 403 or 404 ends the message with that failure (it was not
     *                       applied; its number is used again) — for a job master's plans to an agent,
     *                       whose refusal of a token does not pass. False: such an answer is trouble
     *                       like any other and the message is posted again — for the master, which
     *                       answers 401 while it restarts with another secret
     */
    public record Options(Duration requestTimeout, Duration backoff, Duration maxBackoff, boolean refusalsFinal) {
        public Options {
            Objects.requireNonNull(requestTimeout, "requestTimeout");
            Objects.requireNonNull(backoff, "backoff");
            Objects.requireNonNull(maxBackoff, "maxBackoff");
        }

        public static Options defaults() {
            return new Options(Duration.ofSeconds(10), Duration.ofMillis(200), Duration.ofSeconds(5), false);
        }

        public Options withRequestTimeout(Duration d) {
            return new Options(d, backoff, maxBackoff, refusalsFinal);
        }

        public Options withBackoff(Duration first, Duration max) {
            return new Options(requestTimeout, first, max, refusalsFinal);
        }

        public Options withRefusalsFinal(boolean b) {
            return new Options(requestTimeout, backoff, maxBackoff, b);
        }
    }

    /** What became of a message: the server's ack and HTTP status, or why no answer will come. */
    public record Outcome(Ack ack, int status, LinkException failure) {
        public boolean answered() {
            return failure == null;
        }
    }

    /** What one poll of the server's inbox brought: an envelope, nothing (both null), or a failure. */
    public record Polled(Envelope envelope, LinkException failure) {
        static final Polled NOTHING = new Polled(null, null);
    }

    /** What the link tells its owner, on the loop. */
    public interface Watcher {
        /**
         * The server is a new incarnation ({@code incarnation}), or holds no session of this peer:
         * every message not answered ended with RESTARTED; send the full state again.
         */
        default void restarted(long incarnation) {
        }

        /** An attempt to post failed; the link posts again after a pause. {@code failingFor}: since the first failure. */
        default void trouble(LinkException why, long failingForMillis) {
        }

        /** A post was answered again after {@link #trouble}. */
        default void restored() {
        }
    }

    private record Pending(Message message, Consumer<Outcome> done) {
    }

    private static final Watcher QUIET = new Watcher() {
    };
    /** A server's answer when too many of this peer's requests are open there: tried again later. */
    static final int TOO_MANY = 429;

    private final List<URI> servers;
    private URI base;
    private final Sender self;
    private final long incarnation;
    private String authorization;
    private final Options options;
    private final Transport transport;
    private final Loop loop;
    private final WireCodec codec;
    private Watcher watcher = QUIET;
    private final Deque<Pending> queue = new ArrayDeque<>();
    private Pending inFlight;
    private Envelope inFlightEnvelope;
    private long nextSequence = 1;
    private long received;
    private Long serverIncarnation;
    /** A server started anew took our number 1 (see {@link #noteIncarnation}): the owner is told once the answer is handed over; 0: none. */
    private long restartedInStep;
    /** Changes whenever numbering restarts or the link closes: answers to older calls are dropped. */
    private long generation;
    private Loop.Timer retry = Loop.NONE;
    private long pause;
    /** Spreads pauses (see {@link #spread}); seeded from the peer and its incarnation, so a run is reproducible. */
    private final java.util.SplittableRandom spread;
    private long failingSince = -1;
    private int redirects;
    private boolean polling;
    private boolean closed;
    private LinkException fenced;

    /**
     * Sends {@code token} from now on, also with messages already queued (a job master's plan pass
     * for an agent, renewed by the master: docs/security.md, "Plan passes").
     */
    public void authorize(String token) {
        this.authorization = "Bearer " + Objects.requireNonNull(token, "token");
    }

    /**
     * A link to whichever of {@code servers} serves (one of them, or one they point to); starts with
     * the first.
     *
     * @param token this peer's token, sent as {@code Authorization: Bearer}
     */
    public Link(List<URI> servers, Sender self, long incarnation, String token, Options options, Transport transport, Loop loop) {
        if (servers.isEmpty()) {
            throw new IllegalArgumentException("a link needs at least one server URL");
        }
        this.servers = List.copyOf(servers);
        this.base = this.servers.get(0);
        this.self = Objects.requireNonNull(self, "self");
        this.incarnation = incarnation;
        this.authorization = "Bearer " + Objects.requireNonNull(token, "token");
        this.options = Objects.requireNonNull(options, "options");
        this.transport = Objects.requireNonNull(transport, "transport");
        this.loop = Objects.requireNonNull(loop, "loop");
        this.codec = new WireCodec(self.role());
        this.spread = new java.util.SplittableRandom(self.toString().hashCode() * 0x9E3779B97F4A7C15L ^ incarnation);
    }

    /** Who is told of restarts and trouble. */
    public Link watch(Watcher w) {
        this.watcher = Objects.requireNonNull(w, "watcher");
        return this;
    }

    /** The server talked to now (with several masters: the one believed to serve). */
    public URI base() {
        return base;
    }

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

    /** Messages given and not answered yet (the one in flight included). */
    public int unanswered() {
        return queue.size() + (inFlight == null ? 0 : 1);
    }

    /**
     * {@code millis} spread over its upper half ({@code [millis/2, millis]}): the pause a peer takes
     * before trying again. Peers that lose their master together (it died, it restarts) would
     * otherwise come back in step, every one of them at each doubling of the pause, and the master's
     * start is spent answering that storm (benchmarks/RESULTS.md, "Recovery at 20,000 agents: the collector,
     * the reader, the port, the retries").
     * Each link draws from its own sequence, seeded from its peer and incarnation.
     */
    public long spread(long millis) {
        return millis <= 1 ? millis : millis - spread.nextLong(millis / 2 + 1);
    }

    /**
     * The pause before an inbox poll again after a failed one: half a second, plus a quarter of how
     * long the link has been failing, up to {@link Options#maxBackoff} (at least half a second), spread.
     */
    public long pollPause() {
        long failing = Math.max(0, failingForMillis());
        return spread(Math.min(Math.max(500, options.maxBackoff().toMillis()), 500 + failing / 4));
    }

    /** Milliseconds since posts began to fail, or -1 while they are answered. */
    public long failingForMillis() {
        return failingSince < 0 ? -1 : loop.now() - failingSince;
    }

    // ---- sending ----------------------------------------------------------------------------------

    /** Sends {@code m} after the messages given before; {@code done} runs on the loop with its outcome. */
    public void send(Message m, Consumer<Outcome> done) {
        Objects.requireNonNull(m, "message");
        Objects.requireNonNull(done, "done");
        if (closed || fenced != null) {
            LinkException why = fenced != null ? fenced : closedFailure();
            loop.execute(() -> done.accept(new Outcome(null, 0, why)));
            return;
        }
        queue.add(new Pending(m, done));
        pump();
    }

    /**
     * Takes back the messages not posted yet that {@code which} selects (their {@code done} is not
     * called); returns them. The one in flight stays: it may have been applied.
     */
    public List<Message> cancelQueued(Predicate<Message> which) {
        List<Message> out = new ArrayList<>();
        queue.removeIf(p -> {
            if (which.test(p.message())) {
                out.add(p.message());
                return true;
            }
            return false;
        });
        return out;
    }

    private void pump() {
        if (inFlight != null || queue.isEmpty() || closed) {
            return;
        }
        inFlight = queue.poll();
        inFlightEnvelope = Envelope.of(self, incarnation, nextSequence++, inFlight.message());
        redirects = 0;
        attempt();
    }

    private void attempt() {
        Pending p = inFlight;
        long gen = generation;
        URI server = base;
        byte[] body = codec.encode(inFlightEnvelope);
        URI uri = server.resolve(Paths.MESSAGES);
        transport.exchange(new Transport.Call("POST", uri, authorization, body, options.requestTimeout()), loop,
                (resp, io) -> {
                    if (gen == generation && p == inFlight && !closed) {
                        answered(server, uri, resp, io);
                    }
                });
    }

    private void answered(URI server, URI uri, Transport.Response resp, IOException io) {
        if (io != null) {
            next(server);
            failed(LinkException.Kind.UNREACHABLE, "cannot reach " + uri + ": " + text(io));
            return;
        }
        if (resp.status() == Standby.STATUS && redirects < 2 * servers.size() + 2) {
            redirects++;
            follow(server, resp.leader());
            attempt(); // following a standby's pointer is not a failed attempt
            return;
        }
        if (resp.status() == TOO_MANY) {
            // too many of this peer's requests open at this server (docs/security.md, "Limits"): again, later, here
            failed(LinkException.Kind.UNREACHABLE, uri + " answered HTTP 429: too many requests of " + self + " open" + detail(resp));
            return;
        }
        if (resp.status() >= 500 || resp.status() == Standby.STATUS) {
            next(server);
            failed(LinkException.Kind.UNREACHABLE, uri + " answered HTTP " + resp.status() + standbyText(resp) + detail(resp));
            return;
        }
        Envelope reply;
        try {
            reply = codec.decode(resp.body(), uri.toString());
        } catch (ProtocolException ex) {
            failed(LinkException.Kind.PROTOCOL, uri + " answered HTTP " + resp.status() + " with a body that is not an envelope: "
                    + ex.getMessage());
            return;
        }
        List<Problem> problems = reply.message() instanceof Ack a ? a.problems() : List.of();
        if (resp.status() == 401 || resp.status() == 403) {
            refused(LinkException.Kind.UNAUTHORIZED, uri + " refused the token of " + self + " (HTTP " + resp.status() + ")"
                    + (problems.isEmpty() ? "" : ": " + problems.get(0).message()), problems);
            return;
        }
        if (resp.status() == 404) {
            refused(LinkException.Kind.PROTOCOL, uri + " is not a Granary endpoint (HTTP 404)", problems);
            return;
        }
        if (!noteIncarnation(server, reply, uri, resp.status())) {
            return;
        }
        if (!(reply.message() instanceof Ack ack)) {
            failed(LinkException.Kind.PROTOCOL, uri + " answered a " + reply.message().type() + " where an ack was due");
            return;
        }
        if (resp.status() == 409 && LinkException.fencing(ack.problems())) {
            fence(new LinkException(LinkException.Kind.FENCED, uri + " fenced " + self + " incarnation " + incarnation
                    + ": " + ack.problems().get(0).message(), ack.problems(), null));
            return;
        }
        if (resp.status() == 409 && ack.problems().stream().anyMatch(x -> "sequence".equals(x.field())
                && Long.valueOf(1).equals(x.limit()))) {
            // The server holds no session of this incarnation (it restarted, and our first number went
            // to a message it refused before any session): numbering starts again, the owner re-syncs.
            restartNumbering(new LinkException(LinkException.Kind.RESTARTED, uri + " holds no session of " + self
                    + " incarnation " + incarnation + ": numbering starts again at 1", ack.problems(), null));
            watcher.restarted(serverIncarnation == null ? 0 : serverIncarnation);
            return;
        }
        succeeded();
        Pending p = inFlight;
        inFlight = null;
        inFlightEnvelope = null;
        p.done().accept(new Outcome(ack, resp.status(), null));
        if (restartedInStep != 0) {
            long x = restartedInStep;
            restartedInStep = 0;
            watcher.restarted(x);
        }
        pump();
    }

    /** Notes the server's incarnation from an answer; false (and handled) if the answer must not be taken. */
    private boolean noteIncarnation(URI server, Envelope reply, URI uri, int status) {
        Long seen = serverIncarnation;
        if (seen == null) {
            serverIncarnation = reply.incarnation();
            return true;
        }
        if (reply.incarnation() > seen && status != 409 && inFlightEnvelope != null && inFlightEnvelope.sequence() == 1) {
            // A server started anew read our number 1 — the full state the owner sent for the one
            // before — and began its session with it: numbering goes on from there. Starting at 1
            // again would send a second number 1, which it takes for a copy of the first and does
            // not apply (an agent's newer registration was dropped so, and plans went on carrying
            // the old epoch). The owner is still told of the restart, after this answer, and sends
            // its full state again under the next number (an agent takes a new epoch: plans made
            // for the old master are refused).
            serverIncarnation = reply.incarnation();
            restartedInStep = reply.incarnation();
            return true;
        }
        if (reply.incarnation() > seen) {
            serverIncarnation = reply.incarnation();
            restartNumbering(new LinkException(LinkException.Kind.RESTARTED, reply.sender() + " restarted (incarnation "
                    + seen + " → " + reply.incarnation() + "): send the full state again", List.of(), null));
            watcher.restarted(reply.incarnation());
            return false;
        }
        if (reply.incarnation() < seen) {
            next(server);
            failed(LinkException.Kind.UNREACHABLE, "an answer from " + reply.sender() + " incarnation " + reply.incarnation()
                    + " at " + uri + ", which ended when " + seen + " began (fenced: ignored)");
            return false;
        }
        return true;
    }

    /** The server read the call and refused it unapplied: trouble, or with {@link Options#refusalsFinal} the end of the message. */
    private void refused(LinkException.Kind kind, String message, List<Problem> problems) {
        if (!options.refusalsFinal()) {
            failed(kind, message);
            return;
        }
        Pending p = inFlight;
        inFlight = null;
        inFlightEnvelope = null;
        nextSequence--; // not applied: the next message takes its number
        p.done().accept(new Outcome(null, 0, new LinkException(kind, message, problems, null)));
        pump();
    }

    private void failed(LinkException.Kind kind, String message) {
        long now = loop.now();
        if (failingSince < 0) {
            failingSince = now;
        }
        LinkException why = new LinkException(kind, message, List.of(), null);
        pause = pause == 0 ? options.backoff().toMillis() : Math.min(pause * 2, options.maxBackoff().toMillis());
        Pending p = inFlight;
        long gen = generation;
        retry.cancel();
        retry = loop.schedule(spread(pause), () -> {
            if (gen == generation && p == inFlight && !closed) {
                redirects = 0;
                attempt();
            }
        });
        watcher.trouble(why, now - failingSince);
    }

    private void succeeded() {
        pause = 0;
        if (failingSince >= 0) {
            failingSince = -1;
            watcher.restored();
        }
    }

    /** Ends every message not answered with {@code why}, and starts numbering again at 1. */
    private void restartNumbering(LinkException why) {
        generation++;
        nextSequence = 1;
        received = 0;
        retry.cancel();
        pause = 0;
        failingSince = -1;
        List<Pending> dropped = new ArrayList<>();
        if (inFlight != null) {
            dropped.add(inFlight);
        }
        dropped.addAll(queue);
        inFlight = null;
        inFlightEnvelope = null;
        queue.clear();
        for (Pending p : dropped) {
            p.done().accept(new Outcome(null, 0, why));
        }
    }

    private void fence(LinkException why) {
        fenced = why;
        restartNumbering(why);
    }

    // ---- the inbox --------------------------------------------------------------------------------

    /**
     * Asks the server's inbox for its next envelope after the last one received, waiting up to
     * {@code waitMillis} there; acknowledges everything received before. One poll at a time:
     * {@code done} runs on the loop; a failure is not retried here (the owner polls again).
     */
    public void poll(long waitMillis, Consumer<Polled> done) {
        if (closed || fenced != null) {
            LinkException why = fenced != null ? fenced : closedFailure();
            loop.execute(() -> done.accept(new Polled(null, why)));
            return;
        }
        if (polling) {
            throw new IllegalStateException(self + " polls " + base + " twice at once");
        }
        polling = true;
        long gen = generation;
        long after = received;
        URI server = base;
        URI uri = server.resolve(Paths.INBOX + "?after=" + after + "&wait=" + waitMillis + "&incarnation=" + incarnation);
        transport.exchange(new Transport.Call("GET", uri, authorization, null, options.requestTimeout().plusMillis(waitMillis)),
                loop, (resp, io) -> {
                    polling = false;
                    if (closed) {
                        done.accept(new Polled(null, closedFailure()));
                    } else if (gen != generation) {
                        done.accept(new Polled(null, new LinkException(LinkException.Kind.RESTARTED, "the link to " + server
                                + " started again while polling", List.of(), null)));
                    } else {
                        done.accept(polled(server, uri, after, resp, io));
                    }
                });
    }

    private Polled polled(URI server, URI uri, long after, Transport.Response resp, IOException io) {
        if (io != null) {
            next(server);
            return failure(LinkException.Kind.UNREACHABLE, "cannot reach " + uri + ": " + text(io));
        }
        if (resp.status() == 204) {
            return Polled.NOTHING;
        }
        if (resp.status() == Standby.STATUS) {
            follow(server, resp.leader());
            return Polled.NOTHING;
        }
        if (resp.status() == TOO_MANY) {
            return failure(LinkException.Kind.UNREACHABLE, uri + " answered HTTP 429: too many requests of " + self + " open" + detail(resp));
        }
        if (resp.status() >= 500) {
            next(server);
            return failure(LinkException.Kind.UNREACHABLE, uri + " answered HTTP " + resp.status() + standbyText(resp) + detail(resp));
        }
        Envelope e;
        try {
            e = codec.decode(resp.body(), uri.toString());
        } catch (ProtocolException ex) {
            return failure(LinkException.Kind.PROTOCOL, uri + " answered HTTP " + resp.status()
                    + " with a body that is not an envelope: " + ex.getMessage());
        }
        List<Problem> problems = e.message() instanceof Ack a ? a.problems() : List.of();
        if (resp.status() == 401 || resp.status() == 403) {
            return failure(LinkException.Kind.UNAUTHORIZED, uri + " refused the token of " + self + " (HTTP " + resp.status()
                    + ")" + (problems.isEmpty() ? "" : ": " + problems.get(0).message()));
        }
        if (resp.status() == 404) {
            return failure(LinkException.Kind.PROTOCOL, uri + " is not a Granary endpoint (HTTP 404)");
        }
        Long seen = serverIncarnation;
        if (seen != null && e.incarnation() < seen) {
            next(server);
            return failure(LinkException.Kind.UNREACHABLE, "an inbox envelope from " + e.sender() + " incarnation "
                    + e.incarnation() + ", which ended when " + seen + " began (fenced: dropped)");
        }
        if (seen == null || e.incarnation() > seen) {
            serverIncarnation = e.incarnation();
            if (seen != null) {
                LinkException why = new LinkException(LinkException.Kind.RESTARTED, e.sender() + " restarted (incarnation "
                        + seen + " → " + e.incarnation() + "): send the full state again", List.of(), null);
                restartNumbering(why);
                watcher.restarted(e.incarnation());
                return new Polled(null, why);
            }
        }
        if (e.message() instanceof Ack a && a.isRefusal()) {
            if (resp.status() == 409 && LinkException.fencing(a.problems())) {
                LinkException why = new LinkException(LinkException.Kind.FENCED, uri + " fenced " + self + " incarnation "
                        + incarnation + ": " + a.problems().get(0).message(), a.problems(), null);
                fence(why);
                return new Polled(null, why);
            }
            LinkException.Kind kind = resp.status() == 409 ? LinkException.Kind.FORGOTTEN : LinkException.Kind.PROTOCOL;
            return new Polled(null, new LinkException(kind, uri + " refused the poll: " + a.problems(), a.problems(), null));
        }
        if (e.sequence() != after + 1 || after != received) {
            return Polled.NOTHING; // a repeat, or one overtaken by a restart of the numbering
        }
        received = e.sequence();
        return new Polled(e, null);
    }

    /** An I/O failure in words: its message, or its kind when it has none (a refused connection). */
    private static String text(IOException io) {
        return io.getMessage() != null ? io.getMessage() : io.getClass().getSimpleName().replace("Exception", "").toLowerCase(java.util.Locale.ROOT)
                .replace("connect", "connection refused");
    }

    private static Polled failure(LinkException.Kind kind, String message) {
        return new Polled(null, new LinkException(kind, message, List.of(), null));
    }

    // ---- servers ----------------------------------------------------------------------------------

    /** {@code from} failed or is fenced: with several servers, the next one in the list is tried. */
    private void next(URI from) {
        if (servers.size() > 1 && base.equals(from)) {
            int i = servers.indexOf(from);
            base = servers.get((i + 1) % servers.size()); // -1 (a followed pointer) + 1 = the first
        }
    }

    /** A standby named the leader: talk to it from now on (or to the next server if it named none). */
    private void follow(URI from, String leader) {
        URI to = null;
        if (leader != null) {
            try {
                URI u = URI.create(leader.trim());
                if (u.getScheme() != null && u.getScheme().startsWith("http") && u.getHost() != null) {
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

    private static String standbyText(Transport.Response resp) {
        return resp.leader() == null ? "" : " (a standby; leader " + resp.leader() + ")";
    }

    /** The first problem of an ack in a 5xx body, for the log: why a master is not serving. */
    private String detail(Transport.Response resp) {
        try {
            Envelope e = codec.decode(resp.body(), "reply");
            if (e.message() instanceof Ack a && !a.problems().isEmpty()) {
                return ": " + a.problems().get(0).message();
            }
        } catch (RuntimeException ex) {
            // no envelope: the status says it all
        }
        return "";
    }

    // ---- closing ----------------------------------------------------------------------------------

    /** Stops: nothing more is posted or polled; messages not answered end with CLOSED. */
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        restartNumbering(closedFailure());
    }

    public boolean closed() {
        return closed;
    }

    private LinkException closedFailure() {
        return new LinkException(LinkException.Kind.CLOSED, "the link of " + self + " to " + base + " is closed", List.of(), null);
    }
}

package granary.protocol.link;

import granary.api.model.Clock;
import granary.protocol.Ack;
import granary.protocol.Envelope;
import granary.protocol.Message;
import granary.protocol.Sender;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import javax.net.ssl.SSLContext;

/**
 * For tests, tools and benchmarks: a {@link Link} on its own {@link ThreadLoop} and
 * {@link HttpTransport}, whose calls wait. It adds no protocol of its own — numbering, posting again
 * with the same sequence number, following a standby, fencing and restart detection are the
 * {@link Link}'s, the code the agent and the job master client run — it only waits for the link's
 * outcome on the caller's thread.
 *
 * <p>Refusals are final ({@link Link.Options#refusalsFinal}): a 401 or 403 ends the message with
 * {@link LinkException.Kind#UNAUTHORIZED}, a 404 with {@link LinkException.Kind#PROTOCOL}; any
 * other answer of the server, a refusal with problems included, is the {@link Ack} {@link #send}
 * returns.
 *
 * <p><b>Bounded waits.</b> {@link #send} waits at most {@link Options#answerWithin} for its answer,
 * however often the link posts the message again meanwhile. A link cannot take back a message it
 * posted (it may have been applied), so when that wait is over the link is <em>closed</em>: nothing
 * goes on posting in the background, and every later call throws {@link LinkException.Kind#CLOSED}.
 * Make a new one (with a new incarnation if the message may have been applied) to go on.
 * {@link #poll} waits at most the request timeout and its own wait (and a little more); a poll is
 * never retried by the link, so a poll that timed out leaves the link open.
 *
 * <p>{@link #send} calls are serialized; {@link #poll} may run on another thread meanwhile. Close it
 * when done: it owns a thread.
 */
public final class SyncLink implements AutoCloseable {

    /** How long past its own timeout a poll's answer may take to reach the caller before it counts as none. */
    private static final long POLL_SLACK_MILLIS = 5_000;

    /**
     * @param requestTimeout longest wait for one answer (an inbox poll waits its wait on top)
     * @param answerWithin   longest wait of {@link #send} for its answer, attempts again included;
     *                       past it the link is closed
     * @param backoff        pause before a message is posted again; doubled each time
     * @param maxBackoff     the longest pause between attempts
     * @param tls            the SSL context for {@code https} servers, or null for the JDK default
     */
    public record Options(Duration requestTimeout, Duration answerWithin, Duration backoff, Duration maxBackoff,
                          SSLContext tls) {
        public Options {
            Objects.requireNonNull(requestTimeout, "requestTimeout");
            Objects.requireNonNull(answerWithin, "answerWithin");
            Objects.requireNonNull(backoff, "backoff");
            Objects.requireNonNull(maxBackoff, "maxBackoff");
        }

        /** 10 s per request, 30 s for an answer, pauses of 200 ms doubling up to 2 s, the JDK's TLS. */
        public static Options defaults() {
            return new Options(Duration.ofSeconds(10), Duration.ofSeconds(30), Duration.ofMillis(200), Duration.ofSeconds(2), null);
        }

        public Options withRequestTimeout(Duration d) {
            return new Options(d, answerWithin, backoff, maxBackoff, tls);
        }

        public Options withAnswerWithin(Duration d) {
            return new Options(requestTimeout, d, backoff, maxBackoff, tls);
        }

        public Options withBackoff(Duration first, Duration max) {
            return new Options(requestTimeout, answerWithin, first, max, tls);
        }

        public Options withTls(SSLContext context) {
            return new Options(requestTimeout, answerWithin, backoff, maxBackoff, context);
        }

        /** The options of the link underneath: these timings, refusals final. */
        public Link.Options link() {
            return new Link.Options(requestTimeout, backoff, maxBackoff, true);
        }
    }

    private final Link link;
    private final ThreadLoop loop;
    private final Options options;
    private final Object sending = new Object();
    private final Object polling = new Object();
    /** The calls waiting for the loop: failed with CLOSED when the link closes under them. */
    private final Set<CompletableFuture<?>> waiting = ConcurrentHashMap.newKeySet();
    /** What the link saw last, copied on the loop after every outcome: readable from any thread. */
    private volatile URI base;
    private volatile Long serverIncarnation;
    private volatile LinkException lastTrouble;
    private volatile String closedBecause;

    public SyncLink(URI base, Sender self, long incarnation, String token, Options options) {
        this(List.of(Objects.requireNonNull(base, "base")), self, incarnation, token, options);
    }

    /** A link to whichever of {@code servers} serves (one of them, or one they point to); starts with the first. */
    public SyncLink(List<URI> servers, Sender self, long incarnation, String token, Options options) {
        this.options = Objects.requireNonNull(options, "options");
        this.loop = new ThreadLoop("granary-link " + self, Clock.system(),
                ex -> System.err.println("granary link of " + self + ": " + ex));
        this.link = new Link(servers, self, incarnation, token, options.link(),
                new HttpTransport(options.requestTimeout(), options.tls()), loop).watch(new Link.Watcher() {
                    @Override
                    public void trouble(LinkException why, long failingForMillis) {
                        lastTrouble = why;
                        seen();
                    }
                });
        this.base = link.base();
    }

    /** The server talked to now (with several masters: the one believed to serve), as of the last outcome. */
    public URI base() {
        return base;
    }

    /** Every server URL this link was given, in order. */
    public List<URI> servers() {
        return link.servers();
    }

    public Sender self() {
        return link.self();
    }

    public long incarnation() {
        return link.incarnation();
    }

    /** The server's incarnation seen last, or null before its first answer. */
    public Long serverIncarnation() {
        return serverIncarnation;
    }

    /**
     * Sends {@code m} after the messages sent before and waits for the server's ack: applied, or
     * refused with problems (a refusal is an answer, not an exception).
     *
     * @throws LinkException the link's failure: {@link LinkException.Kind#UNAUTHORIZED} for a refused
     *                       token, {@link LinkException.Kind#RESTARTED} when the server restarted
     *                       (numbering starts again: send the full state), {@link LinkException.Kind#FENCED},
     *                       {@link LinkException.Kind#PROTOCOL}; or {@link LinkException.Kind#UNREACHABLE}
     *                       when no answer came within {@link Options#answerWithin} — the link is then
     *                       closed
     */
    public Ack send(Message m) {
        Objects.requireNonNull(m, "message");
        synchronized (sending) {
            checkOpen();
            lastTrouble = null;
            CompletableFuture<Link.Outcome> f = new CompletableFuture<>();
            onLoop(f, () -> link.send(m, o -> {
                seen();
                f.complete(o);
            }));
            Link.Outcome o;
            long within = options.answerWithin().toMillis();
            try {
                o = await(f, within);
            } catch (TimeoutException ex) {
                LinkException last = lastTrouble;
                String why = "no answer from " + base + " to " + self() + "'s " + m.type() + " within " + within + " ms"
                        + (last == null ? "" : " (last: " + last.getMessage() + ")");
                close(why);
                throw new LinkException(LinkException.Kind.UNREACHABLE, why + "; the link is closed", List.of(), null);
            }
            if (!o.answered()) {
                throw copy(o.failure());
            }
            return o.ack();
        }
    }

    /**
     * Asks the server's inbox for its next envelope after the last one received, waiting up to
     * {@code waitMillis} there; acknowledges everything received before.
     *
     * @return the envelope, or empty if none came within the wait (or it was a repeat, or a standby
     *         pointed elsewhere)
     * @throws LinkException the link's failure (the caller polls again): UNREACHABLE, FORGOTTEN (the
     *                       server holds no session of this peer), RESTARTED, FENCED, UNAUTHORIZED,
     *                       PROTOCOL
     */
    public Optional<Envelope> poll(long waitMillis) {
        synchronized (polling) {
            checkOpen();
            CompletableFuture<Link.Polled> f = new CompletableFuture<>();
            onLoop(f, () -> link.poll(waitMillis, p -> {
                seen();
                f.complete(p);
            }));
            Link.Polled p;
            long within = options.requestTimeout().toMillis() + waitMillis + POLL_SLACK_MILLIS;
            try {
                p = await(f, within);
            } catch (TimeoutException ex) {
                throw new LinkException(LinkException.Kind.UNREACHABLE, "no answer from " + base + " to " + self()
                        + "'s poll within " + within + " ms", List.of(), null);
            }
            if (p.failure() != null) {
                throw copy(p.failure());
            }
            return Optional.ofNullable(p.envelope());
        }
    }

    /** Closes the link and stops its thread: what was not answered ends with CLOSED. */
    @Override
    public void close() {
        close("closed by its owner");
    }

    private void close(String why) {
        synchronized (this) {
            if (closedBecause != null) {
                return;
            }
            closedBecause = why;
        }
        try {
            loop.call(() -> {
                link.close();
                return null;
            }, Duration.ofSeconds(2));
        } catch (TimeoutException ex) {
            // the loop is stuck: stopping it below drops the link with it
        }
        loop.close();
        LinkException closed = closedFailure();
        waiting.forEach(f -> f.completeExceptionally(closed));
    }

    private void checkOpen() {
        if (closedBecause != null) {
            throw closedFailure();
        }
    }

    private LinkException closedFailure() {
        return new LinkException(LinkException.Kind.CLOSED, "the link of " + self() + " to " + base + " is closed ("
                + closedBecause + ")", List.of(), null);
    }

    /** On the loop: what the link knows now, for the caller's threads. */
    private void seen() {
        base = link.base();
        serverIncarnation = link.serverIncarnation();
    }

    /** Runs {@code task} on the loop; {@code f} fails with whatever it throws. */
    private void onLoop(CompletableFuture<?> f, Runnable task) {
        waiting.add(f);
        f.whenComplete((v, ex) -> waiting.remove(f));
        loop.execute(() -> {
            try {
                task.run();
            } catch (RuntimeException ex) {
                f.completeExceptionally(ex);
            }
        });
        if (closedBecause != null) {
            f.completeExceptionally(closedFailure()); // closed meanwhile: the task may never run
        }
    }

    private <T> T await(CompletableFuture<T> f, long millis) throws TimeoutException {
        try {
            return f.get(millis, TimeUnit.MILLISECONDS);
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            close("interrupted while waiting for an answer");
            throw new LinkException(LinkException.Kind.CLOSED, "interrupted while " + self() + " waited for " + base
                    + "; the link is closed", List.of(), null);
        } catch (ExecutionException ex) {
            if (ex.getCause() instanceof LinkException l) {
                throw copy(l);
            }
            if (ex.getCause() instanceof RuntimeException r) {
                throw r;
            }
            throw new IllegalStateException(ex.getCause());
        }
    }

    /** The link's failure, raised again on the caller's thread (so that its trace is the caller's). */
    private static LinkException copy(LinkException l) {
        return new LinkException(l.kind(), l.getMessage(), l.problems(), null);
    }
}

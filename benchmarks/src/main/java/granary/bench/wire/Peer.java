package granary.bench.wire;

import granary.protocol.Ack;
import granary.protocol.Envelope;
import granary.protocol.Message;
import granary.protocol.Sender;
import granary.protocol.link.Paths;
import granary.protocol.link.Reply;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * A simulated peer on {@link java.net.http.HttpClient#sendAsync}: no thread of its own. Posts are
 * serialized (one in flight, the next queued, a failed one posted again with the same sequence
 * number after {@code run.retryMillis}); one inbox long poll is kept open.
 *
 * <p>A restarted master: every answer names the master's incarnation. When it grows (as
 * {@link granary.protocol.link.PeerLink} does) the peer starts its stream again at sequence 1 with
 * its inbox at 0, drops what was queued or in flight for the old master, and calls
 * {@link #resync()} (an agent registers again with its caps, a job master sends its full request
 * with its holdings).
 */
abstract class Peer {

    static final long POLL_WAIT_MILLIS = 25_000;

    final WireLoad.Run run;
    final Sender self;
    final HttpClient http;
    final long incarnation = System.currentTimeMillis();
    private final String authorization;
    private final URI messages;
    private long nextSequence = 1;
    private boolean inFlight;
    private final ArrayDeque<Object[]> queue = new ArrayDeque<>(); // {Envelope, Consumer<Ack>}
    private long received;
    private volatile boolean stopped;
    /** The master's incarnation seen last (0: none yet). Under the peer's lock. */
    private long masterIncarnation;
    /** Counts the master restarts seen; posts of an earlier epoch are dropped. Under the peer's lock. */
    private int epoch;
    /** Epoch ms this peer saw the master restart last, or -1. */
    volatile long restartSeenAt = -1;

    Peer(WireLoad.Run run, Sender self, HttpClient http) {
        this.run = run;
        this.self = self;
        this.http = http;
        this.authorization = "Bearer " + run.tokens.issue(self);
        this.messages = run.base.resolve(Paths.MESSAGES);
    }

    void stop() {
        stopped = true;
    }

    /** Whether a post is in flight. Under the peer's lock. */
    final boolean posting() {
        return inFlight;
    }

    /** Numbers {@code m} and posts it after the ones before; {@code done} gets the ack (on an HTTP thread). */
    final synchronized void post(Message m, Consumer<Ack> done) {
        Envelope e = Envelope.of(self, incarnation, nextSequence++, m);
        if (inFlight) {
            queue.add(new Object[] {e, done});
            return;
        }
        inFlight = true;
        send(e, done, System.nanoTime(), epoch);
    }

    /** Notes the master's incarnation in an answer; true when it restarted (the peer then started again). */
    private boolean observe(long incarnation) {
        synchronized (this) {
            if (masterIncarnation == 0 || incarnation <= masterIncarnation) {
                masterIncarnation = Math.max(masterIncarnation, incarnation);
                return false;
            }
            masterIncarnation = incarnation;
            epoch++;
            nextSequence = 1;
            received = 0;
            inFlight = false;
            queue.clear();
            restartSeenAt = System.currentTimeMillis();
            resync();
        }
        return true;
    }

    /** Under the peer's lock. */
    private boolean stale(int postEpoch) {
        synchronized (this) {
            return postEpoch != epoch;
        }
    }

    /** The master restarted: post what it needs first (under the peer's lock; the stream starts at 1 again). */
    void resync() {
    }

    /** Called just before an envelope goes out (first attempt); under the peer's lock. */
    void sending(Envelope e, long nanos) {
    }

    private void send(Envelope e, Consumer<Ack> done, long firstAttempt, int postEpoch) {
        if (stopped || stale(postEpoch)) {
            return;
        }
        sending(e, firstAttempt);
        HttpRequest req = HttpRequest.newBuilder(messages).timeout(Duration.ofSeconds(30))
                .header("Authorization", authorization).header("Content-Type", Reply.CONTENT_TYPE)
                .POST(HttpRequest.BodyPublishers.ofByteArray(run.codec.encode(e))).build();
        long t0 = System.nanoTime();
        http.sendAsync(req, HttpResponse.BodyHandlers.ofByteArray()).whenComplete((resp, ex) -> {
            if (stopped || stale(postEpoch)) {
                return;
            }
            if (ex == null && resp.statusCode() >= 500 && incarnationOf(resp.body()) > 0 && observe(incarnationOf(resp.body()))) {
                return; // a restarted master (rebuilding) answered: the stream started again
            }
            if (ex != null || resp.statusCode() >= 500) {
                run.errors.incrementAndGet();
                run.note(self + ": post " + e.message().type() + " " + e.sequence() + " failed: "
                        + (ex != null ? ex : "HTTP " + resp.statusCode()));
                run.timer.schedule(() -> send(e, done, firstAttempt, postEpoch), run.retryMillis, TimeUnit.MILLISECONDS);
                return;
            }
            long rtt = System.nanoTime() - t0;
            Ack ack = null;
            try {
                Envelope reply = run.codec.decode(resp.body(), self + " ack");
                if (observe(reply.incarnation())) {
                    return; // answered by a restarted master: what was sent went to the old one
                }
                ack = reply.message() instanceof Ack a ? a : null;
            } catch (RuntimeException bad) {
                run.note(self + ": unreadable answer to " + e.message().type() + ": " + bad);
            }
            if (resp.statusCode() != 200 || ack == null || ack.isRefusal()) {
                run.refusals.incrementAndGet();
                run.note(self + ": " + e.message().type() + " " + e.sequence() + " answered HTTP " + resp.statusCode()
                        + (ack == null ? "" : " " + ack.problems()));
            }
            answered(e, rtt);
            if (done != null) {
                try {
                    done.accept(ack);
                } catch (RuntimeException bug) {
                    run.note(self + ": " + bug);
                }
            }
            Object[] next;
            int nextEpoch;
            synchronized (this) {
                if (postEpoch != epoch) {
                    return;
                }
                next = queue.poll();
                if (next == null) {
                    inFlight = false;
                }
                nextEpoch = epoch;
            }
            if (next != null) {
                @SuppressWarnings("unchecked")
                Consumer<Ack> d = (Consumer<Ack>) next[1];
                send((Envelope) next[0], d, System.nanoTime(), nextEpoch);
            } else {
                idle();
            }
        });
    }

    /** A post was answered after {@code rttNanos}. */
    void answered(Envelope e, long rttNanos) {
    }

    /** Nothing is queued or in flight any more (an HTTP thread, no lock held). */
    void idle() {
    }

    /** Keeps one inbox poll open until stopped; {@code inbox} gets each new envelope. */
    final void poll() {
        if (stopped) {
            return;
        }
        long after;
        synchronized (this) {
            after = received;
        }
        URI uri = run.base.resolve(Paths.INBOX + "?after=" + after + "&wait=" + POLL_WAIT_MILLIS);
        HttpRequest req = HttpRequest.newBuilder(uri).timeout(Duration.ofMillis(POLL_WAIT_MILLIS + 15_000))
                .header("Authorization", authorization).GET().build();
        http.sendAsync(req, HttpResponse.BodyHandlers.ofByteArray()).whenComplete((resp, ex) -> {
            if (stopped) {
                return;
            }
            if (ex == null && resp.statusCode() != 204 && observe(incarnationOf(resp.body()))) {
                run.timer.schedule(this::poll, run.retryMillis, TimeUnit.MILLISECONDS); // registers first
                return;
            }
            if (ex != null || resp.statusCode() >= 300 && resp.statusCode() != 409) {
                if (ex != null || resp.statusCode() != 204) {
                    run.errors.incrementAndGet();
                    run.note(self + ": poll failed: " + (ex != null ? ex : "HTTP " + resp.statusCode()));
                    run.timer.schedule(this::poll, run.retryMillis, TimeUnit.MILLISECONDS);
                    return;
                }
            }
            if (resp.statusCode() == 200) {
                long now = System.nanoTime();
                try {
                    Envelope e = run.codec.decode(resp.body(), self + " inbox");
                    boolean fresh;
                    synchronized (this) {
                        fresh = e.sequence() == received + 1;
                        if (fresh) {
                            received = e.sequence();
                        }
                    }
                    if (fresh) {
                        inbox(e, now);
                    }
                } catch (RuntimeException bad) {
                    run.note(self + ": inbox: " + bad);
                }
            } else if (resp.statusCode() == 409) {
                if (!run.quiet409) {
                    run.note(self + ": poll refused (409), not registered yet");
                }
                run.timer.schedule(this::poll, run.retryMillis, TimeUnit.MILLISECONDS);
                return;
            }
            poll();
        });
    }

    /** The incarnation of the envelope in {@code body}, or 0 when it is none. */
    private long incarnationOf(byte[] body) {
        try {
            return body == null || body.length == 0 ? 0 : run.codec.decode(body, self + " answer").incarnation();
        } catch (RuntimeException bad) {
            return 0;
        }
    }

    /** A new inbox envelope arrived at {@code nanos}. */
    abstract void inbox(Envelope e, long nanos);
}

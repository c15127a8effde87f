package granary.bench.wire;

import granary.api.model.Clock;
import granary.protocol.Ack;
import granary.protocol.Envelope;
import granary.protocol.Message;
import granary.protocol.Sender;
import granary.protocol.link.HttpTransport;
import granary.protocol.link.Link;
import granary.protocol.link.LinkException;
import granary.protocol.link.Transport;
import granary.protocol.link.ThreadLoop;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * A simulated peer on the protocol's own {@link Link}, the code the agent and the job master client
 * run: its posts go one at a time in order, a failed one is posted again with the same sequence
 * number (after the real agent's pauses: 200 ms doubling to 5 s, each spread by {@link Link#spread};
 * a failed poll after {@link Link#pollPause}), an answer of a restarted master ends what
 * was unanswered and starts the numbering again at 1 with the inbox at 0, and one inbox long poll
 * is kept open. Thousands of peers share a few {@link Wire}s: each a {@link ThreadLoop} their links
 * and callbacks run on, and an {@link HttpTransport} over one JDK client — no thread per peer.
 *
 * <p>A restarted master ({@link Link.Watcher#restarted}): posts given for the old master and not
 * handed to the link yet are dropped (the link ended the others), and the peer calls
 * {@link #resync()} (an agent registers again with its caps, a job master sends its full request
 * with its holdings), whose post is numbered 1. Like the real agent, a peer sees the restart in the
 * new master's first answer that is not a 5xx (a master rebuilding its grants answers 503 and the
 * message is posted again).
 *
 * <p>What is timed: a post from the moment it is handed to the link to its answer (attempts again
 * and any wait behind an earlier post included; a heartbeat goes out only when nothing is posting).
 */
abstract class Peer {

    static final long POLL_WAIT_MILLIS = 25_000;

    /** A loop and an HTTP client that many peers share. */
    static final class Wire implements AutoCloseable {
        final ThreadLoop loop;
        final Transport transport;
        /** Over HTTP/2, the client whose connections the peers are bound to; else null. */
        final H2Transport h2;

        Wire(ThreadLoop loop, Transport transport) {
            this.loop = loop;
            this.transport = transport;
            this.h2 = null;
        }

        Wire(ThreadLoop loop, H2Transport h2) {
            this.loop = loop;
            this.transport = null;
            this.h2 = h2;
        }

        /** The transport for the next peer on this wire: over HTTP/2 bound to one connection of the wire's. */
        Transport forPeer() {
            return h2 != null ? h2.bound() : transport;
        }

        /**
         * {@code n} wires, each with its own loop and HTTP client: {@link NioTransport} for
         * {@code "nio"} (connections from 127.0.0.1–127.0.0.64), {@link H2Transport} for {@code "h2"}
         * ({@code connections} in all, shared out among the wires), else the JDK's client on
         * {@code executor} (HTTP/1.1, 10 s to connect); loop errors go to {@code run}.
         */
        static List<Wire> of(int n, Executor executor, WireLoad.Run run, String name, String transport, int connections) {
            List<Wire> out = new ArrayList<>();
            int wires = Math.max(1, n);
            for (int i = 0; i < wires; i++) {
                ThreadLoop loop = new ThreadLoop(name + "-loop-" + i, Clock.system(), ex -> run.note("loop: " + ex));
                if (transport.equals("h2")) {
                    int mine = connections / wires + (i < connections % wires ? 1 : 0);
                    out.add(new Wire(loop, new H2Transport(name + "-h2-" + i, Math.max(1, mine), 64)));
                    continue;
                }
                Transport t;
                if (transport.equals("nio")) {
                    try {
                        t = new NioTransport(name + "-nio-" + i, 64);
                    } catch (java.io.IOException ex) {
                        throw new java.io.UncheckedIOException("cannot open a selector", ex);
                    }
                } else {
                    t = new HttpTransport(HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).executor(executor)
                            .connectTimeout(Duration.ofSeconds(10)).build());
                }
                out.add(new Wire(loop, t));
            }
            return out;
        }

        @Override
        public void close() {
            loop.close();
            if (transport instanceof NioTransport nio) {
                nio.close();
            }
            if (h2 != null) {
                h2.close();
            }
        }
    }

    /** One message handed to the link: {@code id} tells it apart here (the link numbers the envelope). */
    record Post(long id, Message message) {
    }

    /** A post not handed to the link yet. */
    private record Pending(Post post, long given, Consumer<Ack> done) {
    }

    private static final AtomicLong POSTS = new AtomicLong();

    final WireLoad.Run run;
    final Sender self;
    final long incarnation = System.currentTimeMillis();
    private final ThreadLoop loop;
    private final Link link;
    /** Posts given and not answered yet (handed to the link or not). Under the peer's lock. */
    private int unanswered;
    /** Posts given and not handed to the link yet, in order (the loop hands them over). Under the peer's lock. */
    private final ArrayDeque<Pending> pending = new ArrayDeque<>();
    private boolean handOverDue;
    private volatile boolean stopped;
    /** Epoch ms this peer saw the master restart last, or -1. */
    volatile long restartSeenAt = -1;

    Peer(WireLoad.Run run, Sender self, Wire wire) {
        this.run = run;
        this.self = self;
        this.loop = wire.loop;
        Link.Options options = Link.Options.defaults().withRequestTimeout(Duration.ofSeconds(30));
        this.link = new Link(List.of(run.base), self, incarnation, run.tokens.issue(self), options, wire.forPeer(), loop)
                .watch(new Link.Watcher() {
                    @Override
                    public void restarted(long masterIncarnation) {
                        restartSeenAt = System.currentTimeMillis();
                        synchronized (Peer.this) {
                            // the link ended every post it had; those not handed over yet were meant
                            // for the old master too: dropped, so that the full state goes first
                            unanswered -= pending.size();
                            pending.clear();
                            resync();
                        }
                    }

                    @Override
                    public void trouble(LinkException why, long failingForMillis) {
                        run.errors.incrementAndGet();
                        run.note(self + ": " + why.getMessage());
                    }
                });
    }

    void stop() {
        stopped = true;
        loop.execute(link::close);
    }

    /** Whether a post was given and is not answered yet. Under the peer's lock. */
    final boolean posting() {
        return unanswered > 0;
    }

    /** Posts {@code m} after the ones before; {@code done} gets the ack (on the peer's loop). */
    final synchronized void post(Message m, Consumer<Ack> done) {
        Post p = new Post(POSTS.incrementAndGet(), m);
        long given = System.nanoTime();
        unanswered++;
        sending(p, given);
        pending.add(new Pending(p, given, done));
        if (loop.inLoop()) {
            handOver();
        } else if (!handOverDue) {
            handOverDue = true;
            loop.execute(() -> {
                synchronized (this) {
                    handOverDue = false;
                    handOver();
                }
            });
        }
    }

    /** Hands the pending posts to the link, in order. On the loop, under the peer's lock (the link calls back later). */
    private void handOver() {
        for (Pending q; (q = pending.poll()) != null; ) {
            Pending x = q;
            link.send(x.post().message(), o -> outcome(x.post(), x.given(), o, x.done()));
        }
    }

    /** On the loop. */
    private void outcome(Post p, long given, Link.Outcome o, Consumer<Ack> done) {
        boolean idle;
        synchronized (this) {
            unanswered--; // every post has one outcome: answered, or ended (RESTARTED, CLOSED, FENCED)
            idle = unanswered == 0;
        }
        if (stopped) {
            return;
        }
        if (!o.answered()) {
            // RESTARTED: dropped with the old master's numbering (restarted() resyncs); CLOSED: stopping
            if (o.failure().kind() != LinkException.Kind.RESTARTED && o.failure().kind() != LinkException.Kind.CLOSED) {
                run.refused(p.message().type() + " " + o.failure().kind());
                run.note(self + ": " + p.message().type() + " failed: " + o.failure().getMessage());
            }
            return;
        }
        long rtt = System.nanoTime() - given;
        Ack ack = o.ack();
        if (o.status() != 200 || ack.isRefusal()) {
            run.refused(p.message().type() + " HTTP " + o.status()
                    + (ack.problems().isEmpty() ? "" : ": " + ack.problems().get(0).message().replaceAll("[0-9]+", "N")));
            run.note(self + ": " + p.message().type() + " answered HTTP " + o.status() + " " + ack.problems());
            refused(p, ack);
        }
        answered(p, rtt);
        if (done != null) {
            try {
                done.accept(ack);
            } catch (RuntimeException bug) {
                run.note(self + ": " + bug);
            }
        }
        if (idle) {
            idle();
        }
    }

    /** The master restarted: post what it needs first (under the peer's lock, on its loop; numbering starts at 1 again). */
    void resync() {
    }

    /** {@code p} is handed to the link at {@code nanos}; under the peer's lock. */
    void sending(Post p, long nanos) {
    }

    /** {@code p} was answered {@code rttNanos} after it was handed to the link. */
    void answered(Post p, long rttNanos) {
    }

    /** {@code p} was answered with a refusal or a status other than 200 (on the loop). */
    void refused(Post p, Ack ack) {
    }

    /** A poll was refused 409: the master holds no inbox for this incarnation (on the loop). */
    void forgotten() {
    }

    /** Nothing is handed to the link and unanswered any more (on the loop, no lock held). */
    void idle() {
    }

    /** Keeps one inbox poll open until stopped; {@code inbox} gets each new envelope. */
    final void poll() {
        loop.execute(this::pollNow);
    }

    /** On the loop. */
    private void pollNow() {
        if (!stopped) {
            link.poll(POLL_WAIT_MILLIS, this::polled);
        }
    }

    /** On the loop. */
    private void polled(Link.Polled p) {
        if (stopped) {
            return;
        }
        LinkException failure = p.failure();
        if (failure != null) {
            switch (failure.kind()) {
                case CLOSED -> {
                    return;
                }
                case RESTARTED -> {
                    // restarted() posted the full state; poll once it had a head start
                }
                case FORGOTTEN -> {
                    if (!run.quiet409) {
                        run.note(self + ": poll refused (409), not registered yet");
                    }
                    forgotten();
                }
                default -> {
                    run.errors.incrementAndGet();
                    run.note(self + ": poll failed: " + failure.getMessage());
                }
            }
            loop.schedule(link.pollPause(), this::pollNow);
            return;
        }
        if (p.envelope() != null) {
            inbox(p.envelope(), System.nanoTime());
        }
        pollNow();
    }

    /** A new inbox envelope arrived at {@code nanos} (on the loop). */
    abstract void inbox(Envelope e, long nanos);
}

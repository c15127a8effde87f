package granary.protocol.link;

import granary.api.model.Problem;
import granary.protocol.Ack;
import granary.protocol.Envelope;
import granary.protocol.Message;
import granary.protocol.ProtocolException;
import granary.protocol.Register;
import granary.protocol.Role;
import granary.protocol.Sender;
import granary.protocol.Session;
import granary.protocol.WireCodec;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A master for tests of {@link Link}: the protocol's real {@link Session} per peer (each sequence
 * number applied once, in order, gaps refused with "resend from N") behind a real
 * {@link JdkHttpServer} on 127.0.0.1 and a free port, with faults on demand. Its inbox holds
 * whatever the test puts there.
 */
final class FakeMaster implements Endpoint, AutoCloseable {

    /** What the next post meets instead of a plain answer. */
    enum Fault {
        /** A plain answer. */
        NONE,
        /** Applied, but the answer comes only after {@link #slowMillis}: past the link's request timeout, it is lost. */
        LOSE_ANSWER,
        /** 503 without reading the envelope: nothing applied. */
        UNAVAILABLE,
        /** 401: the token is refused, nothing applied. */
        REFUSE_TOKEN,
        /** 409 naming the sender's incarnation as fenced. */
        FENCE
    }

    static final Sender ME = new Sender(Role.MASTER, "m");

    private final WireCodec codec = new WireCodec(Role.MASTER);
    private final JdkHttpServer http;
    final URI url;
    volatile long incarnation;
    /** Non-null: a standby answering {@link Standby#refusal} (JdkHttpServer writes no leader header). */
    volatile URI standbyFor;
    /** Like a master that has just started: a message other than a registration is refused while the peer has no session. */
    volatile boolean registerFirst;
    /** True: every post is answered 503, as by a master that is not ready. */
    volatile boolean down;
    /** How long each post takes to answer (to see whether posts overlap). */
    volatile long answerMillis;
    /** How late a {@link Fault#LOSE_ANSWER} answer comes. */
    volatile long slowMillis = 2_000;
    private final ConcurrentLinkedDeque<Fault> faults = new ConcurrentLinkedDeque<>();
    private final Map<Sender, Session> sessions = new HashMap<>();
    /** Every post that reached the server, faults included. */
    final AtomicInteger posts = new AtomicInteger();
    /** The sequence numbers of the envelopes read, repeats included, in the order they came. */
    final List<Long> sequences = new CopyOnWriteArrayList<>();
    /** The messages applied, each once, in the order applied. */
    final List<Envelope> applied = new CopyOnWriteArrayList<>();
    /** What the inbox hands out: its envelope N carries message N - 1. */
    final List<Message> outbox = new CopyOnWriteArrayList<>();
    /** The {@code after} of the last poll: what the peer acknowledged. */
    volatile long acknowledged = -1;
    private final AtomicInteger inFlight = new AtomicInteger();
    private final java.util.concurrent.atomic.AtomicBoolean closed = new java.util.concurrent.atomic.AtomicBoolean();
    /** The most posts answered at once. */
    final AtomicInteger mostAtOnce = new AtomicInteger();

    FakeMaster(long incarnation) throws IOException {
        this(incarnation, 0);
    }

    /** A master on {@code port} of 127.0.0.1 (0: a free one): one started again where another was. */
    FakeMaster(long incarnation, int port) throws IOException {
        this.incarnation = incarnation;
        this.http = JdkHttpServer.start(new InetSocketAddress("127.0.0.1", port), this, null);
        this.url = http.url();
    }

    /** The next posts meet {@code f}, after the faults queued before. */
    FakeMaster fault(Fault... f) {
        faults.addAll(List.of(f));
        return this;
    }

    /** Forgets every session, as a master started again does (give it a larger incarnation too). */
    synchronized void forget() {
        sessions.clear();
    }

    @Override
    public Reply post(String authorization, byte[] body, String remote) {
        posts.incrementAndGet();
        mostAtOnce.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
        try {
            pause(answerMillis);
            return answer(body);
        } finally {
            inFlight.decrementAndGet();
        }
    }

    private Reply answer(byte[] body) {
        if (standbyFor != null) {
            return Standby.refusal("m", url, standbyFor);
        }
        Fault fault = faults.poll();
        if (fault == Fault.UNAVAILABLE || down) {
            return reply(503, Ack.refused(0, List.of(Problem.of("master m", "$", "not ready"))), 0);
        }
        if (fault == Fault.REFUSE_TOKEN) {
            return reply(401, Ack.refused(0, List.of(Problem.of("master m", "Authorization", "the token is not valid"))), 0);
        }
        Envelope in;
        try {
            in = codec.decode(body, "test");
        } catch (ProtocolException ex) {
            return reply(400, Ack.refused(0, ex.problems()), 0);
        }
        sequences.add(in.sequence());
        if (fault == Fault.FENCE) {
            return reply(409, Ack.refused(in.sequence(), List.of(Problem.of(in.sender() + " incarnation " + in.incarnation(),
                    "$.incarnation", "incarnation " + in.incarnation() + " is fenced: the master started it again"))), 0);
        }
        Session.Result r;
        synchronized (this) {
            Session s = sessions.computeIfAbsent(in.sender(), Session::new);
            if (registerFirst && s.incarnation() == null && in.sequence() == 1 && !(in.message() instanceof Register)) {
                return reply(400, Ack.refused(1, List.of(Problem.of(in.sender().toString(), "type", "register first"))), 0);
            }
            r = s.accept(in, e -> {
                applied.add(e);
                return Ack.applied(e.sequence());
            });
        }
        Reply reply = reply(r.outcome() == Session.Outcome.REFUSED ? 409 : r.ack().isRefusal() ? 400 : 200, r.ack(), 0);
        if (fault == Fault.LOSE_ANSWER) {
            pause(slowMillis);
        }
        return reply;
    }

    @Override
    public CompletableFuture<Reply> poll(String authorization, long after, long waitMillis, String remote) {
        acknowledged = after;
        if (standbyFor != null) {
            return CompletableFuture.completedFuture(Standby.refusal("m", url, standbyFor));
        }
        if (after < outbox.size()) {
            return CompletableFuture.completedFuture(reply(200, outbox.get((int) after), after + 1));
        }
        return CompletableFuture.completedFuture(Reply.empty());
    }

    private Reply reply(int status, Message m, long sequence) {
        return new Reply(status, codec.encode(Envelope.of(ME, incarnation, sequence, m)));
    }

    private static void pause(long millis) {
        if (millis > 0) {
            try {
                Thread.sleep(millis);
            } catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Stops serving: the port is closed (connections to it are refused). */
    @Override
    public void close() {
        if (!closed.getAndSet(true)) {
            http.close();
        }
    }
}

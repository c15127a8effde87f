package granary.conformance;

import granary.master.ProtocolMaster;
import granary.protocol.Ack;
import granary.protocol.Envelope;
import granary.protocol.Message;
import granary.protocol.ProtocolException;
import granary.protocol.Role;
import granary.protocol.Sender;
import granary.protocol.WireCodec;
import granary.protocol.link.Reply;
import java.util.ArrayDeque;
import java.util.Deque;

/**
 * What an agent and a job master share on the wire, as {@link granary.protocol.link.PeerLink} does
 * it over HTTP: envelopes numbered per incarnation, one in flight at a time and posted again with
 * the same number until answered; one inbox poll in flight; the master's incarnation noted from
 * every answer: a larger one means the master restarted (numbering starts again, the peer sends its
 * full state), a smaller one is a deposed master's late answer and is ignored.
 */
abstract class SimPeer {

    static final long RETRY_MILLIS = 400;
    static final long POLL_PAUSE_MILLIS = 100;

    final World world;
    final Sender self;
    final WireCodec codec;
    final String token;
    long incarnation;
    private long nextSequence = 1;
    private final Deque<Message> outbox = new ArrayDeque<>();
    private Envelope inFlight;
    private long retryAt;
    private Long masterIncarnation;
    private long received;
    private boolean pollInFlight;
    private long pollAt;
    private long pollToken;
    boolean crashed;

    SimPeer(World world, Role role, String id, long incarnation) {
        this.world = world;
        this.self = new Sender(role, id);
        this.codec = new WireCodec(role);
        this.token = "Bearer " + world.tokens.issue(self);
        this.incarnation = incarnation;
    }

    String id() {
        return self.id();
    }

    /** Queues a message; it is posted once those before it were answered. */
    void send(Message m) {
        outbox.add(m);
    }

    /** A new life: memory lost but for what the subclass keeps on disk; numbering starts again. */
    void restart(long newIncarnation) {
        incarnation = newIncarnation;
        nextSequence = 1;
        outbox.clear();
        inFlight = null;
        received = 0;
        pollInFlight = false;
        pollToken++;
        masterIncarnation = null;
    }

    void tick(long now) {
        if (crashed) {
            return;
        }
        if (inFlight == null && !outbox.isEmpty()) {
            inFlight = Envelope.of(self, incarnation, nextSequence++, outbox.poll());
            retryAt = now;
        }
        if (inFlight != null && now >= retryAt) {
            post(inFlight, now);
            retryAt = now + RETRY_MILLIS;
        }
        if (!pollInFlight && now >= pollAt && ready()) {
            poll(now);
        }
    }

    private void post(Envelope e, long now) {
        byte[] body = codec.encode(e);
        ProtocolMaster to = world.master();
        long life = incarnation;
        world.wire.send(id(), now, () -> {
            Reply r = to.post(token, body, "inproc:" + id());
            world.wire.send(id(), world.now(), () -> answered(life, e, r));
        });
    }

    private void answered(long life, Envelope sent, Reply r) {
        if (crashed || life != incarnation || inFlight == null || inFlight.sequence() != sent.sequence()) {
            return; // a duplicate, or an answer to an earlier life
        }
        Envelope reply;
        try {
            reply = codec.decode(r.body(), "master");
        } catch (ProtocolException ex) {
            world.violation(self + " got an unreadable answer: " + ex.getMessage());
            return;
        }
        if (fenced(reply)) {
            return;
        }
        if (r.status() == 503) {
            return; // shutting down or rebuilding: the retry timer posts it again
        }
        inFlight = null;
        Ack ack = (Ack) reply.message();
        if (r.status() == 409) {
            onResync("the master refused " + sent.message().type() + ": " + ack.problems());
        } else if (ack.isRefusal()) {
            onRefused(sent.message(), ack);
        } else {
            onApplied(sent.message());
        }
    }

    /** True if the answer comes from a master older than one already heard (ignored); starts a re-sync on a newer one. */
    private boolean fenced(Envelope reply) {
        long inc = reply.incarnation();
        if (masterIncarnation != null && inc < masterIncarnation) {
            world.fencedAnswers++;
            return true;
        }
        if (masterIncarnation != null && inc > masterIncarnation) {
            masterIncarnation = inc;
            nextSequence = 1;
            outbox.clear();
            inFlight = null;
            received = 0;
            pollToken++;
            pollInFlight = false;
            onResync("the master restarted");
            return true;
        }
        masterIncarnation = inc;
        return false;
    }

    private void poll(long now) {
        pollInFlight = true;
        ProtocolMaster to = world.master();
        long after = received;
        long life = incarnation;
        long ticket = ++pollToken;
        world.wire.send(id(), now, () -> {
            Reply r = to.poll(token, after, 0, life, "inproc:" + id()).join();
            world.wire.send(id(), world.now(), () -> polled(ticket, after, r));
        });
        // A poll whose answer was lost is given up after a while, as an HTTP client times out.
        long deadline = now + 2_000;
        world.later(deadline, () -> {
            if (pollToken == ticket) {
                pollInFlight = false;
            }
        });
    }

    private void polled(long ticket, long after, Reply r) {
        if (crashed || ticket != pollToken) {
            return;
        }
        pollInFlight = false;
        pollAt = world.now() + (r.status() == 200 ? 0 : POLL_PAUSE_MILLIS);
        if (r.body().length == 0) {
            return;
        }
        Envelope e;
        try {
            e = codec.decode(r.body(), "master");
        } catch (ProtocolException ex) {
            world.violation(self + " polled an unreadable envelope: " + ex.getMessage());
            return;
        }
        if (fenced(e)) {
            return;
        }
        if (r.status() == 409) {
            onResync("the master refused the poll: " + ((Ack) e.message()).problems());
            return;
        }
        if (r.status() != 200) {
            return;
        }
        if (e.sequence() != after + 1) {
            return;
        }
        received = e.sequence();
        onInbox(e.message());
    }

    /** Whether the master holds an inbox for this peer yet. */
    abstract boolean ready();

    /** The master does not know this peer's state (it restarted, or refused the session): send the full state. */
    abstract void onResync(String why);

    abstract void onApplied(Message m);

    abstract void onRefused(Message m, Ack ack);

    abstract void onInbox(Message m);
}

package granary.master;

import granary.protocol.Envelope;
import granary.protocol.Message;
import granary.protocol.link.Reply;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * What the master has for one peer's inbox: at most one envelope in flight (sent, not yet
 * acknowledged by a later poll's {@code after}) and at most one parked poll waiting for news.
 * Sequence numbers restart at 1 for every incarnation of the peer. Touched only in turns of the master's loop.
 */
final class Outbox {

    private long nextSequence = 1;
    private Envelope inFlight;
    private CompletableFuture<Reply> parked;
    private long parkedAfter;

    /** Forget everything: the peer began a new incarnation. Returns a parked poll to answer 204, or null. */
    CompletableFuture<Reply> reset() {
        nextSequence = 1;
        inFlight = null;
        return unpark();
    }

    /**
     * The envelope due for a poll that acknowledged everything up to {@code after}: the one in
     * flight again if not acknowledged, else a new one from {@code build} (null when nothing is new).
     */
    Envelope due(long after, Supplier<Message> build, granary.protocol.Sender self, long incarnation) {
        if (inFlight != null && after >= inFlight.sequence()) {
            inFlight = null;
        }
        if (inFlight != null) {
            return inFlight;
        }
        Message m = build.get();
        if (m == null) {
            return null;
        }
        inFlight = Envelope.of(self, incarnation, nextSequence++, m);
        return inFlight;
    }


    /** Parks a poll; returns the poll it displaced (to answer 204), or null. */
    CompletableFuture<Reply> park(CompletableFuture<Reply> poll, long after) {
        CompletableFuture<Reply> old = parked;
        parked = poll;
        parkedAfter = after;
        return old;
    }

    /** The parked poll, removed, or null. */
    CompletableFuture<Reply> unpark() {
        CompletableFuture<Reply> p = parked;
        parked = null;
        return p;
    }

    boolean isParked(CompletableFuture<Reply> poll) {
        return parked == poll;
    }

    long parkedAfter() {
        return parkedAfter;
    }

    boolean hasParked() {
        return parked != null;
    }
}

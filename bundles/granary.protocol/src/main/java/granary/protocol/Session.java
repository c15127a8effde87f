package granary.protocol;

import granary.api.model.InvalidRequestException;
import granary.api.model.Problem;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * One side's record of one peer: which incarnation of the peer is alive and which of its sequence
 * numbers were answered. It makes each envelope take effect once, in order, and only from the
 * living incarnation. Plain Java, single-threaded, deterministic: the same envelopes in the same
 * order give the same answers.
 *
 * <p>What {@link #accept} does with an envelope:
 * <ul>
 * <li>From another sender than the peer: refused.
 * <li>From an incarnation older than the current one: refused ("a message from incarnation N,
 *     which ended when M began").
 * <li>From a newer incarnation (or the first one seen): the peer restarted. Its first envelope must
 *     have sequence 1; it is handled, and if it is applied the new incarnation replaces the old one,
 *     whose sequence numbers and acks are forgotten ({@link Result#endedIncarnation()} tells the
 *     caller to drop what the old one held). Refused, it ends nothing: the old one lives on.
 * <li>Sequence number answered before: the same ack again, the handler is not called (a retry or a
 *     duplicate). The last {@value #KEPT_ACKS} acks are kept; an older repeat is refused.
 * <li>The next sequence number: handled. The handler's ack is kept for repeats, a refusal too, so
 *     that a retry of a refused message is refused the same way and the stream goes on.
 * <li>A later one: refused as a gap, naming the sequence number expected next; the sender resends
 *     from there.
 * </ul>
 * Every refusal of the session itself ({@link Outcome#REFUSED}) leaves the session unchanged and
 * the handler uncalled.
 */
public final class Session {

    /**
     * How many acks of the current incarnation are kept for repeats. A peer's link has one message
     * in flight: what it sends again is its last one, and a late copy on the network is one of the
     * last few. Issue 23: with 1024 kept, a master's sessions held 85 KB of acks per peer once
     * warm — 1.7 GB at 20,000 agents, its whole heap, and the master stalled in garbage collection.
     */
    public static final int KEPT_ACKS = 16;

    /** Applies one message; called at most once per sequence number of an incarnation. */
    @FunctionalInterface
    public interface Handler {
        /**
         * Applies {@code e}'s message and answers {@link Ack#applied}, or changes nothing and answers
         * {@link Ack#refused} (throwing an {@link InvalidRequestException} is the same as the latter).
         */
        Ack apply(Envelope e);
    }

    /** What became of an envelope. */
    public enum Outcome {
        /** The handler was called; its ack (applied or refused) is the answer. */
        HANDLED,
        /** A sequence number answered before: the kept ack is the answer, nothing was applied again. */
        REPEATED,
        /** The session refused it (wrong sender, dead incarnation, gap); nothing changed. */
        REFUSED
    }

    /**
     * @param outcome          what became of the envelope
     * @param ack              the answer to send back
     * @param endedIncarnation the incarnation this envelope's replaced, or null if none ended
     */
    public record Result(Outcome outcome, Ack ack, Long endedIncarnation) {
        public boolean restarted() {
            return endedIncarnation != null;
        }
    }

    private final Sender peer;
    private Long incarnation;
    private long lastSequence;
    private final Map<Long, Ack> acks = new LinkedHashMap<>(16, 0.75f, false) {
        private static final long serialVersionUID = 1L;

        @Override
        protected boolean removeEldestEntry(Map.Entry<Long, Ack> eldest) {
            return size() > KEPT_ACKS;
        }
    };

    public Session(Sender peer) {
        this.peer = Objects.requireNonNull(peer, "peer");
    }

    public Sender peer() {
        return peer;
    }

    /** The living incarnation of the peer, or null before its first accepted envelope. */
    public Long incarnation() {
        return incarnation;
    }

    /** The last sequence number answered in the living incarnation (0 before any). */
    public long lastSequence() {
        return lastSequence;
    }

    /** Decides what to do with {@code e}, calls {@code handler} if it is due, and returns the answer. */
    public Result accept(Envelope e, Handler handler) {
        if (!peer.equals(e.sender())) {
            return refuse(e, "sender", "sent by " + e.sender() + ", but this session is with " + peer, null, null);
        }
        if (incarnation == null || e.incarnation() > incarnation) {
            return begin(e, handler);
        }
        if (e.incarnation() < incarnation) {
            return refuse(e, "incarnation", "a message from incarnation " + e.incarnation() + ", which ended when "
                    + incarnation + " began", incarnation, e.incarnation());
        }
        if (e.sequence() <= lastSequence) {
            return repeat(e);
        }
        if (e.sequence() > lastSequence + 1) {
            return gap(e, lastSequence + 1);
        }
        return new Result(Outcome.HANDLED, handle(e, handler), null);
    }

    /**
     * A newer incarnation's first envelope (or the first ever). It replaces a living incarnation only
     * if its message is applied: a refused one (malformed, or claiming what the peer may not) leaves
     * the living incarnation, its numbers and its acks as they were, so that no single message can
     * end a peer (docs/security.md, "Incarnations"). The first incarnation ever seen begins with its
     * first envelope, applied or refused: there is no living one to keep.
     */
    private Result begin(Envelope e, Handler handler) {
        if (e.sequence() != 1) {
            return gap(e, 1);
        }
        Long ended = incarnation;
        long endedLast = lastSequence;
        Map<Long, Ack> endedAcks = new LinkedHashMap<>(acks);
        acks.clear();
        incarnation = e.incarnation();
        lastSequence = 0;
        Ack ack = handle(e, handler);
        if (ack.isRefusal() && ended != null) {
            incarnation = ended;
            lastSequence = endedLast;
            acks.clear();
            acks.putAll(endedAcks);
            return new Result(Outcome.HANDLED, ack, null);
        }
        return new Result(Outcome.HANDLED, ack, ended);
    }

    private Ack handle(Envelope e, Handler handler) {
        Ack ack;
        try {
            ack = Objects.requireNonNull(handler.apply(e), "the handler's ack");
        } catch (InvalidRequestException ex) {
            ack = Ack.refused(e.sequence(), ex.problems());
        }
        lastSequence = e.sequence();
        acks.put(e.sequence(), ack);
        return ack;
    }

    private Result repeat(Envelope e) {
        Ack kept = acks.get(e.sequence());
        if (kept == null) {
            return refuse(e, "sequence", "sequence " + e.sequence() + " was answered already and its ack is no"
                    + " longer kept (the last " + KEPT_ACKS + " are)", lastSequence, e.sequence());
        }
        return new Result(Outcome.REPEATED, kept, null);
    }

    private Result gap(Envelope e, long expected) {
        String missing = expected + 1 == e.sequence() ? "sequence " + expected : "sequences " + expected + " to " + (e.sequence() - 1);
        return refuse(e, "sequence", "sequence " + e.sequence() + " arrived before " + missing
                + "; resend from " + expected, expected, e.sequence());
    }

    private Result refuse(Envelope e, String field, String message, Long limit, Long value) {
        Problem p = new Problem(e.sender() + " incarnation " + e.incarnation(), field, message, limit, value);
        return new Result(Outcome.REFUSED, Ack.refused(e.sequence(), List.of(p)), null);
    }
}

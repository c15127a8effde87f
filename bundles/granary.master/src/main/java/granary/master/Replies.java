package granary.master;

import granary.api.model.Problem;
import granary.protocol.Ack;
import granary.protocol.Envelope;
import granary.protocol.Sender;
import granary.protocol.WireCodec;
import granary.protocol.link.Reply;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.function.BiConsumer;

/** The master's answers on the wire: acknowledgements, refusals, and the lease's and shutdown's 503s. */
final class Replies {

    private final WireCodec codec;
    private final Sender self;
    private final MasterOptions options;
    private final MasterBook book;
    /** Where a fault of the master's own logic goes (a turn that threw): its operators' log. */
    private final BiConsumer<String, Throwable> faults;

    Replies(WireCodec codec, Sender self, MasterBook book, BiConsumer<String, Throwable> faults) {
        this.codec = codec;
        this.self = self;
        this.options = book.options;
        this.book = book;
        this.faults = faults;
    }

    Sender self() {
        return self;
    }

    byte[] encode(Envelope e) {
        return codec.encode(e);
    }

    Reply reply(int status, long sequence, Problem problem) {
        return reply(status, Ack.refused(sequence, List.of(problem)));
    }

    Reply reply(int status, Ack ack) {
        return new Reply(status, codec.encode(Envelope.of(self, options.incarnation(), 0, ack)));
    }

    /**
     * {@code capOrHint} if the lease holds now, read after it was built and right before it leaves
     * (a pause in between is caught); else a 503 in its place: nothing decided without the lease
     * reaches a peer.
     */
    Reply leased(Reply capOrHint) {
        return options.lease().held() ? capOrHint : notLeader(self.toString());
    }

    /** 503 while this master does not hold the leader's lease: the peer tries its next master. */
    Reply notLeader(String subject) {
        return reply(503, 0, Problem.of(subject, "$", self + " incarnation " + options.incarnation()
                + " is not the leader (it does not hold the leadership lease: " + options.lease().why() + "); send to another master"));
    }

    Reply shuttingDown(String subject, long sequence) {
        return reply(503, sequence, Problem.of(subject, "$", "the master is shutting down"));
    }

    /**
     * The answer to a message or poll whose turn did not end normally: 503 if the master is shutting
     * down (its engine stopped), else 500 — a fault of the master, logged whole for its operators;
     * the peer hears only that it may send again (nothing of the message was acknowledged).
     */
    Reply failed(String subject, long sequence, Throwable ex) {
        Throwable cause = ex instanceof CompletionException && ex.getCause() != null ? ex.getCause() : ex;
        if (book.closed || cause instanceof IllegalStateException && String.valueOf(cause.getMessage()).contains("stopped")) {
            return shuttingDown(subject, sequence);
        }
        faults.accept(subject, cause);
        return reply(500, sequence, Problem.of(subject, "$", "the master failed while applying this message (its log says why); send again"));
    }
}

package granary.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import granary.api.model.InvalidRequestException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class SessionTest {

    private final Session session = new Session(Samples.AGENT);
    private final List<Long> applied = new ArrayList<>();
    private final Session.Handler handler = e -> {
        applied.add(e.sequence());
        return Ack.applied(e.sequence());
    };

    private static Envelope beat(long incarnation, long sequence) {
        return Envelope.of(Samples.AGENT, incarnation, sequence, new Heartbeat(List.of(), List.of(), null));
    }

    private Session.Result send(long incarnation, long sequence) {
        return session.accept(beat(incarnation, sequence), handler);
    }

    @Test
    void inOrderMessagesAreAppliedOnce() {
        for (long s = 1; s <= 3; s++) {
            Session.Result r = send(5, s);
            assertEquals(Session.Outcome.HANDLED, r.outcome());
            assertEquals(Ack.applied(s), r.ack());
        }
        assertEquals(List.of(1L, 2L, 3L), applied);
        assertEquals(5L, session.incarnation());
        assertEquals(3, session.lastSequence());
    }

    @Test
    void aDuplicateIsAnsweredWithTheSameAckAndAppliedOnce() {
        send(5, 1);
        Session.Result first = send(5, 2);
        Session.Result again = send(5, 2);
        Session.Result older = send(5, 1);
        assertEquals(Session.Outcome.REPEATED, again.outcome());
        assertSame(first.ack(), again.ack());
        assertEquals(Session.Outcome.REPEATED, older.outcome());
        assertEquals(List.of(1L, 2L), applied);
    }

    @Test
    void aRefusalByTheHandlerIsRepeatedToo() {
        send(5, 1);
        Session.Handler refusing = e -> {
            applied.add(e.sequence());
            throw new InvalidRequestException("node n7", "capacity", "must not be negative");
        };
        Session.Result r = session.accept(beat(5, 2), refusing);
        Session.Result retry = session.accept(beat(5, 2), refusing);
        assertTrue(r.ack().isRefusal());
        assertEquals(Session.Outcome.REPEATED, retry.outcome());
        assertEquals(r.ack(), retry.ack());
        assertEquals(List.of(1L, 2L), applied);
        assertEquals(Session.Outcome.HANDLED, send(5, 3).outcome());
    }

    /** A newer incarnation whose first message is refused ends nothing: the living one goes on, numbers and acks kept. */
    @Test
    void aRefusedFirstMessageOfANewerIncarnationLeavesTheLivingOne() {
        send(5, 1);
        send(5, 2);
        Session.Handler refusing = e -> {
            throw new InvalidRequestException("agent n1", "$.message", "not a registration");
        };
        Session.Result r = session.accept(beat(Long.MAX_VALUE, 1), refusing);
        assertTrue(r.ack().isRefusal());
        assertFalse(r.restarted(), "nothing ended");
        assertEquals(5L, session.incarnation());
        assertEquals(2, session.lastSequence());
        assertEquals(Session.Outcome.REPEATED, send(5, 2).outcome(), "its acks kept");
        assertEquals(Session.Outcome.HANDLED, send(5, 3).outcome());
        assertEquals(Session.Outcome.HANDLED, send(6, 1).outcome(), "a real restart still begins");
        assertEquals(6L, session.incarnation());
    }

    @Test
    void aGapIsReportedAndChangesNothing() {
        send(5, 1);
        Session.Result r = send(5, 4);
        assertEquals(Session.Outcome.REFUSED, r.outcome());
        assertEquals("agent n7 incarnation 5: sequence: sequence 4 arrived before sequences 2 to 3; resend from 2",
                r.ack().problems().get(0).toString());
        assertEquals(2L, r.ack().problems().get(0).limit());
        assertEquals(4L, r.ack().problems().get(0).value());
        assertEquals(1, session.lastSequence());
        assertEquals(Session.Outcome.HANDLED, send(5, 2).outcome());
        assertEquals(List.of(1L, 2L), applied);
    }

    @Test
    void aMessageOfADeadIncarnationIsRefused() {
        send(5, 1);
        send(9, 1);
        Session.Result r = send(5, 2);
        assertEquals(Session.Outcome.REFUSED, r.outcome());
        assertEquals("a message from incarnation 5, which ended when 9 began", r.ack().problems().get(0).message());
        assertEquals(9L, session.incarnation());
        assertEquals(1, session.lastSequence());
        assertEquals(List.of(1L, 1L), applied);
    }

    @Test
    void aRestartReplacesTheOldIncarnation() {
        send(5, 1);
        send(5, 2);
        Session.Result r = send(9, 1);
        assertEquals(Session.Outcome.HANDLED, r.outcome());
        assertTrue(r.restarted());
        assertEquals(5L, r.endedIncarnation());
        assertEquals(9L, session.incarnation());
        // sequence 2 of the new incarnation is new, not a repeat of the old one's
        assertEquals(Session.Outcome.HANDLED, send(9, 2).outcome());
        assertEquals(List.of(1L, 2L, 1L, 2L), applied);
    }

    @Test
    void theFirstIncarnationIsNotARestart() {
        Session.Result r = send(5, 1);
        assertFalse(r.restarted());
        assertNull(r.endedIncarnation());
    }

    @Test
    void aNewIncarnationMustBeginAtOne() {
        send(5, 1);
        Session.Result r = send(9, 3);
        assertEquals(Session.Outcome.REFUSED, r.outcome());
        assertEquals("sequence 3 arrived before sequences 1 to 2; resend from 1", r.ack().problems().get(0).message());
        assertEquals(5L, session.incarnation());
        assertEquals(List.of(1L), applied);
    }

    @Test
    void anotherSenderIsRefused() {
        Envelope e = Envelope.of(new Sender(Role.AGENT, "n8"), 5, 1, new Heartbeat(List.of(), List.of(), null));
        Session.Result r = session.accept(e, handler);
        assertEquals(Session.Outcome.REFUSED, r.outcome());
        assertEquals("sent by agent n8, but this session is with agent n7", r.ack().problems().get(0).message());
        assertNull(session.incarnation());
        assertTrue(applied.isEmpty());
    }

    @Test
    void anAckTooOldToBeKeptIsRefusedNotReapplied() {
        for (long s = 1; s <= Session.KEPT_ACKS + 1; s++) {
            send(5, s);
        }
        Session.Result r = send(5, 1);
        assertEquals(Session.Outcome.REFUSED, r.outcome());
        assertEquals(Session.KEPT_ACKS + 1, applied.size());
    }
}

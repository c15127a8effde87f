package granary.protocol.link;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import granary.protocol.Ack;
import granary.protocol.Cap;
import granary.protocol.Envelope;
import granary.protocol.Heartbeat;
import granary.protocol.Role;
import granary.protocol.Sender;
import granary.protocol.link.FakeMaster.Fault;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The blocking facade: what its calls return and throw, and that a send's wait is bounded and leaves nothing behind. */
class SyncLinkTest {

    private static final Sender AGENT = new Sender(Role.AGENT, "n1");
    private static final SyncLink.Options FAST = SyncLink.Options.defaults().withRequestTimeout(Duration.ofSeconds(2))
            .withAnswerWithin(Duration.ofSeconds(10)).withBackoff(Duration.ofMillis(10), Duration.ofMillis(50));
    private final List<AutoCloseable> open = new ArrayList<>();

    @AfterEach
    void stop() throws Exception {
        for (AutoCloseable c : open) {
            c.close();
        }
    }

    private FakeMaster master() throws Exception {
        FakeMaster m = new FakeMaster(42);
        open.add(m);
        return m;
    }

    private SyncLink link(FakeMaster m, SyncLink.Options options) {
        SyncLink l = new SyncLink(m.url, AGENT, 1, "t", options);
        open.add(l);
        return l;
    }

    private static Heartbeat beat() {
        return new Heartbeat(List.of(), List.of(), null);
    }

    @Test
    void aSendReturnsTheAckAndARefusalIsAnAckWithProblems() throws Exception {
        FakeMaster m = master();
        m.registerFirst = true;
        SyncLink link = link(m, FAST);
        assertEquals(null, link.serverIncarnation(), "no answer yet");

        Ack refused = link.send(beat());

        assertTrue(refused.isRefusal());
        assertEquals("register first", refused.problems().get(0).message());
        assertEquals(42L, link.serverIncarnation());
        assertEquals(m.url, link.base());
    }

    @Test
    void aRefusedTokenIsAnUnauthorizedLinkExceptionAndIsNotPostedAgain() throws Exception {
        FakeMaster m = master().fault(Fault.REFUSE_TOKEN);
        SyncLink link = link(m, FAST);

        LinkException ex = assertThrows(LinkException.class, () -> link.send(beat()));

        assertEquals(LinkException.Kind.UNAUTHORIZED, ex.kind());
        assertTrue(ex.getMessage().contains("refused the token of agent n1 (HTTP 401)"), ex.getMessage());
        assertEquals(1, m.posts.get());
        Ack next = link.send(beat());
        assertFalse(next.isRefusal());
        assertEquals(1, next.sequence(), "the refused message was not applied: its number goes to the next");
    }

    @Test
    void aSendWithoutAnAnswerWithinItsWaitThrowsAndClosesTheLink() throws Exception {
        FakeMaster m = master();
        m.down = true; // 503 to every post
        SyncLink link = link(m, FAST.withAnswerWithin(Duration.ofMillis(600)));

        long t0 = System.nanoTime();
        LinkException ex = assertThrows(LinkException.class, () -> link.send(beat()));
        long took = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);

        assertEquals(LinkException.Kind.UNREACHABLE, ex.kind());
        assertTrue(took >= 600 && took < 5_000, "waited its bound: " + took + " ms");
        assertTrue(ex.getMessage().startsWith("no answer from " + m.url + " to agent n1's heartbeat within 600 ms (last: "),
                ex.getMessage());
        assertTrue(ex.getMessage().contains("answered HTTP 503: not ready") && ex.getMessage().endsWith("; the link is closed"),
                ex.getMessage());
        int posts = m.posts.get();
        assertTrue(posts > 2, "posted again meanwhile: " + posts);
        // a post already on its way when the wait ended may still land (once); then nothing more comes
        Thread.sleep(100);
        int landed = m.posts.get();
        assertTrue(landed <= posts + 1, "at most the post that was on its way: " + posts + " then " + landed);
        Thread.sleep(500); // ten pauses of the link: had it gone on, it would have posted by now
        assertEquals(landed, m.posts.get(), "nothing is posted once the wait is over");
        LinkException closed = assertThrows(LinkException.class, () -> link.send(beat()));
        assertEquals(LinkException.Kind.CLOSED, closed.kind());
        assertTrue(closed.getMessage().contains("is closed (no answer from"), closed.getMessage());
        assertEquals(LinkException.Kind.CLOSED, assertThrows(LinkException.class, () -> link.poll(0)).kind());
    }

    @Test
    void closingEndsASendThatWaits() throws Exception {
        FakeMaster m = master();
        m.down = true;
        SyncLink link = link(m, FAST);
        CompletableFuture<LinkException> waiting = CompletableFuture.supplyAsync(
                () -> assertThrows(LinkException.class, () -> link.send(beat())));
        while (m.posts.get() == 0) {
            Thread.sleep(10);
        }

        link.close();

        LinkException ex = waiting.get(5, TimeUnit.SECONDS);
        assertEquals(LinkException.Kind.CLOSED, ex.kind(), ex.getMessage());
        assertTrue(ex.getMessage().contains("is closed"), ex.getMessage());
    }

    @Test
    void pollsHandOutTheInboxInOrderAndAcknowledgeWhatCameBefore() throws Exception {
        FakeMaster m = master();
        SyncLink link = link(m, FAST);
        m.outbox.add(new Cap(List.of(), List.of(), true));
        m.outbox.add(new Cap(List.of(), List.of(), false));

        Optional<Envelope> first = link.poll(0);
        Optional<Envelope> second = link.poll(0);
        Optional<Envelope> none = link.poll(0);

        assertEquals(1, first.orElseThrow().sequence());
        assertTrue(((Cap) first.get().message()).full());
        assertEquals(2, second.orElseThrow().sequence());
        assertTrue(none.isEmpty());
        assertEquals(2, m.acknowledged, "the last poll acknowledged both");
    }
}

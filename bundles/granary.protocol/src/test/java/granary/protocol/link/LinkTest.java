package granary.protocol.link;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import granary.api.model.Clock;
import granary.api.model.Resources;
import granary.api.model.UnitId;
import granary.protocol.Cap;
import granary.protocol.Heartbeat;
import granary.protocol.Message;
import granary.protocol.Register;
import granary.protocol.Role;
import granary.protocol.Sender;
import granary.protocol.link.FakeMaster.Fault;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link Link} itself, on a {@link ThreadLoop} and {@link HttpTransport} as in the agent and the job
 * master client, against a {@link FakeMaster} (the real {@link granary.protocol.Session} behind a
 * real {@link JdkHttpServer} on 127.0.0.1): exactly once, in order, one at a time, the server's
 * "resend from 1", refusals final or not, a restarted master, a fenced incarnation.
 */
class LinkTest {

    private static final Sender AGENT = new Sender(Role.AGENT, "n1");
    private static final UnitId UNIT = new UnitId("j1", "tasks");
    /** Answers within 500 ms or the call counts as failed; pauses of 20 ms doubling to 100 ms. */
    private static final Link.Options FAST = new Link.Options(Duration.ofMillis(500), Duration.ofMillis(20),
            Duration.ofMillis(100), false);

    private final List<Throwable> errors = new CopyOnWriteArrayList<>();
    private final ThreadLoop loop = new ThreadLoop("link-test", Clock.system(), errors::add);
    private final List<FakeMaster> masters = new ArrayList<>();
    /** What the links' watcher heard, in order: "trouble KIND", "restored", "restarted N". */
    private final List<String> heard = new CopyOnWriteArrayList<>();
    private final List<LinkException> troubles = new CopyOnWriteArrayList<>();

    @AfterEach
    void stop() {
        loop.close();
        masters.forEach(FakeMaster::close);
        assertEquals(List.of(), errors, "no task on the loop threw");
    }

    private FakeMaster master(long incarnation) throws Exception {
        FakeMaster m = new FakeMaster(incarnation);
        masters.add(m);
        return m;
    }

    private Link link(FakeMaster m, Link.Options options) {
        return new Link(List.of(m.url), AGENT, 1, "t", options, new HttpTransport(Duration.ofSeconds(2), null), loop)
                .watch(new Link.Watcher() {
                    @Override
                    public void restarted(long incarnation) {
                        heard.add("restarted " + incarnation);
                    }

                    @Override
                    public void trouble(LinkException why, long failingForMillis) {
                        heard.add("trouble " + why.kind());
                        troubles.add(why);
                    }

                    @Override
                    public void restored() {
                        heard.add("restored");
                    }
                });
    }

    /** {@code m} handed to the link on its loop; the outcome when it comes. */
    private CompletableFuture<Link.Outcome> send(Link link, Message m) {
        CompletableFuture<Link.Outcome> f = new CompletableFuture<>();
        loop.execute(() -> link.send(m, f::complete));
        return f;
    }

    private CompletableFuture<Link.Polled> poll(Link link) {
        CompletableFuture<Link.Polled> f = new CompletableFuture<>();
        loop.execute(() -> link.poll(0, f::complete));
        return f;
    }

    private static <T> T await(CompletableFuture<T> f) throws Exception {
        return f.get(10, TimeUnit.SECONDS);
    }

    /** What the watcher heard, read on the loop (after the task that ended the messages, which tells it last). */
    private List<String> heard() throws Exception {
        return onLoop(() -> List.copyOf(heard));
    }

    /** Reads what the loop owns. */
    private <T> T onLoop(Supplier<T> read) throws Exception {
        return loop.call(read, Duration.ofSeconds(5));
    }

    /** A heartbeat told apart by {@code n}: it reports slot {@code n} of a unit exited. */
    private static Heartbeat beat(int n) {
        return new Heartbeat(List.of(), List.of(new Heartbeat.Exit(UNIT, n, 0)), null);
    }

    private static int slotOf(Message m) {
        return ((Heartbeat) m).exited().get(0).slot();
    }

    private static Register register() {
        return new Register("n1", "r1", Map.of(), Resources.of(400, 8192), "http://127.0.0.1:9/n1");
    }

    private static Link.Outcome applied(Link.Outcome o) {
        assertTrue(o.answered(), () -> "answered: " + o.failure().getMessage());
        assertEquals(200, o.status());
        assertFalse(o.ack().isRefusal(), o.ack().toString());
        return o;
    }

    private static LinkException failed(Link.Outcome o, LinkException.Kind kind) {
        assertFalse(o.answered(), () -> "not answered: " + o.ack());
        assertEquals(kind, o.failure().kind(), o.failure().getMessage());
        return o.failure();
    }

    @Test
    void aLostAnswerIsPostedAgainWithTheSameSequenceNumberAndAppliedOnce() throws Exception {
        FakeMaster m = master(10).fault(Fault.LOSE_ANSWER);
        m.slowMillis = 2_000; // the answer comes after the link's 500 ms: lost
        Link link = link(m, FAST);

        Link.Outcome o = applied(await(send(link, beat(0))));

        assertEquals(1, o.ack().sequence());
        assertEquals(List.of(1L, 1L), m.sequences, "posted again with the same number");
        assertEquals(1, m.applied.size(), "applied once: the repeat got the kept ack");
        assertEquals(List.of("trouble UNREACHABLE", "restored"), heard());
        assertTrue(troubles.get(0).getMessage().contains("cannot reach " + m.url), troubles.get(0).getMessage());

        applied(await(send(link, beat(1))));
        assertEquals(List.of(1L, 1L, 2L), m.sequences, "the next message takes the next number");
        assertEquals(List.of(0, 1), m.applied.stream().map(e -> slotOf(e.message())).toList());
    }

    @Test
    void messagesGoOneAtATimeInTheOrderGivenAndALaterOneWaitsForAFailedOne() throws Exception {
        FakeMaster m = master(10).fault(Fault.NONE, Fault.UNAVAILABLE); // the first post of message 1 is answered 503
        m.answerMillis = 30;
        Link link = link(m, FAST);
        List<Integer> answered = new CopyOnWriteArrayList<>();
        List<CompletableFuture<Link.Outcome>> outcomes = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            outcomes.add(new CompletableFuture<>());
        }
        loop.execute(() -> {
            for (int i = 0; i < 5; i++) {
                int n = i;
                link.send(beat(n), o -> {
                    answered.add(n);
                    outcomes.get(n).complete(o);
                });
            }
        });
        for (CompletableFuture<Link.Outcome> f : outcomes) {
            applied(await(f));
        }

        assertEquals(List.of(0, 1, 2, 3, 4), answered, "outcomes in the order given");
        assertEquals(List.of(0, 1, 2, 3, 4), m.applied.stream().map(e -> slotOf(e.message())).toList(), "applied in that order");
        assertEquals(List.of(1L, 2L, 3L, 4L, 5L), m.applied.stream().map(e -> e.sequence()).toList());
        assertEquals(6, m.posts.get(), "message 1 posted twice, no other");
        assertEquals(1, m.mostAtOnce.get(), "never two posts at once: message 2 waited for message 1's answer");
        assertEquals(List.of("trouble UNREACHABLE", "restored"), heard());
        assertTrue(troubles.get(0).getMessage().contains("answered HTTP 503: not ready"), troubles.get(0).getMessage());
    }

    @Test
    void aServerWithNoSessionOfThisIncarnationAsksToResendFromOneAndTheNumberingStartsAgain() throws Exception {
        // Found by killing a real master: the agent's first message to the new master was a heartbeat,
        // refused before any session began, so every later message was a "gap, resend from 1" forever.
        FakeMaster m = master(3_000);
        m.registerFirst = true;
        Link link = link(m, FAST);

        Link.Outcome refused = await(send(link, beat(0)));
        assertTrue(refused.answered() && refused.ack().isRefusal(), "a heartbeat before registering is refused: an answer");
        assertEquals(400, refused.status());
        CompletableFuture<Link.Outcome> gap = send(link, beat(1));
        CompletableFuture<Link.Outcome> queued = send(link, beat(2));
        LinkException why = failed(await(gap), LinkException.Kind.RESTARTED);
        assertTrue(why.getMessage().contains("holds no session of agent n1 incarnation 1: numbering starts again at 1"), why.getMessage());
        assertEquals("sequence", why.problems().get(0).field());
        assertEquals(1L, why.problems().get(0).limit(), "resend from 1");
        failed(await(queued), LinkException.Kind.RESTARTED);
        assertEquals(List.of("restarted 3000"), heard(), "the owner is told to send its full state");

        Link.Outcome full = applied(await(send(link, register())));
        assertEquals(1, full.ack().sequence());
        assertEquals(List.of(1L, 2L, 1L), m.sequences, "the message queued behind the gap was never posted");
        assertEquals(1, m.applied.size());
    }

    @Test
    void withRefusalsFinalARefusedTokenEndsTheMessageUnappliedAndItsNumberIsUsedAgain() throws Exception {
        FakeMaster m = master(10).fault(Fault.REFUSE_TOKEN);
        Link link = link(m, FAST.withRefusalsFinal(true));

        LinkException why = failed(await(send(link, beat(0))), LinkException.Kind.UNAUTHORIZED);
        assertTrue(why.getMessage().contains("refused the token of agent n1 (HTTP 401): the token is not valid"), why.getMessage());
        assertEquals("Authorization", why.problems().get(0).field());
        Thread.sleep(300); // many backoffs: had the link gone on, it would have posted again by now
        assertEquals(1, m.posts.get(), "not posted again");
        assertEquals(List.of(), heard(), "a final refusal is no trouble");

        Link.Outcome next = applied(await(send(link, beat(1))));
        assertEquals(1, next.ack().sequence(), "the refused message's number goes to the next one");
        assertEquals(List.of(1), m.applied.stream().map(e -> slotOf(e.message())).toList());
    }

    @Test
    void withoutRefusalsFinalARefusedTokenIsTroubleAndTheMessageIsPostedAgain() throws Exception {
        // as for the master, which answers 401 while it restarts with another secret
        FakeMaster m = master(10).fault(Fault.REFUSE_TOKEN, Fault.REFUSE_TOKEN);
        Link link = link(m, FAST);

        Link.Outcome o = applied(await(send(link, beat(0))));

        assertEquals(1, o.ack().sequence());
        assertEquals(3, m.posts.get());
        assertEquals(List.of("trouble UNAUTHORIZED", "trouble UNAUTHORIZED", "restored"), heard());
        assertEquals(1, m.applied.size());
    }

    @Test
    void aLargerIncarnationInAnAnswerIsAMasterThatRestarted() throws Exception {
        FakeMaster m = master(10);
        Link link = link(m, FAST);
        applied(await(send(link, register())));
        applied(await(send(link, beat(0))));
        assertEquals(10L, onLoop(link::serverIncarnation));

        m.forget(); // the master restarts: a larger incarnation, no session of anyone
        m.incarnation = 11;
        CompletableFuture<Link.Outcome> inFlight = send(link, beat(1));
        CompletableFuture<Link.Outcome> queued = send(link, beat(2));
        LinkException why = failed(await(inFlight), LinkException.Kind.RESTARTED);
        assertTrue(why.getMessage().contains("master m restarted (incarnation 10 → 11): send the full state again"), why.getMessage());
        failed(await(queued), LinkException.Kind.RESTARTED);
        assertEquals(List.of("restarted 11"), heard());
        assertEquals(11L, onLoop(link::serverIncarnation));
        assertEquals(0, onLoop(link::unanswered));

        Link.Outcome full = applied(await(send(link, register())));
        assertEquals(1, full.ack().sequence(), "numbering starts again at 1");
        assertEquals(List.of(1L, 2L, 3L, 1L), m.sequences);

        // the inbox: an envelope of an incarnation larger still is a restart too, and is not taken
        m.outbox.add(new Cap(List.of(), List.of(), true));
        Link.Polled first = await(poll(link));
        assertNotNull(first.envelope(), () -> String.valueOf(first.failure()));
        assertEquals(1, first.envelope().sequence());
        m.outbox.add(new Cap(List.of(), List.of(), true));
        m.incarnation = 12;
        Link.Polled second = await(poll(link));
        assertNull(second.envelope());
        assertEquals(LinkException.Kind.RESTARTED, second.failure().kind(), second.failure().getMessage());
        assertEquals(List.of("restarted 11", "restarted 12"), heard());
        assertEquals(1, m.acknowledged, "the second envelope was not acknowledged");
        Link.Outcome after = await(send(link, register()));
        assertEquals(1, after.ack().sequence(), "numbering starts again after a restart seen in the inbox too");
    }

    /**
     * The full state numbered 1 after one restart is answered by a master that restarted again
     * meanwhile: that master began its session with it, so the link takes the answer and numbers on
     * (2, 3, ...); the owner is told of the restart after the answer, and its full state sent again
     * is number 2. Starting at 1 again would send a second number 1, which the master takes for a
     * copy of the first and does not apply: the owner's newer full state would be lost.
     */
    @Test
    void aFirstMessageAnsweredByAMasterThatRestartedAgainBeganItsSessionAndNumberingGoesOn() throws Exception {
        FakeMaster m = master(10);
        Link link = link(m, FAST);
        applied(await(send(link, register())));
        m.forget();
        m.incarnation = 11;
        failed(await(send(link, beat(1))), LinkException.Kind.RESTARTED);
        m.forget(); // and again, before the full state arrives
        m.incarnation = 12;
        Link.Outcome full = applied(await(send(link, register())));
        assertEquals(1, full.ack().sequence());
        assertEquals(12L, onLoop(link::serverIncarnation));
        assertEquals(List.of("restarted 11", "restarted 12"), heard(), "told after the answer");
        Link.Outcome again = applied(await(send(link, register())));
        assertEquals(2, again.ack().sequence(), "numbering goes on in the session the full state began");
        assertEquals(List.of(1L, 2L, 1L, 2L), m.sequences, "the full state is read once at 1; the one sent again is 2");
        assertEquals(3, m.applied.size(), "the first registration and both of the new session: " + m.applied);
    }

    @Test
    void aFencedIncarnationEndsEveryMessageAndTheLinkSendsNothingMore() throws Exception {
        FakeMaster m = master(10).fault(Fault.FENCE);
        Link link = link(m, FAST);

        CompletableFuture<Link.Outcome> first = send(link, beat(0));
        CompletableFuture<Link.Outcome> queued = send(link, beat(1));
        LinkException why = failed(await(first), LinkException.Kind.FENCED);
        assertTrue(why.getMessage().contains("fenced agent n1 incarnation 1: incarnation 1 is fenced"), why.getMessage());
        failed(await(queued), LinkException.Kind.FENCED);
        failed(await(send(link, beat(2))), LinkException.Kind.FENCED);
        assertEquals(LinkException.Kind.FENCED, await(poll(link)).failure().kind());
        assertEquals(1, m.posts.get(), "nothing was posted after the fencing");
        assertEquals(-1, m.acknowledged, "nor polled");
    }
}

package granary.protocol.link;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import granary.api.model.Resources;
import granary.protocol.Cap;
import granary.protocol.Heartbeat;
import granary.protocol.Register;
import granary.protocol.Role;
import granary.protocol.Sender;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A {@link Link} given several masters, through {@link SyncLink} over real HTTP on 127.0.0.1: it
 * follows a standby's pointer, skips a dead master, re-syncs with a new leader or a master started
 * again, and fences a deposed one.
 */
class LinkFailoverTest {

    private static final Sender AGENT = new Sender(Role.AGENT, "n1");
    private static final SyncLink.Options FAST = SyncLink.Options.defaults().withRequestTimeout(Duration.ofSeconds(5))
            .withAnswerWithin(Duration.ofSeconds(10)).withBackoff(Duration.ofMillis(10), Duration.ofMillis(100));
    private final List<AutoCloseable> open = new ArrayList<>();

    @AfterEach
    void stop() throws Exception {
        for (AutoCloseable c : open) {
            c.close();
        }
    }

    private FakeMaster master(long incarnation) throws IOException {
        return opened(new FakeMaster(incarnation));
    }

    private SyncLink link(List<URI> servers, long incarnation, SyncLink.Options options) {
        return opened(new SyncLink(servers, AGENT, incarnation, "t", options));
    }

    private <T extends AutoCloseable> T opened(T c) {
        open.add(c);
        return c;
    }

    /**
     * A standby as the master serves one on Jetty (EndpointServlet): 421 with the leader's URL in
     * the {@link Standby#LEADER_HEADER} header. ({@link JdkHttpServer} writes no such header; a
     * {@link FakeMaster} standby answers 421 without it.)
     */
    private static final class HeaderStandby implements AutoCloseable {
        final HttpServer http;
        final URI url;
        final AtomicInteger calls = new AtomicInteger();

        HeaderStandby(URI leader) throws IOException {
            http = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
            url = URI.create("http://127.0.0.1:" + http.getAddress().getPort());
            http.createContext("/protocol/v1/", x -> answer(x, leader));
            http.start();
        }

        private void answer(HttpExchange x, URI leader) throws IOException {
            calls.incrementAndGet();
            x.getRequestBody().readAllBytes();
            Reply r = Standby.refusal("standby", url, leader);
            x.getResponseHeaders().add(Standby.LEADER_HEADER, leader.toString());
            x.getResponseHeaders().add("Content-Type", Reply.CONTENT_TYPE);
            x.sendResponseHeaders(r.status(), r.body().length);
            x.getResponseBody().write(r.body());
            x.close();
        }

        @Override
        public void close() {
            http.stop(0);
        }
    }

    private static URI deadUrl() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getByName("127.0.0.1"))) {
            return URI.create("http://127.0.0.1:" + s.getLocalPort()); // closed at once: nothing listens there
        }
    }

    private static Heartbeat beat() {
        return new Heartbeat(List.of(), List.of(), null);
    }

    private static Register register() {
        return new Register("n1", "r1", Map.of(), Resources.of(400, 8192), "http://127.0.0.1:1");
    }

    @Test
    void followsAStandbysPointerToTheLeader() throws Exception {
        FakeMaster leader = master(200);
        HeaderStandby standby = opened(new HeaderStandby(leader.url));
        SyncLink link = link(List.of(standby.url), 1, FAST); // the leader is not in the list: only the pointer leads there
        assertFalse(link.send(beat()).isRefusal());
        assertEquals(leader.url, link.base());
        assertEquals(List.of(1L), leader.sequences);
        assertEquals(1, standby.calls.get(), "asked once: a pointer is followed at once, not as a failed attempt");
        assertEquals(200L, link.serverIncarnation());
        leader.outbox.add(new Cap(List.of(), List.of(), true));
        assertTrue(link.poll(10).isPresent(), "polls go to the leader too");
        assertEquals(1, standby.calls.get());
    }

    @Test
    void aStandbysRefusalNamesTheLeaderInTheHeaderAndTheText() {
        Reply r = Standby.refusal("m2", URI.create("http://10.0.0.2:7070"), URI.create("http://10.0.0.1:7070"));
        assertEquals(421, r.status());
        assertTrue(new String(r.body(), java.nio.charset.StandardCharsets.UTF_8).contains(
                "master http://10.0.0.2:7070 is a standby and does not serve the protocol; the leader is http://10.0.0.1:7070"));
        assertEquals(503, Standby.refusal("m2", URI.create("http://10.0.0.2:7070"), null).status(), "no leader known yet");
    }

    @Test
    void skipsAMasterThatCannotBeReached() throws Exception {
        FakeMaster leader = master(300);
        SyncLink link = link(List.of(deadUrl(), leader.url), 1, FAST);
        assertFalse(link.send(beat()).isRefusal());
        assertEquals(leader.url, link.base());
        assertEquals(List.of(1L), leader.sequences);
    }

    @Test
    void aNewLeaderIsSeenAsARestartedMaster() throws Exception {
        FakeMaster first = master(1_000);
        FakeMaster second = master(1_001);
        second.standbyFor = first.url;
        SyncLink link = link(List.of(first.url, second.url), 1, FAST);
        link.send(register());
        link.send(beat());
        first.close(); // the leader dies; the standby takes over with a larger epoch
        second.standbyFor = null;
        LinkException ex = assertThrows(LinkException.class, () -> link.send(beat()));
        assertEquals(LinkException.Kind.RESTARTED, ex.kind(), ex.getMessage());
        assertTrue(ex.getMessage().contains("restarted (incarnation 1000 → 1001)"), ex.getMessage());
        assertEquals(second.url, link.base());
        assertEquals(List.of(3L), second.sequences, "the message in flight went to the new leader with its old number");
        link.send(register());
        assertEquals(List.of(3L, 1L), second.sequences, "numbering starts again at 1 with the new leader");
        assertEquals(1001L, link.serverIncarnation());
    }

    @Test
    void aMasterStartedAgainOnItsAddressIsSeenByItsFirstAnswer() throws Exception {
        FakeMaster before = master(500);
        SyncLink link = link(List.of(before.url), 1, FAST);
        link.send(register());
        int port = before.url.getPort();
        before.close();
        // the master is away for a while; the link posts its heartbeat again until the new one answers
        CompletableFuture<FakeMaster> again = CompletableFuture.supplyAsync(() -> {
            try {
                Thread.sleep(300);
                return opened(new FakeMaster(501, port));
            } catch (IOException | InterruptedException ex) {
                throw new IllegalStateException(ex);
            }
        });
        LinkException ex = assertThrows(LinkException.class, () -> link.send(beat()));
        FakeMaster after = again.get(10, TimeUnit.SECONDS);
        assertEquals(LinkException.Kind.RESTARTED, ex.kind(), ex.getMessage());
        assertEquals(List.of(2L), after.sequences, "the new master holds no session: a gap, answered as incarnation 501");
        assertFalse(link.send(register()).isRefusal());
        assertEquals(List.of(2L, 1L), after.sequences, "the full state, numbered 1");
        assertEquals(1, after.applied.size());
    }

    @Test
    void answersOfADeposedLeaderAreFenced() throws Exception {
        FakeMaster deposed = master(2_000);
        FakeMaster current = master(2_000);
        SyncLink link = link(List.of(deposed.url, current.url), 1, FAST);
        link.send(beat());
        assertEquals(deposed.url, link.base());
        // a new leader took over (epoch 2001); the old one, cut off, still answers with its own
        current.incarnation = 2_001;
        deposed.incarnation = 1_999;
        deposed.outbox.add(new Cap(List.of(), List.of(), true));
        LinkException dropped = assertThrows(LinkException.class, () -> link.poll(10));
        assertEquals(LinkException.Kind.UNREACHABLE, dropped.kind());
        assertTrue(dropped.getMessage().contains("incarnation 1999, which ended when 2000 began (fenced: dropped)"),
                dropped.getMessage());
        assertEquals(current.url, link.base(), "and the link moves on to the next master");
        assertTrue(link.poll(10).isEmpty());
        assertEquals(0, current.acknowledged, "the dropped envelope was not acknowledged");
        assertEquals(LinkException.Kind.RESTARTED, assertThrows(LinkException.class, () -> link.send(beat())).kind(),
                "the new leader's larger incarnation");

        // a link that has seen the new leader takes no answer of the deposed one
        deposed.incarnation = 2_000;
        SyncLink l2 = link(List.of(current.url, deposed.url), 2, FAST.withAnswerWithin(Duration.ofSeconds(1)));
        l2.send(beat());
        int asked = deposed.posts.get();
        current.close();
        LinkException gone = assertThrows(LinkException.class, () -> l2.send(beat()));
        assertEquals(LinkException.Kind.UNREACHABLE, gone.kind(), "no answer but a fenced one: unreachable");
        assertTrue(gone.getMessage().contains("within 1000 ms"), gone.getMessage());
        assertTrue(deposed.posts.get() > asked, "the deposed master was asked, and answered");
        assertEquals(2001L, l2.serverIncarnation(), "but its answer was not taken");
    }
}

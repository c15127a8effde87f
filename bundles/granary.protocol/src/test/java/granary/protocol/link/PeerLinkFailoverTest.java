package granary.protocol.link;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import granary.protocol.Ack;
import granary.protocol.Envelope;
import granary.protocol.Heartbeat;
import granary.protocol.Role;
import granary.protocol.Sender;
import granary.protocol.WireCodec;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** A link given several masters: it follows a standby's pointer, skips a dead master, re-syncs with a new leader and fences a deposed one. */
class PeerLinkFailoverTest {

    private static final Sender AGENT = new Sender(Role.AGENT, "n1");
    private static final PeerLink.Options FAST = new PeerLink.Options(Duration.ofSeconds(5), 3, Duration.ofMillis(10), null);
    private final List<FakeMaster> masters = new ArrayList<>();

    @AfterEach
    void stop() {
        masters.forEach(FakeMaster::stop);
    }

    /** A master on loopback: a leader of some incarnation, or a standby naming a leader. */
    final class FakeMaster {
        final HttpServer http;
        final URI url;
        volatile long incarnation;
        volatile URI standbyFor;
        /** Like a master that has just started: no session until a message numbered 1 is taken, and heartbeats before it are refused. */
        volatile boolean registerFirst;
        volatile boolean session;
        final List<Long> sequences = new CopyOnWriteArrayList<>();

        FakeMaster(long incarnation) throws IOException {
            this.incarnation = incarnation;
            http = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
            http.createContext("/protocol/v1/", this::handle);
            http.start();
            url = URI.create("http://127.0.0.1:" + http.getAddress().getPort());
            masters.add(this);
        }

        private void handle(HttpExchange x) throws IOException {
            Reply r;
            if (standbyFor != null) {
                x.getResponseHeaders().add(Standby.LEADER_HEADER, standbyFor.toString());
                r = Standby.refusal("m", url, standbyFor);
            } else if (x.getRequestMethod().equals("POST")) {
                Envelope in;
                try {
                    in = new WireCodec(Role.MASTER).decode(x.getRequestBody().readAllBytes(), "test");
                } catch (granary.protocol.ProtocolException ex) {
                    throw new IOException(ex);
                }
                sequences.add(in.sequence());
                if (registerFirst && !session && in.sequence() != 1) {
                    r = reply(409, Ack.refused(in.sequence(), List.of(new granary.api.model.Problem("envelope", "sequence",
                            "sequence " + in.sequence() + " arrived before sequence 1; resend from 1", 1L, in.sequence()))), 0);
                } else if (registerFirst && !session && in.message() instanceof Heartbeat) {
                    r = reply(400, Ack.refused(in.sequence(), List.of(new granary.api.model.Problem("heartbeat", "type",
                            "register first", null, null))), 1);
                } else {
                    session = session || registerFirst;
                    r = reply(200, Ack.applied(in.sequence()), 0);
                }
            } else {
                String q = x.getRequestURI().getQuery();
                long after = Long.parseLong(q.substring(q.indexOf("after=") + 6, q.indexOf('&')));
                r = reply(200, Ack.applied(0), after + 1);
            }
            x.getResponseHeaders().add("Content-Type", Reply.CONTENT_TYPE);
            x.sendResponseHeaders(r.status(), r.body().length);
            x.getResponseBody().write(r.body());
            x.close();
        }

        private Reply reply(int status, Ack ack, long sequence) {
            return new Reply(status, new WireCodec(Role.MASTER).encode(
                    Envelope.of(new Sender(Role.MASTER, "m"), incarnation, sequence, ack)));
        }

        void stop() {
            http.stop(0);
        }
    }

    private static URI deadUrl() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return URI.create("http://127.0.0.1:" + s.getLocalPort()); // closed at once: nothing listens there
        }
    }

    private static Heartbeat beat() {
        return new Heartbeat(List.of(), List.of(), null);
    }

    @Test
    void followsAStandbysPointerToTheLeader() throws Exception {
        FakeMaster leader = new FakeMaster(200);
        FakeMaster standby = new FakeMaster(0);
        standby.standbyFor = leader.url;
        PeerLink link = new PeerLink(List.of(standby.url, leader.url), AGENT, 1, "t", FAST.withRetries(0));
        assertFalse(link.send(beat()).isRefusal(), "a redirect is not a failed attempt, even with no retries");
        assertEquals(leader.url, link.base());
        assertEquals(List.of(1L), leader.sequences);
        assertEquals(200L, link.serverIncarnation());
        standby.standbyFor = leader.url;
        assertTrue(link.poll(10).isPresent(), "polls go to the leader too");
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
        FakeMaster leader = new FakeMaster(300);
        PeerLink link = new PeerLink(List.of(deadUrl(), leader.url), AGENT, 1, "t", FAST);
        assertFalse(link.send(beat()).isRefusal());
        assertEquals(leader.url, link.base());
    }

    @Test
    void aNewLeaderIsSeenAsARestartedMaster() throws Exception {
        FakeMaster first = new FakeMaster(1_000);
        FakeMaster second = new FakeMaster(1_001);
        second.standbyFor = first.url;
        PeerLink link = new PeerLink(List.of(first.url, second.url), AGENT, 1, "t", FAST);
        link.send(beat());
        link.send(beat());
        first.stop(); // the leader dies; the standby takes over with a larger epoch
        second.standbyFor = null;
        LinkException ex = assertThrows(LinkException.class, () -> link.send(beat()));
        assertEquals(LinkException.Kind.RESTARTED, ex.kind(), ex.getMessage());
        assertEquals(second.url, link.base());
        link.send(beat());
        assertEquals(1L, second.sequences.get(second.sequences.size() - 1), "numbering starts again at 1 with the new leader");
    }

    @Test
    void answersOfADeposedLeaderAreFenced() throws Exception {
        FakeMaster deposed = new FakeMaster(2_000);
        FakeMaster current = new FakeMaster(2_000);
        PeerLink link = new PeerLink(List.of(deposed.url, current.url), AGENT, 1, "t", FAST);
        link.send(beat());
        assertEquals(deposed.url, link.base());
        // a new leader took over (epoch 2001); the old one, cut off, still answers with its own
        current.incarnation = 2_001;
        deposed.incarnation = 1_999;
        Optional<Envelope> fromDeposed = link.poll(10);
        assertTrue(fromDeposed.isEmpty(), "an inbox envelope of a smaller incarnation is dropped");
        assertEquals(current.url, link.base(), "and the link moves on to the next master");
        assertEquals(LinkException.Kind.RESTARTED, assertThrows(LinkException.class, () -> link.send(beat())).kind());
        // even a pointer back to the deposed master takes no effect
        deposed.incarnation = 2_000;
        PeerLink l2 = new PeerLink(List.of(current.url, deposed.url), AGENT, 2, "t", FAST);
        l2.send(beat());
        current.stop();
        LinkException gone = assertThrows(LinkException.class, () -> l2.send(beat()));
        assertEquals(LinkException.Kind.UNREACHABLE, gone.kind(), "no answer but a fenced one: unreachable");
        assertTrue(gone.getMessage().contains("fenced"), gone.getMessage());
    }

    @Test
    void aMasterWithNoSessionOfThisIncarnationRestartsTheNumbering() throws Exception {
        // Found by killing a real master: the agent's first message to the new master was a heartbeat,
        // refused before any session began, so every later message was a "gap, resend from 1" forever.
        FakeMaster fresh = new FakeMaster(3_000);
        fresh.registerFirst = true;
        PeerLink link = new PeerLink(List.of(fresh.url), AGENT, 1, "t", FAST);
        assertTrue(link.send(beat()).isRefusal(), "a heartbeat before registering is refused");
        LinkException ex = assertThrows(LinkException.class, () -> link.send(beat()));
        assertEquals(LinkException.Kind.RESTARTED, ex.kind(), ex.getMessage());
        assertTrue(ex.getMessage().contains("numbering starts again at 1"), ex.getMessage());
        assertFalse(link.send(new granary.protocol.Register("n1", "r1", java.util.Map.of(), granary.api.model.Resources.of(400, 8192), "http://127.0.0.1:1")).isRefusal(),
                "the full state, numbered 1, begins the session");
        assertEquals(List.of(1L, 2L, 1L), fresh.sequences);
    }
}

package granary.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import granary.api.event.GrantReleased;
import granary.api.event.JobCancelled;
import granary.api.model.UnitId;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The allocation stream over a real Jetty: deltas, snapshots, reconnects with Last-Event-ID, filters, a stalled subscriber. */
class StreamTest {

    ApiHarness h;

    private void start(int buffer) throws Exception {
        h = new ApiHarness(null, buffer);
    }

    @AfterEach
    void stop() throws Exception {
        h.close();
    }

    private SseClient subscribe(String query, String lastEventId) throws Exception {
        return new SseClient(h.base.resolve(Api.BASE + "/stream" + query), h.reader, lastEventId);
    }

    private static final String ONE = """
            {"id": "one", "group": "root.a", "units": [{"name": "u", "slot": {"cpu": 800, "mem": 1024}, "desired": 1}]}""";

    @Test
    void aSubscriberGetsASnapshotThenEveryGrantRevocationAndRelease() throws Exception {
        start(4096);
        try (SseClient s = subscribe("", null)) {
            assertEquals(200, s.status);
            SseClient.Event snap = s.next("snapshot");
            assertEquals(4, snap.json().getAsJsonArray("nodes").size());
            assertEquals(201, h.send("POST", "/jobs", h.operator, RestApiTest.WC).status());
            SseClient.Event grant = s.next("grant");
            assertTrue(grant.json().get("unit").getAsString().startsWith("wc/map"), grant.data());
            assertTrue(grant.seq() > snap.seq(), "ids grow");
            String node = grant.json().get("node").getAsString();
            h.engine.submit(new GrantReleased(new UnitId("wc", "map"), node, 1));
            SseClient.Event release = s.next("release");
            assertEquals(node, release.json().get("node").getAsString());
            assertEquals(1, release.json().get("slots").getAsInt());
            SseClient.Event nodes = s.next("nodes");
            assertTrue(nodes.json().getAsJsonArray("nodes").size() >= 1, "usage of the nodes that changed, sampled");
            h.engine.submit(new JobCancelled("wc"));
            SseClient.Event revoke = s.next("revoke");
            assertEquals("cancelled", revoke.json().get("reason").getAsString());
        }
    }

    @Test
    void aReconnectWithLastEventIdGetsExactlyWhatItMissed() throws Exception {
        start(4096);
        String last;
        try (SseClient s = subscribe("?types=grant,revoke", null)) {
            s.next("snapshot");
            h.send("POST", "/jobs", h.operator, ONE);
            last = s.next("grant").id();
        }
        h.engine.submit(new JobCancelled("one"));
        h.send("POST", "/jobs", h.operator, ONE.replace("\"one\"", "\"two\""));
        try (SseClient s = subscribe("?types=grant,revoke", last)) {
            List<SseClient.Event> missed = s.until(e -> e.type().equals("grant"));
            assertEquals(List.of("revoke", "grant"), missed.stream().map(SseClient.Event::type).toList(),
                    "no snapshot, the revocation and the grant it missed, in order: " + missed);
            assertEquals("one/u", missed.get(0).json().get("unit").getAsString());
            assertEquals("two/u", missed.get(1).json().get("unit").getAsString());
        }
    }

    @Test
    void anIdTooOldOrOfAnotherStreamGetsASnapshotFirst() throws Exception {
        start(16);
        String first;
        try (SseClient s = subscribe("", null)) {
            s.next("snapshot");
            h.send("POST", "/jobs", h.operator, ONE);
            first = s.next("grant").id();
        }
        for (int i = 0; i < 20; i++) { // more than the ring holds
            h.engine.submit(new JobCancelled(i == 0 ? "one" : "j" + (i - 1)));
            h.send("POST", "/jobs", h.operator, ONE.replace("\"one\"", "\"j" + i + "\""));
        }
        try (SseClient s = subscribe("", first)) {
            SseClient.Event e = s.next(x -> true);
            assertEquals("snapshot", e.type(), "what it missed is gone: the state instead");
            assertTrue(e.json().getAsJsonArray("nodes").toString().contains("\"cpu\":800"), e.data());
        }
        try (SseClient s = subscribe("", "otherstream.3")) {
            assertEquals("snapshot", s.next(x -> true).type(), "a restarted master's stream is another stream");
        }
    }

    @Test
    void aStalledSubscriberSlowsNeitherTheEngineNorTheOthers() throws Exception {
        start(256);
        try (Socket stalled = new Socket("127.0.0.1", h.base.getPort()); SseClient live = subscribe("?types=grant", null)) {
            OutputStream o = stalled.getOutputStream();
            o.write(("GET " + Api.BASE + "/stream HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + h.reader
                    + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            o.flush(); // and never read a byte
            live.next("snapshot");
            for (int i = 0; i < 300; i++) { // far beyond the ring and the socket buffers of the stalled one
                h.send("POST", "/jobs", h.operator, ONE.replace("\"one\"", "\"s" + i + "\""));
                h.engine.submit(new JobCancelled("s" + i));
            }
            h.send("POST", "/jobs", h.operator, ONE.replace("\"one\"", "\"last\""));
            SseClient.Event e = live.next(x -> x.type().equals("grant") && x.data().contains("last/u"));
            assertTrue(e.seq() > 600, "the live subscriber got to the end: " + e.id());
        }
    }
}

package granary.master.osgi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import granary.protocol.link.Endpoint;
import granary.protocol.link.Paths;
import granary.protocol.link.Reply;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Peers that do not read their answers (a full socket; on HTTP/2 a window never opened) hold no
 * thread of the master's: on a real Jetty (127.0.0.1, a free port), more such peers than the peers'
 * threads each poll and never read an answer far larger than the socket's buffers, and another
 * peer's poll is still answered. With blocking writes the peers' threads all waited in those writes
 * (seen in a thread dump of a master under 20,000 agents: every "granary wire" thread inside a write)
 * and nobody else was answered until the connections' idle timeout.
 */
class EndpointServletReadersTest {

    /** Far more than a loopback socket's send and receive buffers hold. */
    private static final byte[] LARGE = new byte[32 * 1024 * 1024];
    private static final byte[] SMALL = "{\"messages\":[]}".getBytes(StandardCharsets.UTF_8);

    /** The slow peers' polls the master has answered: their answers are being written after that. */
    private final CountDownLatch slowAnswered = new CountDownLatch(PeerWork.THREADS * 2);

    /** A master that answers every poll at once: the peer "fast" small, every other peer large. */
    private final Endpoint answers = new Endpoint() {
        @Override
        public Reply post(String authorization, byte[] body, String remote) {
            throw new AssertionError("asynchronous only");
        }

        @Override
        public CompletableFuture<Reply> postAsync(String authorization, byte[] body, String remote) {
            return CompletableFuture.completedFuture(new Reply(200, SMALL));
        }

        @Override
        public CompletableFuture<Reply> poll(String authorization, long after, long waitMillis, String remote) {
            if ("Bearer fast".equals(authorization)) {
                return CompletableFuture.completedFuture(new Reply(200, SMALL));
            }
            slowAnswered.countDown();
            return CompletableFuture.completedFuture(new Reply(200, LARGE));
        }
    };

    private ServletJetty jetty;
    private int port;
    private final List<Socket> readers = new ArrayList<>();

    @BeforeEach
    void start() throws Exception {
        jetty = new ServletJetty(new EndpointServlet(answers, null, 30_000, 30_000));
        port = jetty.port;
    }

    @AfterEach
    void stop() throws Exception {
        for (Socket s : readers) {
            s.close();
        }
        jetty.close();
    }

    @Test
    void peersThatDoNotReadTheirAnswersHoldUpNobodyElse() throws Exception {
        for (int i = 0; i < PeerWork.THREADS * 2; i++) {
            Socket s = new Socket();
            readers.add(s);
            s.setReceiveBufferSize(4096);
            s.connect(new InetSocketAddress("127.0.0.1", port), 5_000);
            OutputStream out = s.getOutputStream();
            out.write(("GET " + Paths.INBOX + "?after=0&wait=0 HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer slow" + i + "\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            out.flush();   // and never read
        }
        assertTrue(slowAnswered.await(10, TimeUnit.SECONDS), "the master answered every slow peer's poll");
        HttpResponse<String> r = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build().send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + Paths.INBOX + "?after=0&wait=0"))
                        .timeout(Duration.ofSeconds(10)).header("Authorization", "Bearer fast").GET().build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(200, r.statusCode());
        assertEquals(new String(SMALL, StandardCharsets.UTF_8), r.body());
    }
}

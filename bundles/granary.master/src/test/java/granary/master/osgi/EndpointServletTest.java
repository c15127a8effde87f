package granary.master.osgi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import granary.protocol.link.Endpoint;
import granary.protocol.link.Paths;
import granary.protocol.link.Reply;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The endpoint servlet on a real Jetty (127.0.0.1, a free port) in front of a master that does not
 * answer: an overloaded master's posts and polls end in 503 with Retry-After, the peer's cue to send
 * again, never in the container's 500 (20,000 agents with work got 40,003 of those: the requests
 * outlived their time while the master's loop was behind); a body that does not come is still 408.
 */
class EndpointServletTest {

    /** What the master handed out for posts: the edge withdraws each when it answers 503. */
    private final java.util.List<CompletableFuture<Reply>> handedOut = new java.util.concurrent.CopyOnWriteArrayList<>();

    /** A master whose loop never gets to the message or the poll. */
    private final Endpoint behind = new Endpoint() {
        @Override
        public Reply post(String authorization, byte[] body, String remote) {
            throw new AssertionError("asynchronous only");
        }

        @Override
        public CompletableFuture<Reply> postAsync(String authorization, byte[] body, String remote) {
            CompletableFuture<Reply> f = new CompletableFuture<>();
            handedOut.add(f);
            return f;
        }

        @Override
        public CompletableFuture<Reply> poll(String authorization, long after, long waitMillis, String remote) {
            return new CompletableFuture<>();
        }
    };

    private ServletJetty jetty;
    private int port;

    @BeforeEach
    void start() throws Exception {
        jetty = new ServletJetty(new EndpointServlet(behind, null, 500, 300));
        port = jetty.port;
    }

    @AfterEach
    void stop() throws Exception {
        jetty.close();
    }

    @Test
    void aPostTheMasterDoesNotAnswerInTimeIs503WithRetryAfter() throws Exception {
        HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + Paths.MESSAGES))
                .timeout(Duration.ofSeconds(20)).header("Authorization", "Bearer t").POST(HttpRequest.BodyPublishers.ofString("{}")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(503, r.statusCode(), r.body());
        assertEquals("1", r.headers().firstValue("Retry-After").orElse(""));
        assertEquals(1, handedOut.size());
        assertTrue(handedOut.get(0).isCancelled(), "withdrawn: the master skips the message if it still waits for its turn");
    }

    @Test
    void aPollTheMasterDoesNotAnswerInTimeIs503WithRetryAfter() throws Exception {
        HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + port + Paths.INBOX + "?after=0&wait=100"))
                .timeout(Duration.ofSeconds(20)).header("Authorization", "Bearer t").GET().build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(503, r.statusCode(), r.body());
        assertEquals("1", r.headers().firstValue("Retry-After").orElse(""));
    }

    @Test
    void aBodyThatDoesNotComeIsStill408() throws Exception {
        try (Socket s = new Socket("127.0.0.1", port)) {
            s.setSoTimeout(20_000);
            OutputStream out = s.getOutputStream();
            out.write(("POST " + Paths.MESSAGES + " HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer t\r\nContent-Length: 100\r\n\r\n{")
                    .getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = s.getInputStream();
            StringBuilder line = new StringBuilder();
            for (int c; (c = in.read()) >= 0 && c != '\n'; ) {
                line.append((char) c);
            }
            assertTrue(line.toString().startsWith("HTTP/1.1 408"), line.toString());
        }
    }
}

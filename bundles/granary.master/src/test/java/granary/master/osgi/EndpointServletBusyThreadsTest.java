package granary.master.osgi;

import static org.junit.jupiter.api.Assertions.assertTrue;

import granary.protocol.link.Endpoint;
import granary.protocol.link.Paths;
import granary.protocol.link.Reply;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * An answer the master has given leaves at once, even while every one of the HTTP server's threads
 * is busy: the peers' thread that hands it over writes it when the connection can take it, instead
 * of waiting for the server to call back on one of its threads. Issue 23: under overload that call
 * back queued behind the server's other work past the post's time, and the server answered posts
 * whose answers were ready with a 500 (benchmarks/RESULTS.md, "Answers written where they are
 * handed over"). On a real Jetty, 127.0.0.1, a free port, a pool of a few threads.
 */
class EndpointServletBusyThreadsTest {

    private static final byte[] ACK = "{\"ack\":7}".getBytes(StandardCharsets.UTF_8);

    private final CompletableFuture<Reply> answer = new CompletableFuture<>();
    private final CountDownLatch asked = new CountDownLatch(1);
    private final CountDownLatch release = new CountDownLatch(1);
    private final List<Socket> sockets = new ArrayList<>();
    private ServletJetty jetty;

    /** The master: holds the post's answer until the test gives it. */
    private final Endpoint master = new Endpoint() {
        @Override
        public Reply post(String authorization, byte[] body, String remote) {
            throw new AssertionError("asynchronous only");
        }

        @Override
        public CompletableFuture<Reply> postAsync(String authorization, byte[] body, String remote) {
            asked.countDown();
            return answer;
        }

        @Override
        public CompletableFuture<Reply> poll(String authorization, long after, long waitMillis, String remote) {
            throw new AssertionError("no polls here");
        }
    };

    /** Requests that hold a server thread until released. */
    private final HttpServlet holder = new HttpServlet() {
        @Override
        protected void doGet(HttpServletRequest req, HttpServletResponse resp) {
            try {
                release.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
        }
    };

    @AfterEach
    void stop() throws Exception {
        release.countDown();
        for (Socket s : sockets) {
            s.close();
        }
        if (jetty != null) {
            jetty.close();
        }
    }

    @Test
    void anAnswerLeavesWhileEveryServerThreadIsBusy() throws Exception {
        QueuedThreadPool threads = new QueuedThreadPool(8, 8);
        threads.setReservedThreads(0);
        jetty = new ServletJetty(new EndpointServlet(master, null, 30_000, 30_000), threads, holder);
        Socket post = open();
        byte[] body = "{}".getBytes(StandardCharsets.UTF_8);
        post.getOutputStream().write(("POST " + Paths.MESSAGES + " HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer a\r\n"
                + "Content-Type: application/json\r\nContent-Length: " + body.length + "\r\n\r\n{}").getBytes(StandardCharsets.US_ASCII));
        post.getOutputStream().flush();
        assertTrue(asked.await(10, TimeUnit.SECONDS), "the post reached the master");

        // every thread of the server held: more requests that wait than it has threads
        for (int i = 0; i < 12; i++) {
            OutputStream out = open().getOutputStream();
            out.write("GET /other/x HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
        }
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (threads.getQueueSize() == 0 && System.nanoTime() < until) {
            Thread.sleep(10);   // bounded: until requests queue for a thread
        }
        assertTrue(threads.getQueueSize() > 0, "every server thread is busy (" + threads + ")");

        answer.complete(new Reply(200, ACK));   // as the master's loop does; a peers' thread writes it
        String got = read(post, 5_000);
        assertTrue(got.startsWith("HTTP/1.1 200") && got.endsWith(new String(ACK, StandardCharsets.UTF_8)),
                "the post's answer arrived while the server's threads were busy; got: " + got);
    }

    private Socket open() throws Exception {
        Socket s = new Socket();
        sockets.add(s);
        s.connect(new InetSocketAddress("127.0.0.1", jetty.port), 5_000);
        return s;
    }

    /** What arrives on {@code s} until the answer's body is whole or {@code millis} pass. */
    private static String read(Socket s, int millis) throws Exception {
        s.setSoTimeout(millis);
        InputStream in = s.getInputStream();
        ByteArrayOutputStream got = new ByteArrayOutputStream();
        byte[] buf = new byte[4096];
        try {
            for (int n; (n = in.read(buf)) > 0; ) {
                got.write(buf, 0, n);
                if (got.toString(StandardCharsets.US_ASCII).endsWith(new String(ACK, StandardCharsets.UTF_8))) {
                    break;
                }
            }
        } catch (SocketTimeoutException ex) {
            // what came in time is what is judged
        }
        return got.toString(StandardCharsets.US_ASCII);
    }
}

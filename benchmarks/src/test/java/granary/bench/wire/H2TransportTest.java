package granary.bench.wire;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import granary.api.model.Clock;
import granary.protocol.link.ThreadLoop;
import granary.protocol.link.Standby;
import granary.protocol.link.Transport;
import java.io.IOException;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.http2.server.HTTP2CServerConnectionFactory;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.Callback;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The load generator's HTTP/2 transport against a real Jetty server with h2c on loopback: a post's
 * body, status, authorization and the standby's leader header make the round trip; peers bound to
 * one connection share it; a call with no answer fails within its timeout.
 */
class H2TransportTest {

    private Server server;
    private ThreadLoop loop;
    private int port;
    /** The remote ends (client ports) the server saw, one per connection. */
    private final Set<Integer> clientPorts = ConcurrentHashMap.newKeySet();

    @BeforeEach
    void start() throws Exception {
        loop = new ThreadLoop("test-h2-loop", Clock.system(), ex -> { });
        server = new Server();
        HttpConfiguration config = new HttpConfiguration();
        ServerConnector connector = new ServerConnector(server, new HttpConnectionFactory(config), new HTTP2CServerConnectionFactory(config));
        connector.setHost("127.0.0.1");
        connector.setPort(0);
        server.addConnector(connector);
        server.setHandler(new Handler.Abstract() {
            @Override
            public boolean handle(Request request, Response response, Callback callback) throws Exception {
                clientPorts.add(Request.getRemotePort(request));
                if (request.getHttpURI().getPath().equals("/silent")) {
                    return true; // never answered: the client's timeout must end the call
                }
                String body = Content.Source.asString(request, StandardCharsets.UTF_8);
                response.setStatus(request.getMethod().equals("POST") ? 200 : 204);
                response.getHeaders().put(Standby.LEADER_HEADER, "http://leader:1");
                String out = request.getMethod() + " " + request.getConnectionMetaData().getProtocol() + " "
                        + request.getHeaders().get("Authorization") + " " + body;
                response.write(true, ByteBuffer.wrap(out.getBytes(StandardCharsets.UTF_8)), callback);
                return true;
            }
        });
        server.start();
        port = connector.getLocalPort();
    }

    @AfterEach
    void stop() throws Exception {
        server.stop();
        loop.close();
    }

    @Test
    void aPostAndAPollTravelAsStreamsOfOneConnection() throws Exception {
        try (H2Transport h2 = new H2Transport("test-h2", 1, 4)) {
            Transport a = h2.bound();
            Transport b = h2.bound();
            Transport.Response post = call(a, new Transport.Call("POST", uri("/protocol/v1/messages"), "Bearer t1",
                    "{\"x\":1}".getBytes(StandardCharsets.UTF_8), Duration.ofSeconds(10)));
            assertEquals(200, post.status());
            assertEquals("POST HTTP/2.0 Bearer t1 {\"x\":1}", new String(post.body(), StandardCharsets.UTF_8));
            assertEquals("http://leader:1", post.leader());
            Transport.Response poll = call(b, new Transport.Call("GET", uri("/protocol/v1/inbox?after=0"), "Bearer t2", null,
                    Duration.ofSeconds(10)));
            assertEquals(204, poll.status());
            assertEquals(1, clientPorts.size(), "two peers bound to the one connection: " + clientPorts);
        }
    }

    @Test
    void peersAreSpreadOverTheConnections() throws Exception {
        try (H2Transport h2 = new H2Transport("test-h2", 3, 4)) {
            for (int i = 0; i < 6; i++) {
                Transport.Response r = call(h2.bound(), new Transport.Call("POST", uri("/m"), null, new byte[] {'a'}, Duration.ofSeconds(10)));
                assertEquals(200, r.status());
            }
            assertEquals(3, clientPorts.size(), "six peers on three connections: " + clientPorts);
            assertEquals(3, h2.connections());
        }
    }

    @Test
    void aCallWithoutAnAnswerFailsWithinItsTimeout() throws Exception {
        try (H2Transport h2 = new H2Transport("test-h2", 1, 1)) {
            CompletableFuture<IOException> failed = new CompletableFuture<>();
            long t0 = System.nanoTime();
            h2.bound().exchange(new Transport.Call("GET", uri("/silent"), null, null, Duration.ofMillis(300)), loop,
                    (r, ex) -> {
                        assertNull(r);
                        failed.complete(ex);
                    });
            IOException ex = failed.get(20, TimeUnit.SECONDS);
            assertTrue(ex.getMessage().contains("no answer"), ex.getMessage());
            assertTrue(System.nanoTime() - t0 < TimeUnit.SECONDS.toNanos(15), "ended by the call's timeout");
            // the connection still serves the next call
            Transport.Response r = call(h2.bound(), new Transport.Call("POST", uri("/m"), null, new byte[] {'b'}, Duration.ofSeconds(10)));
            assertArrayEquals("POST HTTP/2.0 null b".getBytes(StandardCharsets.UTF_8), r.body());
        }
    }

    private URI uri(String path) {
        return URI.create("http://127.0.0.1:" + port + path);
    }

    private Transport.Response call(Transport t, Transport.Call call) throws Exception {
        CompletableFuture<Transport.Response> out = new CompletableFuture<>();
        t.exchange(call, loop, (r, ex) -> {
            if (ex != null) {
                out.completeExceptionally(ex);
            } else {
                out.complete(r);
            }
        });
        return out.get(20, TimeUnit.SECONDS);
    }
}

package granary.planner.connect;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import com.sun.net.httpserver.HttpServer;

/**
 * The connection bar's figures stay live, and a master that stops answering is said so in a planner's
 * words (issue 26, "nothing stale"). Against a small HTTP server on a loopback port; the view model's
 * executors run at once, so every call below has finished when it returns.
 */
class ConnectionViewModelTest {

    private HttpServer server;

    @AfterEach
    void stop() {
        if (server != null) {
            server.stop(0);
        }
    }

    @Test
    void theFiguresAreReadAgainAndADownMasterIsSaidInWords() throws IOException {
        AtomicInteger jobs = new AtomicInteger(42);
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/api/v1/status", x -> {
            byte[] body = ("{\"nodes\": 3, \"jobs\": " + jobs.get() + ", \"policy.unit-order\": \"fifo\"}").getBytes(StandardCharsets.UTF_8);
            x.getResponseHeaders().add("Content-Type", "application/json");
            x.sendResponseHeaders(200, body.length);
            try (OutputStream out = x.getResponseBody()) {
                out.write(body);
            }
        });
        server.start();
        String url = "http://127.0.0.1:" + server.getAddress().getPort();

        Clock clock = Clock.fixed(Instant.parse("2026-11-27T10:00:05Z"), ZoneOffset.UTC);
        ConnectionViewModel vm = new ConnectionViewModel(Runnable::run, Runnable::run, clock);
        vm.urlProperty().set(url);
        vm.connect();
        assertNotNull(vm.clientProperty().get(), vm.stateProperty().get());
        assertEquals("connected: 3 nodes, 42 jobs at 10:00:05, unit order fifo", vm.stateProperty().get());

        jobs.set(43);
        vm.refreshStatus();
        assertEquals("connected: 3 nodes, 43 jobs at 10:00:05, unit order fifo", vm.stateProperty().get());

        server.stop(0);
        server = null;
        vm.refreshStatus();
        String down = vm.stateProperty().get();
        assertTrue(down.startsWith("the master at " + url + " does not answer: the master at " + url
                + " is not reachable: nothing answers there (is it running, and is this its address and port?)"), down);
        assertTrue(down.endsWith("(it last answered at 10:00:05)"), down);
        assertTrue(!down.contains("Exception"), "no class names in the bar: " + down);
        assertNotNull(vm.clientProperty().get(), "still connected: the master may come back");
    }
}

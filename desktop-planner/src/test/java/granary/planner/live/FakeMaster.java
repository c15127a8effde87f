package granary.planner.live;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

/**
 * A master's HTTP API as far as the live view uses it, on 127.0.0.1 and a free port: each path
 * answers what the test put there. A stream answer is written, then (if {@code hold}) the connection
 * stays open until {@link #close()} — at most 30 s — as a master's stream would.
 */
public final class FakeMaster implements AutoCloseable {

    /** One answer: status, content type, body; {@code hold} keeps the connection open after the body. */
    public record Answer(int status, String type, byte[] body, boolean hold, InputStream source, Map<String, String> headers) {
        Answer(int status, String type, byte[] body, boolean hold) {
            this(status, type, body, hold, null, Map.of());
        }

        /** This answer with one more response header. */
        public Answer with(String header, String value) {
            Map<String, String> h = new java.util.HashMap<>(headers);
            h.put(header, value);
            return new Answer(status, type, body, hold, source, Map.copyOf(h));
        }

        /** A stream whose body is read from {@code source} as it is written (the benchmark's endless stream). */
        static Answer stream(InputStream source) {
            return new Answer(200, "text/event-stream", new byte[0], false, source, Map.of());
        }

        public static Answer json(int status, String json) {
            return new Answer(status, status / 100 == 2 ? "application/json" : "application/problem+json", json.getBytes(StandardCharsets.UTF_8), false);
        }

        static Answer stream(byte[] body, boolean hold) {
            return new Answer(200, "text/event-stream", body, hold);
        }
    }

    /** What one request carried: its method, path, query (or null), and headers the tests look at. */
    public record Request(String method, String path, String query, String authorization, String lastEventId, String ifMatch) {
    }

    private final HttpServer server;
    private final ExecutorService threads = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "fake-master");
        t.setDaemon(true);
        return t;
    });
    private final Map<String, Function<Request, Answer>> routes = new ConcurrentHashMap<>();
    private final List<Request> requests = new CopyOnWriteArrayList<>();
    private final CountDownLatch closing = new CountDownLatch(1);

    public FakeMaster() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.setExecutor(threads);
        server.createContext("/", this::handle);
        server.start();
    }

    /**
     * Answers {@code GET /api/v1/policies} as a master whose quota policy offers the quota table at
     * {@code href}: read and write there, its state at {@code href/state} (docs/api.md, "Resources
     * policies declare"); the planner's client finds its routes there.
     */
    public FakeMaster offeringTableAt(String href) {
        String json = "{\"policies\":[{\"name\":\"fifo\",\"active\":true,\"resources\":[]},"
                + "{\"name\":\"quota\",\"active\":true,\"resources\":["
                + "{\"method\":\"GET\",\"href\":\"" + href + "\",\"kind\":\"read\",\"document\":\"quota table\"},"
                + "{\"method\":\"PUT\",\"href\":\"" + href + "\",\"kind\":\"write\",\"document\":\"quota table in its JSON format\"},"
                + "{\"method\":\"GET\",\"href\":\"" + href + "/state\",\"kind\":\"reports\",\"reports\":[\"quota\",\"billing\"],"
                + "\"revisionOf\":\"" + href + "\"}]}],\"inEffect\":{}}";
        return on("/api/v1/policies", r -> Answer.json(200, json));
    }

    /** Answers requests to paths starting with {@code prefix} (the longest prefix wins). */
    public FakeMaster on(String prefix, Function<Request, Answer> answer) {
        routes.put(prefix, answer);
        return this;
    }

    public URI uri() {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
    }

    public List<Request> requests() {
        return requests;
    }

    public List<Request> requests(String path) {
        return requests.stream().filter(r -> r.path().equals(path)).toList();
    }

    private void handle(HttpExchange ex) throws IOException {
        String path = ex.getRequestURI().getPath();
        Request req = new Request(ex.getRequestMethod(), path, ex.getRequestURI().getQuery(), ex.getRequestHeaders().getFirst("Authorization"),
                ex.getRequestHeaders().getFirst("Last-Event-ID"), ex.getRequestHeaders().getFirst("If-Match"));
        requests.add(req);
        String best = routes.keySet().stream().filter(path::startsWith).max((a, b) -> a.length() - b.length()).orElse(null);
        Answer a = best == null ? Answer.json(404, "{\"type\":\"/api/v1/problems/not-found\",\"status\":404,\"detail\":\"no route " + path + "\"}")
                : routes.get(best).apply(req);
        try (InputStream in = ex.getRequestBody()) {
            in.readAllBytes();
        }
        ex.getResponseHeaders().set("Content-Type", a.type());
        a.headers().forEach((k, v) -> ex.getResponseHeaders().set(k, v));
        ex.sendResponseHeaders(a.status(), a.hold() || a.source() != null ? 0 : a.body().length);
        try (OutputStream out = ex.getResponseBody()) {
            out.write(a.body());
            if (a.source() != null) {
                a.source().transferTo(out);
            }
            out.flush();
            if (a.hold()) {
                closing.await(30, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (IOException e) {
            // the client went away
        }
    }

    @Override
    public void close() {
        closing.countDown();
        server.stop(0);
        threads.shutdownNow();
    }

    static byte[] resource(String name) {
        try (InputStream in = FakeMaster.class.getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException("no test resource " + name);
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }
}

package granary.protocol.link;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import granary.protocol.WireCodec;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import javax.net.ssl.SSLContext;

/**
 * Serves an {@link Endpoint} on the JDK's built-in HTTP server: how an agent takes plans, and how
 * tools and tests serve a master without an OSGi runtime. (The master in the runtime is served by
 * Jetty through the HTTP whiteboard; both carry the same {@link Reply}s.)
 */
public final class JdkHttpServer implements AutoCloseable {

    private final HttpServer server;
    private final ExecutorService threads;
    private final String scheme;

    private JdkHttpServer(HttpServer server, ExecutorService threads, String scheme) {
        this.server = server;
        this.threads = threads;
        this.scheme = scheme;
    }

    /**
     * Starts serving {@code endpoint} on {@code address} (port 0: a free one); with {@code tls}
     * non-null over HTTPS.
     */
    public static JdkHttpServer start(InetSocketAddress address, Endpoint endpoint, SSLContext tls) throws IOException {
        HttpServer server;
        if (tls != null) {
            HttpsServer https = HttpsServer.create(address, 256);
            https.setHttpsConfigurator(new HttpsConfigurator(tls));
            server = https;
        } else {
            server = HttpServer.create(address, 256);
        }
        ExecutorService threads = Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "granary-http " + address);
            t.setDaemon(true);
            return t;
        });
        server.setExecutor(threads);
        server.createContext(Paths.MESSAGES, ex -> serve(ex, () -> {
            if (!"POST".equals(ex.getRequestMethod())) {
                return null;
            }
            String authorization = ex.getRequestHeaders().getFirst("Authorization");
            Reply refused = endpoint.admit(authorization, remote(ex));
            if (refused != null) {
                return refused; // before a byte of the body is read (docs/security.md)
            }
            byte[] body = readLimited(ex.getRequestBody(), WireCodec.MAX_MESSAGE_BYTES + 1);
            return endpoint.post(authorization, body, remote(ex));
        }));
        server.createContext(Paths.INBOX, ex -> {
            if (!"GET".equals(ex.getRequestMethod())) {
                serve(ex, () -> null);
                return;
            }
            Query q = Query.of(ex.getRequestURI());
            // Answered when the endpoint completes: a waiting poll holds no thread.
            endpoint.poll(ex.getRequestHeaders().getFirst("Authorization"), q.after(), q.waitMillis(), q.incarnation(), remote(ex))
                    .whenComplete((reply, failure) -> {
                        try {
                            serve(ex, () -> failure == null ? reply : new Reply(503, new byte[0]));
                        } catch (IOException gone) {
                            // the peer went away; it polls again
                        }
                    });
        });
        server.start();
        return new JdkHttpServer(server, threads, tls == null ? "http" : "https");
    }

    /** The port served. */
    public int port() {
        return server.getAddress().getPort();
    }

    /** The base URL, e.g. {@code http://127.0.0.1:40123}. */
    public URI url() {
        InetSocketAddress a = server.getAddress();
        return URI.create(scheme + "://" + a.getHostString() + ":" + a.getPort());
    }

    @Override
    public void close() {
        server.stop(0);
        threads.shutdownNow();
    }

    /** The inbox query: {@code after} and {@code wait}, with bad or missing values read as 0. */
    record Query(long after, long waitMillis, long incarnation) {
        static Query of(URI uri) {
            long after = 0;
            long wait = 0;
            long incarnation = 0;
            String q = uri.getRawQuery();
            for (String pair : q == null ? new String[0] : q.split("&")) {
                int eq = pair.indexOf('=');
                String k = eq < 0 ? pair : pair.substring(0, eq);
                String v = eq < 0 ? "" : pair.substring(eq + 1);
                if (k.equals("after")) {
                    after = number(v);
                } else if (k.equals("wait")) {
                    wait = number(v);
                } else if (k.equals("incarnation")) {
                    incarnation = number(v);
                }
            }
            return new Query(after, wait, incarnation);
        }

        static long number(String v) {
            try {
                return Math.max(0, Long.parseLong(v));
            } catch (NumberFormatException ex) {
                return 0;
            }
        }
    }

    private interface Call {
        Reply run() throws IOException;
    }

    private static void serve(HttpExchange ex, Call call) throws IOException {
        try (ex) {
            Reply r = call.run();
            if (r == null) {
                ex.sendResponseHeaders(405, -1);
                return;
            }
            if (r.body().length == 0) {
                ex.sendResponseHeaders(r.status(), -1);
                return;
            }
            ex.getResponseHeaders().set("Content-Type", Reply.CONTENT_TYPE);
            ex.sendResponseHeaders(r.status(), r.body().length);
            try (OutputStream out = ex.getResponseBody()) {
                out.write(r.body());
            }
        }
    }

    /** Reads at most {@code limit} bytes, so that an endpoint sees "too large" without the server holding it all. */
    static byte[] readLimited(InputStream in, int limit) throws IOException {
        return in.readNBytes(limit);
    }

    private static String remote(HttpExchange ex) {
        InetSocketAddress a = ex.getRemoteAddress();
        return a == null ? "?" : a.getHostString() + ":" + a.getPort();
    }
}

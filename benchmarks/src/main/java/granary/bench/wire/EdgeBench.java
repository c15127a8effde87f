package granary.bench.wire;

import granary.api.model.Clock;
import granary.master.http.AsyncBody;
import granary.protocol.link.Reply;
import granary.protocol.link.ThreadLoop;
import granary.protocol.link.Transport;
import jakarta.servlet.AsyncContext;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.http.HttpHeader;
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

/**
 * What the master's HTTP edge costs per post, servlet against Jetty core (issue 23: a heartbeat
 * costs the master about 80 µs of its core over HTTP/2, its own logic about 16 µs). A Jetty 12
 * server on HTTP/2 in clear text, in a child JVM pinned to its own core, answers posts the way the
 * master's endpoint does — the Authorization header looked at before the body, the body read
 * asynchronously, the answer written from a pool thread of its own (the peers' threads) — either
 * through an asynchronous servlet on an ee10 servlet context (the shape of {@code EndpointServlet},
 * with the same {@code AsyncBody}) or through a Jetty core {@link Handler}. The load: {@code
 * --peers} closed loops of posts over {@code --connections} HTTP/2 connections ({@link H2Transport}).
 * {@code --handler=stream} measures the alternative to a post per message: each peer keeps one
 * request open on its connection, and its messages and their answers are length-prefixed frames of
 * that request's and response's bodies (no headers, no new stream per message); {@code
 * --handler=servlet-stream} the same through a servlet's non-blocking reads and writes.
 * It prints the server's CPU per post and the posts answered per second. {@code --inline} answers on
 * Jetty's thread that read the body, without the hand-off to the peers' threads.
 *
 * <pre>
 *   taskset -c 1 java -cp benchmarks/target/benchmarks.jar granary.bench.wire.EdgeBench \
 *       --handler=servlet|core|stream|servlet-stream --server-cpus=0 --seconds=20 --peers=2000 --connections=500 [--warmup=10]
 * </pre>
 *
 * The servlet side here is a plain ee10 context: under Felix HTTP the whiteboard's dispatch adds
 * its own layer, so the servlet's figure is a lower bound of what the runtime pays.
 */
public final class EdgeBench {

    private static final byte[] ANSWER = new byte[48];
    private static final String TOKEN = "Bearer agent/n1.0123456789abcdef0123456789abcdef0123456789abcdef";

    private EdgeBench() {
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> o = new java.util.HashMap<>();
        for (String a : args) {
            int eq = a.indexOf('=');
            o.put(eq < 0 ? a : a.substring(0, eq), eq < 0 ? "" : a.substring(eq + 1));
        }
        if (o.containsKey("serve")) {
            serve(o.getOrDefault("--handler", "core"), o.containsKey("--inline"));
        } else {
            System.out.println(drive(o));
        }
    }

    // --- the server (child JVM) ---

    private static void serve(String handler, boolean inline) throws Exception {
        AtomicLong answered = new AtomicLong();
        ExecutorService pool = Executors.newFixedThreadPool(8, r -> {
            Thread t = new Thread(r, "peers");
            t.setDaemon(true);
            return t;
        });
        java.util.concurrent.Executor peers = inline ? Runnable::run : pool;
        Server server = new Server();
        HttpConfiguration cfg = new HttpConfiguration();
        cfg.setHeaderCacheSize(0);
        HTTP2CServerConnectionFactory h2c = new HTTP2CServerConnectionFactory(cfg);
        h2c.setMaxConcurrentStreams(128);
        ServerConnector c = new ServerConnector(server, 1, 1, new HttpConnectionFactory(cfg), h2c);
        c.setHost("127.0.0.1");
        c.setPort(0);
        server.addConnector(c);
        if (handler.equals("servlet")) {
            ServletContextHandler ctx = new ServletContextHandler("/");
            ServletHolder h = new ServletHolder(new Posts(peers, answered));
            h.setAsyncSupported(true);
            ctx.addServlet(h, "/protocol/v1/*");
            server.setHandler(ctx);
        } else if (handler.equals("servlet-stream")) {
            ServletContextHandler ctx = new ServletContextHandler("/");
            ServletHolder h = new ServletHolder(new StreamServlet(peers, answered));
            h.setAsyncSupported(true);
            ctx.addServlet(h, "/protocol/v1/*");
            server.setHandler(ctx);
        } else if (handler.equals("stream")) {
            server.setHandler(new StreamPosts(peers, answered));
        } else {
            server.setHandler(new CorePosts(peers, answered));
        }
        server.start();
        PrintStream out = System.out;
        out.println("PORT " + c.getLocalPort());
        out.flush();
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        for (String line; (line = in.readLine()) != null; ) {
            if (line.equals("count")) {
                out.println("COUNT " + answered.get());
                out.flush();
            }
        }
        server.stop();
    }

    /** The servlets' common part: the peers' threads, the count of answers, the token looked at first. */
    private abstract static class PeerServlet extends HttpServlet {
        private static final long serialVersionUID = 1L;
        final transient java.util.concurrent.Executor peers;
        final transient AtomicLong answered;

        PeerServlet(java.util.concurrent.Executor peers, AtomicLong answered) {
            this.peers = peers;
            this.answered = answered;
        }

        /** True, and 401 answered, when the request has not the peers' token. */
        static boolean refused(HttpServletRequest req, HttpServletResponse resp) {
            if (TOKEN.equals(req.getHeader("Authorization"))) {
                return false;
            }
            resp.setStatus(401);
            return true;
        }
    }

    /** The servlet's way, as EndpointServlet: header checked, async body, answer written on a peers' thread. */
    private static final class Posts extends PeerServlet {
        private static final long serialVersionUID = 1L;

        Posts(java.util.concurrent.Executor peers, AtomicLong answered) {
            super(peers, answered);
        }

        @Override
        protected void doPost(HttpServletRequest req, HttpServletResponse resp) throws IOException {
            if (refused(req, resp)) {
                return;
            }
            AsyncContext async = req.startAsync();
            async.setTimeout(10_000);
            AsyncBody.read(async, 1 << 20, (body, end) -> peers.execute(() -> {
                try {
                    HttpServletResponse r = (HttpServletResponse) async.getResponse();
                    r.setStatus(200);
                    r.setContentType(Reply.CONTENT_TYPE);
                    r.setContentLength(ANSWER.length);
                    r.getOutputStream().write(ANSWER);
                } catch (IOException | IllegalStateException ex) {
                    // the caller went away
                } finally {
                    AsyncBody.complete(async);
                    answered.incrementAndGet();
                }
            }));
        }
    }

    /** The same on Jetty's core API: no servlet channel, no request and response wrappers. */
    private static final class CorePosts extends Handler.Abstract {
        private final java.util.concurrent.Executor peers;
        private final AtomicLong answered;

        CorePosts(java.util.concurrent.Executor peers, AtomicLong answered) {
            this.peers = peers;
            this.answered = answered;
        }

        @Override
        public boolean handle(Request request, Response response, Callback callback) {
            if (!request.getMethod().equals("POST") || !request.getHttpURI().getPath().startsWith("/protocol/v1/")) {
                return false;
            }
            if (!TOKEN.equals(request.getHeaders().get(HttpHeader.AUTHORIZATION))) {
                Response.writeError(request, response, callback, 401);
                return true;
            }
            Content.Source.asByteArrayAsync(request, 1 << 20).whenComplete((body, failure) -> peers.execute(() -> {
                if (failure != null) {
                    callback.failed(failure);
                    return;
                }
                response.setStatus(200);
                response.getHeaders().put(HttpHeader.CONTENT_TYPE, Reply.CONTENT_TYPE);
                response.getHeaders().put(HttpHeader.CONTENT_LENGTH, ANSWER.length);
                response.write(true, ByteBuffer.wrap(ANSWER), callback);
                answered.incrementAndGet();
            }));
            return true;
        }
    }

    /**
     * The long-lived request of {@link StreamPosts} through a servlet (non-blocking reads and writes,
     * as the servlet API gives them): what the runtime's servlet would pay for the same conversation.
     */
    private static final class StreamServlet extends PeerServlet {
        private static final long serialVersionUID = 1L;

        StreamServlet(java.util.concurrent.Executor peers, AtomicLong answered) {
            super(peers, answered);
        }

        @Override
        protected void doPost(HttpServletRequest req, HttpServletResponse resp) throws IOException {
            if (refused(req, resp)) {
                return;
            }
            AsyncContext async = req.startAsync();
            async.setTimeout(0);
            resp.setStatus(200);
            resp.setContentType(Reply.CONTENT_TYPE);
            jakarta.servlet.ServletInputStream in = req.getInputStream();
            jakarta.servlet.ServletOutputStream out = resp.getOutputStream();
            java.util.ArrayDeque<byte[]> queue = new java.util.ArrayDeque<>();
            Object lock = new Object();
            jakarta.servlet.WriteListener writer = new jakarta.servlet.WriteListener() {
                @Override
                public void onWritePossible() throws IOException {
                    synchronized (lock) {
                        while (out.isReady()) {
                            byte[] next = queue.poll();
                            if (next == null) {
                                return;
                            }
                            out.write(next);
                            if (out.isReady()) {
                                out.flush();
                            }
                        }
                    }
                }

                @Override
                public void onError(Throwable t) {
                    AsyncBody.complete(async);
                }
            };
            out.setWriteListener(writer);
            in.setReadListener(new jakarta.servlet.ReadListener() {
                private final byte[] buf = new byte[8192];
                private final java.io.ByteArrayOutputStream pending = new java.io.ByteArrayOutputStream();

                @Override
                public void onDataAvailable() throws IOException {
                    while (in.isReady()) {
                        int n = in.read(buf);
                        if (n < 0) {
                            return;
                        }
                        pending.write(buf, 0, n);
                    }
                    byte[] all = pending.toByteArray();
                    ByteBuffer b = ByteBuffer.wrap(all);
                    int frames = 0;
                    while (b.remaining() >= 4 && b.remaining() >= 4 + b.getInt(b.position())) {
                        b.position(b.position() + 4 + b.getInt(b.position()));
                        frames++;
                    }
                    pending.reset();
                    pending.write(all, b.position(), b.remaining());
                    if (frames > 0) {
                        int count = frames;
                        peers.execute(() -> {
                            ByteBuffer o = ByteBuffer.allocate(count * (4 + ANSWER.length));
                            for (int i = 0; i < count; i++) {
                                o.putInt(ANSWER.length).put(ANSWER);
                            }
                            answered.addAndGet(count);
                            synchronized (lock) {
                                queue.add(o.array());
                            }
                            try {
                                writer.onWritePossible();
                            } catch (IOException ex) {
                                AsyncBody.complete(async);
                            }
                        });
                    }
                }

                @Override
                public void onAllDataRead() {
                    AsyncBody.complete(async);
                }

                @Override
                public void onError(Throwable t) {
                    AsyncBody.complete(async);
                }
            });
        }
    }

    /**
     * One long-lived request per peer: its messages come as length-prefixed frames of the request's
     * body and their answers go back as frames of the response's, on one HTTP/2 stream, with no
     * headers per message (the alternative to a post per message, issue 23's "one long-lived stream").
     */
    private static final class StreamPosts extends Handler.Abstract {
        private final java.util.concurrent.Executor peers;
        private final AtomicLong answered;

        StreamPosts(java.util.concurrent.Executor peers, AtomicLong answered) {
            this.peers = peers;
            this.answered = answered;
        }

        @Override
        public boolean handle(Request request, Response response, Callback callback) {
            if (!request.getMethod().equals("POST") || !request.getHttpURI().getPath().startsWith("/protocol/v1/")) {
                return false;
            }
            if (!TOKEN.equals(request.getHeaders().get(HttpHeader.AUTHORIZATION))) {
                Response.writeError(request, response, callback, 401);
                return true;
            }
            response.setStatus(200);
            response.getHeaders().put(HttpHeader.CONTENT_TYPE, Reply.CONTENT_TYPE);
            new Conversation(request, response, callback).read();
            return true;
        }

        private final class Conversation {
            private final Request request;
            private final Response response;
            private final Callback callback;
            private ByteBuffer pending = ByteBuffer.allocate(4096);
            private final java.util.ArrayDeque<ByteBuffer> queue = new java.util.ArrayDeque<>();
            private boolean writing;

            Conversation(Request request, Response response, Callback callback) {
                this.request = request;
                this.response = response;
                this.callback = callback;
            }

            void read() {
                while (true) {
                    Content.Chunk chunk = request.read();
                    if (chunk == null) {
                        request.demand(this::read);
                        return;
                    }
                    if (Content.Chunk.isFailure(chunk)) {
                        callback.failed(chunk.getFailure());
                        return;
                    }
                    ByteBuffer b = chunk.getByteBuffer();
                    if (pending.remaining() < b.remaining()) {
                        ByteBuffer bigger = ByteBuffer.allocate((pending.position() + b.remaining()) * 2);
                        pending.flip();
                        bigger.put(pending);
                        pending = bigger;
                    }
                    pending.put(b);
                    boolean last = chunk.isLast();
                    chunk.release();
                    pending.flip();
                    int n = 0;
                    while (pending.remaining() >= 4 && pending.remaining() >= 4 + pending.getInt(pending.position())) {
                        pending.position(pending.position() + 4 + pending.getInt(pending.position()));
                        n++;
                    }
                    pending.compact();
                    if (n > 0) {
                        int count = n;
                        peers.execute(() -> answer(count));
                    }
                    if (last) {
                        response.write(true, ByteBuffer.allocate(0), callback);
                        return;
                    }
                }
            }

            private void answer(int n) {
                ByteBuffer out = ByteBuffer.allocate(n * (4 + ANSWER.length));
                for (int i = 0; i < n; i++) {
                    out.putInt(ANSWER.length).put(ANSWER);
                }
                out.flip();
                answered.addAndGet(n);
                synchronized (this) {
                    if (writing) {
                        queue.add(out);
                        return;
                    }
                    writing = true;
                }
                response.write(false, out, Callback.from(this::written, callback::failed));
            }

            private void written() {
                ByteBuffer next;
                synchronized (this) {
                    next = queue.poll();
                    if (next == null) {
                        writing = false;
                        return;
                    }
                }
                response.write(false, next, Callback.from(this::written, callback::failed));
            }
        }
    }

    // --- the load (this JVM) ---

    /** Runs one variant against a server of its own and returns its {@code EDGE-JSON} line. */
    static String drive(Map<String, String> o) throws Exception {
        String handler = o.getOrDefault("--handler", "core");
        int seconds = Integer.parseInt(o.getOrDefault("--seconds", "20"));
        int warmup = Integer.parseInt(o.getOrDefault("--warmup", "10"));
        int peers = Integer.parseInt(o.getOrDefault("--peers", "2000"));
        int connections = Integer.parseInt(o.getOrDefault("--connections", "500"));
        int bodyBytes = Integer.parseInt(o.getOrDefault("--body", "200"));
        List<String> cmd = new ArrayList<>();
        if (o.containsKey("--server-cpus")) {
            cmd.addAll(List.of("taskset", "-c", o.get("--server-cpus")));
        }
        cmd.addAll(List.of(Path.java(), "-Xmx1g", "-Xms1g", "-XX:+UseParallelGC", "-cp", System.getProperty("java.class.path"),
                EdgeBench.class.getName(), "serve", "--handler=" + handler));
        if (o.containsKey("--inline")) {
            cmd.add("--inline"); // answered on Jetty's thread: no hand-off to the peers' threads
        }
        Process server = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        AutoCloseable streamClient = null;
        try (BufferedReader sout = new BufferedReader(new InputStreamReader(server.getInputStream(), StandardCharsets.UTF_8));
             PrintStream sin = new PrintStream(server.getOutputStream(), true, StandardCharsets.UTF_8);
             H2Transport h2 = new H2Transport("edge-load", connections, 1);
             ThreadLoop loop = new ThreadLoop("edge-load", Clock.system(), Throwable::printStackTrace)) {
            String first = line(sout);
            if (first == null || !first.startsWith("PORT ")) {
                throw new IOException("the server did not start: " + first);
            }
            URI uri = URI.create("http://127.0.0.1:" + first.substring(5) + "/protocol/v1/messages");
            byte[] body = new byte[bodyBytes];
            AtomicLong errors = new AtomicLong();
            if (handler.endsWith("stream")) {
                streamClient = streams(uri, peers, connections, body, errors);
            } else {
                for (int i = 0; i < peers; i++) {
                    Transport t = h2.bound();
                    loop.execute(() -> post(t, uri, body, loop, errors));
                }
            }
            Thread.sleep(warmup * 1000L); // warm-up, then a measured window: the load runs on its own threads meanwhile
            long n0 = count(sin, sout);
            double c0 = Proc.cpuSeconds(server.pid());
            long t0 = System.nanoTime();
            double l0 = Proc.cpuSeconds(ProcessHandle.current().pid());
            Thread.sleep(seconds * 1000L);
            long n1 = count(sin, sout);
            double c1 = Proc.cpuSeconds(server.pid());
            double wall = (System.nanoTime() - t0) / 1e9;
            double l1 = Proc.cpuSeconds(ProcessHandle.current().pid());
            long posts = n1 - n0;
            return String.format("EDGE-JSON {\"handler\":\"%s\",\"inline\":" + o.containsKey("--inline") + ",\"peers\":%d,\"connections\":%d,\"posts_per_s\":%.0f,"
                            + "\"server_cpu_s_per_s\":%.2f,\"server_cpu_us_per_post\":%.1f,\"loadgen_cpu_s_per_s\":%.2f,\"errors\":%d}",
                    handler, peers, connections, posts / wall, (c1 - c0) / wall, (c1 - c0) * 1e6 / Math.max(1, posts),
                    (l1 - l0) / wall, errors.get());
        } finally {
            if (streamClient != null) {
                streamClient.close();
            }
            server.destroyForcibly();
            server.waitFor();
        }
    }

    private static long count(PrintStream sin, BufferedReader sout) throws IOException {
        sin.println("count");
        String line = line(sout);
        if (line == null || !line.startsWith("COUNT ")) {
            throw new IOException("the server did not count: " + line);
        }
        return Long.parseLong(line.substring(6));
    }

    /** The stream variant's load: {@code peers} long-lived streams over {@code connections} sessions, each a closed loop of messages. */
    private static AutoCloseable streams(URI uri, int peers, int connections, byte[] body, AtomicLong errors) throws Exception {
        org.eclipse.jetty.util.thread.QueuedThreadPool threads = new org.eclipse.jetty.util.thread.QueuedThreadPool(8, 2);
        threads.setDaemon(true);
        org.eclipse.jetty.io.ClientConnector connector = new org.eclipse.jetty.io.ClientConnector();
        connector.setSelectors(1);
        connector.setExecutor(threads);
        org.eclipse.jetty.http2.client.HTTP2Client client = new org.eclipse.jetty.http2.client.HTTP2Client(connector);
        client.setExecutor(threads);
        client.setIdleTimeout(0);
        client.start();
        java.net.InetSocketAddress to = new java.net.InetSocketAddress(uri.getHost(), uri.getPort());
        List<org.eclipse.jetty.http2.api.Session> sessions = new ArrayList<>();
        for (int c = 0; c < connections; c++) {
            sessions.add(client.connect(to, new org.eclipse.jetty.http2.api.Session.Listener() { }).get(10, java.util.concurrent.TimeUnit.SECONDS));
        }
        ByteBuffer message = ByteBuffer.allocate(4 + body.length).putInt(body.length).put(body).flip();
        int answerBytes = 4 + ANSWER.length;
        for (int i = 0; i < peers; i++) {
            org.eclipse.jetty.http.HttpFields.Mutable fields = org.eclipse.jetty.http.HttpFields.build();
            fields.put(HttpHeader.AUTHORIZATION, TOKEN);
            fields.put(HttpHeader.CONTENT_TYPE, Reply.CONTENT_TYPE);
            org.eclipse.jetty.http.MetaData.Request req = new org.eclipse.jetty.http.MetaData.Request("POST",
                    org.eclipse.jetty.http.HttpURI.from(uri), org.eclipse.jetty.http.HttpVersion.HTTP_2, fields, -1);
            long[] received = {0};
            org.eclipse.jetty.http2.api.Stream.Listener listener = new org.eclipse.jetty.http2.api.Stream.Listener() {
                @Override
                public void onDataAvailable(org.eclipse.jetty.http2.api.Stream stream) {
                    while (true) {
                        org.eclipse.jetty.http2.api.Stream.Data d = stream.readData();
                        if (d == null) {
                            stream.demand();
                            return;
                        }
                        long answers;
                        synchronized (received) {
                            long before = received[0] / answerBytes;
                            received[0] += d.frame().remaining();
                            answers = received[0] / answerBytes - before;
                        }
                        d.release();
                        for (long a = 0; a < answers; a++) {
                            stream.data(new org.eclipse.jetty.http2.frames.DataFrame(stream.getId(), message.duplicate(), false), Callback.NOOP);
                        }
                        if (d.frame().isEndStream()) {
                            return;
                        }
                    }
                }

                @Override
                public void onReset(org.eclipse.jetty.http2.api.Stream stream, org.eclipse.jetty.http2.frames.ResetFrame frame, Callback callback) {
                    errors.incrementAndGet();
                    callback.succeeded();
                }
            };
            sessions.get(i % connections).newStream(new org.eclipse.jetty.http2.frames.HeadersFrame(req, null, false),
                    org.eclipse.jetty.util.Promise.from(stream -> stream.data(new org.eclipse.jetty.http2.frames.DataFrame(stream.getId(),
                            message.duplicate(), false), Callback.NOOP), x -> errors.incrementAndGet()), listener);
        }
        return client::stop;
    }

    /** The server's next line, waited for at most 30 s (a server that hangs is killed by the caller's finally). */
    private static String line(BufferedReader sout) throws IOException {
        try {
            return CompletableFuture.supplyAsync(() -> {
                try {
                    return sout.readLine();
                } catch (IOException ex) {
                    throw new java.io.UncheckedIOException(ex);
                }
            }).get(30, java.util.concurrent.TimeUnit.SECONDS);
        } catch (java.util.concurrent.TimeoutException ex) {
            throw new IOException("the server said nothing for 30 s");
        } catch (InterruptedException | java.util.concurrent.ExecutionException ex) {
            throw new IOException("the server's output could not be read: " + ex.getMessage(), ex);
        }
    }

    /** One peer's closed loop: a post, and the next as soon as it is answered. */
    private static void post(Transport t, URI uri, byte[] body, ThreadLoop loop, AtomicLong errors) {
        t.exchange(new Transport.Call("POST", uri, TOKEN, body, Duration.ofSeconds(30)), loop, (r, ex) -> {
            if (ex != null || r.status() != 200) {
                errors.incrementAndGet();
            }
            post(t, uri, body, loop, errors);
        });
    }

    /** The java launcher of this JVM. */
    private static final class Path {
        static String java() {
            return java.nio.file.Path.of(System.getProperty("java.home"), "bin", "java").toString();
        }
    }
}

package granary.bench.stream;

import granary.api.event.Granted;
import granary.api.event.JobCancelled;
import granary.api.event.JobsSubmitted;
import granary.api.event.NodeAdded;
import granary.api.event.PolicyInstalled;
import granary.api.model.Clock;
import granary.api.model.JobSpec;
import granary.api.model.NodeSpec;
import granary.api.model.Resources;
import granary.api.model.UnitSpec;
import granary.engine.Engine;
import granary.engine.EngineOptions;
import granary.engine.EventLoop;
import granary.http.Api;
import granary.http.ApiAuth;
import granary.http.ApiServlet;
import granary.http.AuditLog;
import granary.http.EventStream;
import granary.protocol.link.Tokens;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.ServiceLoader;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;

/**
 * The allocation stream under load (benchmarks/RESULTS.md, "Allocation stream"): a real engine with
 * the fifo policy grants and takes back slots as fast as it can, in rounds (submit a batch of jobs,
 * cancel the batch before), while S subscribers read {@code GET /api/v1/stream} over loopback HTTP
 * from a real Jetty. Reports the engine's granted slots per second with S subscribers and with none
 * (runs alternate), the events each subscriber read, and the stream's lag p50/p99 (decision → bytes
 * flushed to the subscriber).
 *
 * <pre>java -cp benchmarks/target/benchmarks.jar granary.bench.stream.StreamLoad [--subscribers=50] [--seconds=10] [--runs=3] [--nodes=2000]</pre>
 */
public final class StreamLoad {

    private StreamLoad() {
    }

    /** One measured run. */
    public record Run(int subscribers, double slotsPerSecond, long events, long eventsPerSubscriberMin, long lagP50, long lagP99) {
    }

    public static void main(String[] args) throws Exception {
        int subscribers = 50;
        int seconds = 10;
        int runs = 3;
        int nodes = 2000;
        if (args.length > 0 && args[0].equals("--readers")) {
            readers(URI.create(args[1]), args[2], Integer.parseInt(args[3]));
            return;
        }
        for (String a : args) {
            String v = a.substring(a.indexOf('=') + 1);
            if (a.startsWith("--subscribers=")) {
                subscribers = Integer.parseInt(v);
            } else if (a.startsWith("--seconds=")) {
                seconds = Integer.parseInt(v);
            } else if (a.startsWith("--runs=")) {
                runs = Integer.parseInt(v);
            } else if (a.startsWith("--nodes=")) {
                nodes = Integer.parseInt(v);
            } else {
                System.err.println("usage: StreamLoad [--subscribers=50] [--seconds=10] [--runs=3] [--nodes=2000]");
                System.exit(2);
            }
        }
        List<Run> with = new ArrayList<>();
        List<Run> without = new ArrayList<>();
        for (int i = 0; i < runs; i++) {
            without.add(run(0, seconds, nodes));
            with.add(run(subscribers, seconds, nodes));
        }
        for (int i = 0; i < runs; i++) {
            System.out.println(line(without.get(i)));
            System.out.println(line(with.get(i)));
        }
        double base = median(without.stream().mapToDouble(Run::slotsPerSecond).toArray());
        double loaded = median(with.stream().mapToDouble(Run::slotsPerSecond).toArray());
        System.out.printf(Locale.ROOT, "STREAM median slots/s: %.0f without subscribers, %.0f with %d (%.1f%% %s); lag p99 median %d ms%n",
                base, loaded, subscribers, Math.abs(100 * (1 - loaded / base)), loaded <= base ? "slower" : "faster",
                (long) median(with.stream().mapToDouble(Run::lagP99).toArray()));
    }

    static String line(Run r) {
        return String.format(Locale.ROOT, "STREAM subscribers=%d slots/s=%.0f events=%d minPerSubscriber=%d lagP50=%dms lagP99=%dms",
                r.subscribers(), r.slotsPerSecond(), r.events(), r.eventsPerSubscriberMin(), r.lagP50(), r.lagP99());
    }

    private static double median(double[] v) {
        double[] s = v.clone();
        java.util.Arrays.sort(s);
        return s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
    }

    /** One run: a fresh engine, stream and Jetty; {@code subscribers} readers; {@code seconds} of rounds. */
    public static Run run(int subscribers, int seconds, int nodes) throws Exception {
        Engine engine = new Engine(Clock.system(), new EngineOptions(List.of("fifo"), List.of("fifo"), false));
        EventLoop loop = new EventLoop(engine, 100_000, "stream-load-engine").start();
        for (granary.api.spi.PolicyProvider p : ServiceLoader.load(granary.api.spi.PolicyProvider.class)) {
            if (p.declaration().name().equals("fifo")) {
                loop.submit(new PolicyInstalled(p.declaration().create(java.util.Map.of()), "fifo")).get(10, TimeUnit.SECONDS);
            }
        }
        for (int n = 0; n < nodes; n++) {
            loop.submit(new NodeAdded(new NodeSpec("n" + n, "r" + (n % 20), Resources.of(6400, 262_144))));
        }
        loop.query(v -> v.cluster().size()).get(60, TimeUnit.SECONDS);
        Tokens tokens = new Tokens("stream-load-secret-0123456789".getBytes(StandardCharsets.US_ASCII));
        EventStream stream = new EventStream(loop, 1 << 16, "bench", subscribers + 1).start(1000);
        Api api = new Api(loop, List::of, new AuditLog(null, 10, System::currentTimeMillis), () -> null, Duration.ofSeconds(30));
        Server jetty = new Server();
        ServerConnector c = new ServerConnector(jetty);
        c.setHost("127.0.0.1");
        c.setPort(0);
        jetty.addConnector(c);
        ServletContextHandler ctx = new ServletContextHandler();
        ServletHolder holder = new ServletHolder(new ApiServlet(api, new ApiAuth(tokens, false), stream, "bench"));
        holder.setAsyncSupported(true);
        ctx.addServlet(holder, Api.BASE + "/*");
        jetty.setHandler(ctx);
        jetty.start();
        String token = tokens.issue("reader/bench");
        URI url = URI.create("http://127.0.0.1:" + c.getLocalPort() + Api.BASE + "/stream");
        // the subscribers run in a child JVM at the lowest CPU priority: on a small machine they would
        // otherwise take the cores from the server they measure (in production they are other hosts)
        Process child = subscribers == 0 ? null : readersProcess(url, token, subscribers);
        try {
            ReaderReport report = new ReaderReport(child);
            report.awaitConnected(subscribers, stream);
            AtomicLong slots = new AtomicLong();
            AutoCloseable counting = loop.subscribe(e -> {
                if (e instanceof Granted g) {
                    slots.addAndGet(g.slots());
                }
            });
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
            long start = System.nanoTime();
            int round = 0;
            List<String> previous = List.of();
            while (System.nanoTime() < end) {
                List<JobSpec> batch = new ArrayList<>();
                for (int j = 0; j < 20; j++) {
                    batch.add(new JobSpec("r" + round + "-" + j, "root.g" + (j % 4), "u", 0, false,
                            List.of(new UnitSpec("w", Resources.of(100, 1024), 2000, 0, List.of(), 0, java.util.Set.of(),
                                    java.util.Map.of(), false, granary.api.model.UnitKind.OFFLINE))));
                }
                loop.submit(new JobsSubmitted(batch)).get(60, TimeUnit.SECONDS);
                for (String id : previous) {
                    loop.submit(new JobCancelled(id));
                }
                previous = batch.stream().map(JobSpec::id).toList();
                round++;
            }
            loop.query(v -> 0).get(60, TimeUnit.SECONDS);
            double elapsed = (System.nanoTime() - start) / 1e9;
            counting.close();
            long lastSeq = stream.latest();
            report.awaitSeq(lastSeq, System.nanoTime() + TimeUnit.SECONDS.toNanos(60));
            long p50 = stream.lagPercentile(50);
            long p99 = stream.lagPercentile(99);
            long events = report.total;
            long min = report.min;
            return new Run(subscribers, slots.get() / elapsed, events, min, p50, p99);
        } finally {
            // the child is killed by its PID whatever happened; the server's parts stop with it
            if (child != null) {
                child.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
            stream.close();
            jetty.stop();
            loop.close();
        }
    }

    private static Process readersProcess(URI url, String token, int n) throws java.io.IOException {
        String java = ProcessHandle.current().info().command().orElse("java");
        String cp = System.getProperty("java.class.path");
        List<String> cmd = new ArrayList<>();
        if (new java.io.File("/usr/bin/nice").canExecute()) {
            cmd.addAll(List.of("/usr/bin/nice", "-n", "19"));
        }
        cmd.addAll(List.of(java, "-Xmx512m", "-cp", cp, StreamLoad.class.getName(), "--readers", url.toString(), token,
                Integer.toString(n)));
        return new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT).start();
    }

    /** The child's subscribers: {@code n} readers; every 200 ms a line {@code READ connected total min minSeq}. */
    static void readers(URI url, String token, int n) throws Exception {
        List<Reader> readers = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            readers.add(new Reader(url, token));
        }
        while (true) {
            long connected = readers.stream().filter(r -> r.body != null).count();
            long total = readers.stream().mapToLong(r -> r.events.get()).sum();
            long min = readers.stream().mapToLong(r -> r.events.get()).min().orElse(0);
            long minSeq = readers.stream().mapToLong(r -> r.lastSeq.get()).min().orElse(-1);
            System.out.println("READ " + connected + " " + total + " " + min + " " + minSeq);
            System.out.flush();
            Thread.sleep(200);
        }
    }

    /** The parent's view of the child's readers. */
    static final class ReaderReport {
        private final java.io.BufferedReader in;
        long connected;
        long total;
        long min;
        long minSeq = -1;

        ReaderReport(Process child) {
            in = child == null ? null : new java.io.BufferedReader(new java.io.InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
        }

        private boolean read() throws java.io.IOException {
            String line = in.readLine();
            if (line == null) {
                return false;
            }
            String[] f = line.split(" ");
            if (f.length == 5 && f[0].equals("READ")) {
                connected = Long.parseLong(f[1]);
                total = Long.parseLong(f[2]);
                min = Long.parseLong(f[3]);
                minSeq = Long.parseLong(f[4]);
            }
            return true;
        }

        void awaitConnected(int n, EventStream stream) throws Exception {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (in != null && (connected < n || stream.subscribers() < n) && System.nanoTime() < deadline && read()) {
                // reading the child's reports
            }
        }

        void awaitSeq(long seq, long deadlineNanos) throws Exception {
            while (in != null && minSeq < seq && System.nanoTime() < deadlineNanos && read()) {
                // reading the child's reports
            }
        }
    }

    /** One subscriber: reads the stream on its own thread, counts events, remembers the last id. */
    static final class Reader implements AutoCloseable {
        final AtomicLong events = new AtomicLong();
        final AtomicLong lastSeq = new AtomicLong(-1);
        private final Thread thread;
        private volatile InputStream body;

        Reader(URI url, String token) {
            thread = new Thread(() -> {
                try {
                    HttpResponse<InputStream> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(url)
                            .header("Authorization", "Bearer " + token).build(), HttpResponse.BodyHandlers.ofInputStream());
                    body = r.body();
                    // count events by their "\nid: " with a byte scan: a subscriber that parses costs the
                    // benchmark's machine, not the server under test
                    byte[] buf = new byte[1 << 16];
                    int match = 0;
                    byte[] needle = "\nid: ".getBytes(StandardCharsets.US_ASCII);
                    long seq = -1;
                    boolean inId = false;
                    int n;
                    while ((n = body.read(buf)) > 0) {
                        for (int i = 0; i < n; i++) {
                            byte c = buf[i];
                            if (inId) {
                                if (c == '.') {
                                    seq = 0;
                                } else if (c >= '0' && c <= '9' && seq >= 0) {
                                    seq = seq * 10 + (c - '0');
                                } else if (c == '\n') {
                                    inId = false;
                                    events.incrementAndGet();
                                    lastSeq.set(seq);
                                }
                                continue;
                            }
                            match = c == needle[match] ? match + 1 : (c == needle[0] ? 1 : 0);
                            if (match == needle.length) {
                                inId = true;
                                seq = -1;
                                match = 0;
                            }
                        }
                    }
                } catch (Exception e) {
                }
            }, "stream-reader");
            thread.setDaemon(true);
            thread.start();
        }

        @Override
        public void close() throws Exception {
            InputStream b = body;
            if (b != null) {
                b.close();
            }
            thread.interrupt();
        }
    }
}

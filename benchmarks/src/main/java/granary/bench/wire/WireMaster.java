package granary.bench.wire;

import granary.api.event.PolicyInstalled;
import granary.api.model.Clock;
import granary.api.model.UnitKind;
import granary.engine.Engine;
import granary.engine.EngineOptions;
import granary.engine.EventLoop;
import granary.master.MasterOptions;
import granary.master.ProtocolMaster;
import granary.policy.fifo.FifoPolicy;
import granary.protocol.link.JdkHttpServer;
import granary.protocol.link.Tokens;
import granary.recovery.Recovery;
import granary.recovery.RecoveryOptions;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The master without the OSGi runtime: an {@link Engine} with the fifo policy behind an
 * {@link EventLoop} (1 s tick, no invariant checks), a {@link ProtocolMaster} over it, served by
 * {@link JdkHttpServer} on 127.0.0.1. As a {@code main} it stands in for the runtime jar and talks
 * like it: {@code granary: listening on URL} on stderr once up; on standard input
 * {@code granary:wire} prints the same line as the runtime's command; end of input stops it.
 *
 * <pre>java -Xmx1g -cp benchmarks/target/benchmarks.jar granary.bench.wire.WireMaster --secret=FILE [--listen=127.0.0.1:0]
 *      [--recovery-window=SECONDS --recovery-settle=SECONDS]</pre>
 *
 * <p>With {@code --recovery-window} the master starts empty with that recovery window (and settle
 * time, default 2 s; {@link RecoveryLoad}). It then prints {@code granary: window open at MILLIS}
 * (epoch milliseconds, taken just before the {@link ProtocolMaster} is made) and, once
 * {@link ProtocolMaster#recovering()} turns false, {@code granary: recovered at MILLIS}; on standard
 * input {@code granary:recovery} prints {@link #recoveryLine()}.
 *
 * <p>Note: {@link JdkHttpServer} blocks one server thread per parked inbox poll (the runtime's
 * Jetty servlet is asynchronous), so this master holds one thread per connected peer.
 */
public final class WireMaster implements AutoCloseable {

    final EventLoop loop;
    final ProtocolMaster master;
    final JdkHttpServer server;
    /** Epoch ms just before the master was made (its window opens then). */
    final long openedAt;
    /** Epoch ms when {@link ProtocolMaster#recovering()} was first seen false (polled every 5 ms), or -1. */
    private volatile long recoveredAt = -1;
    /** Epoch ms, on the engine thread, when the engine first held a node (the rebuild had begun), or -1. */
    private volatile long rebuildStartedAt = -1;

    private WireMaster(EventLoop loop, ProtocolMaster master, JdkHttpServer server, long openedAt) {
        this.loop = loop;
        this.master = master;
        this.server = server;
        this.openedAt = openedAt;
        Thread watch = new Thread(() -> {
            // The window is due when the rebuild starts: the first node reaches the engine (nothing does
            // during the window). Asked every 20 ms on the engine thread, which notes the time itself.
            while (master.recovering() && rebuildStartedAt < 0) {
                try {
                    long at = loop.query(v -> v.cluster().size() > 0 ? System.currentTimeMillis() : -1L).get(60, TimeUnit.SECONDS);
                    if (at > 0) {
                        rebuildStartedAt = at;
                        break;
                    }
                    Thread.sleep(20);
                } catch (InterruptedException ex) {
                    return;
                } catch (Exception ex) {
                    break;
                }
            }
            while (master.recovering()) {
                try {
                    Thread.sleep(5);
                } catch (InterruptedException ex) {
                    return;
                }
            }
            recoveredAt = System.currentTimeMillis();
        }, "wire-recovery-watch");
        watch.setDaemon(true);
        watch.start();
    }

    /** Starts engine, master and server; tokens from {@code tokens}. */
    public static WireMaster start(Tokens tokens, InetSocketAddress listen) throws IOException {
        return start(tokens, listen, RecoveryOptions.none());
    }

    /** Starts engine, master (with {@code recovery}'s window) and server; tokens from {@code tokens}. */
    public static WireMaster start(Tokens tokens, InetSocketAddress listen, RecoveryOptions recovery) throws IOException {
        Engine engine = new Engine(Clock.system(), new EngineOptions(List.of("fifo"), List.of("fifo"), false));
        EventLoop loop = new EventLoop(engine, 1000, "granary-engine").start();
        try {
            loop.submit(new PolicyInstalled(new FifoPolicy(), "wire-bench")).get(10, TimeUnit.SECONDS);
        } catch (Exception ex) {
            loop.close();
            throw new IOException("the engine did not take the fifo policy: " + ex, ex);
        }
        long openedAt = System.currentTimeMillis();
        ProtocolMaster master = new ProtocolMaster(loop, tokens, MasterOptions.defaults(), Clock.system(), Recovery.of(recovery));
        JdkHttpServer server;
        try {
            server = bind(listen, master);
        } catch (IOException ex) {
            master.close();
            loop.close();
            throw ex;
        }
        return new WireMaster(loop, master, server, openedAt);
    }

    /** Binds {@code listen}; a fixed port just released by a killed master is tried for up to 10 s. */
    private static JdkHttpServer bind(InetSocketAddress listen, ProtocolMaster master) throws IOException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (true) {
            try {
                return JdkHttpServer.start(listen, master, null);
            } catch (IOException ex) {
                if (listen.getPort() == 0 || System.nanoTime() > deadline) {
                    throw ex;
                }
                try {
                    Thread.sleep(50);
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    throw ex;
                }
            }
        }
    }

    /** Epoch ms when the rebuild was first seen under way (the window was due; within ~20 ms), or -1. */
    public long rebuildStartedAt() {
        return rebuildStartedAt;
    }

    /** Epoch ms when the master stopped recovering (window closed and rebuilt), or -1 while it recovers. */
    public long recoveredAt() {
        return recoveredAt;
    }

    /**
     * {@code recovering=B openedAt=MS recoveredAt=MS nodes=N jobs=J granted=G online=O}: the master's
     * state and the engine's granted slots (all, and of online units), read on the engine thread.
     */
    public String recoveryLine() {
        boolean recovering = master.recovering();
        long[] g;
        try {
            g = loop.query(v -> {
                long all = 0, online = 0;
                for (var n : v.cluster().nodes()) {
                    for (var a : n.allocations().entrySet()) {
                        all += a.getValue();
                        var u = v.unit(a.getKey());
                        if (u != null && u.kind() == UnitKind.ONLINE) {
                            online += a.getValue();
                        }
                    }
                }
                return new long[] {v.cluster().size(), v.jobs().size(), all, online};
            }).get(30, TimeUnit.SECONDS);
        } catch (Exception ex) {
            g = new long[] {-1, -1, -1, -1};
        }
        return "recovering=" + recovering + " openedAt=" + openedAt + " rebuildStartedAt=" + rebuildStartedAt
                + " recoveredAt=" + recoveredAt + " nodes=" + g[0]
                + " jobs=" + g[1] + " granted=" + g[2] + " online=" + g[3];
    }

    public URI url() {
        return server.url();
    }

    /** The runtime's {@code granary:wire} line. */
    public String wireLine() {
        long[] d = master.deliveryLatency();
        long[] h = master.hintLatency();
        long live = master.agents().stream().filter(p -> p.state().equals("live")).count();
        return "agents=" + master.agents().size() + " live=" + live + " jobmasters=" + master.jobMasters().size()
                + " deliveries=" + d[0] + " deliveryP50=" + d[1] + "ms deliveryP99=" + d[2] + "ms"
                + " hints=" + h[0] + " hintP50=" + h[1] + "ms hintP99=" + h[2] + "ms";
    }

    @Override
    public void close() {
        server.close();
        master.close();
        loop.close();
    }

    public static void main(String[] args) throws Exception {
        Path secret = null;
        String listen = "127.0.0.1:0";
        double window = 0, settle = 2;
        for (String a : args) {
            if (a.startsWith("--secret=")) {
                secret = Path.of(a.substring(9));
            } else if (a.startsWith("--listen=")) {
                listen = a.substring(9);
            } else if (a.startsWith("--recovery-window=")) {
                window = Double.parseDouble(a.substring(18));
            } else if (a.startsWith("--recovery-settle=")) {
                settle = Double.parseDouble(a.substring(18));
            } else {
                System.err.println("usage: WireMaster --secret=FILE [--listen=HOST:PORT]; unknown " + a);
                System.exit(2);
            }
        }
        if (secret == null) {
            System.err.println("usage: WireMaster --secret=FILE [--listen=HOST:PORT]");
            System.exit(2);
        }
        int colon = listen.lastIndexOf(':');
        InetSocketAddress address = new InetSocketAddress(listen.substring(0, colon), Integer.parseInt(listen.substring(colon + 1)));
        RecoveryOptions recovery = window <= 0 ? RecoveryOptions.none()
                : new RecoveryOptions(Duration.ofMillis((long) (window * 1000)), Duration.ofMillis((long) (settle * 1000)));
        try (WireMaster m = start(Tokens.fromFile(secret), address, recovery)) {
            System.err.println("granary: window open at " + m.openedAt);
            Thread report = new Thread(() -> {
                boolean started = false;
                while (m.recoveredAt() < 0) {
                    if (!started && m.rebuildStartedAt() > 0) {
                        System.err.println("granary: rebuild started at " + m.rebuildStartedAt());
                        started = true;
                    }
                    try {
                        Thread.sleep(5);
                    } catch (InterruptedException ex) {
                        return;
                    }
                }
                if (!started && m.rebuildStartedAt() > 0) {
                    System.err.println("granary: rebuild started at " + m.rebuildStartedAt());
                }
                System.err.println("granary: recovered at " + m.recoveredAt());
            }, "wire-recovery-report");
            report.setDaemon(true);
            report.start();
            System.err.println("granary: listening on " + m.url());
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            for (String line; (line = in.readLine()) != null; ) {
                line = line.trim();
                if (line.equals("granary:wire")) {
                    System.out.println(m.wireLine());
                } else if (line.equals("granary:recovery")) {
                    System.out.println(m.recoveryLine());
                } else if (line.equals("exit") || line.equals("stop")) {
                    break;
                } else if (!line.isEmpty()) {
                    System.out.println("unknown command: " + line);
                }
                System.out.flush();
            }
        }
        System.exit(0);
    }
}

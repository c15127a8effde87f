package granary.bench.wire;

import granary.api.event.PolicyInstalled;
import granary.api.model.Clock;
import granary.engine.Engine;
import granary.engine.EngineOptions;
import granary.engine.EventLoop;
import granary.master.MasterOptions;
import granary.master.ProtocolMaster;
import granary.policy.fifo.FifoPolicy;
import granary.protocol.link.JdkHttpServer;
import granary.protocol.link.Tokens;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The master without the OSGi runtime: an {@link Engine} with the fifo policy behind an
 * {@link EventLoop} (1 s tick, no invariant checks), a {@link ProtocolMaster} over it, served by
 * {@link JdkHttpServer} on 127.0.0.1. As a {@code main} it stands in for the runtime jar and talks
 * like it: {@code granary: listening on URL} on stderr once up; on standard input
 * {@code granary:wire} prints the same line as the runtime's command; end of input stops it.
 *
 * <pre>java -Xmx1g -cp benchmarks/target/benchmarks.jar granary.bench.wire.WireMaster --secret=FILE [--listen=127.0.0.1:0]</pre>
 *
 * <p>Note: {@link JdkHttpServer} blocks one server thread per parked inbox poll (the runtime's
 * Jetty servlet is asynchronous), so this master holds one thread per connected peer.
 */
public final class WireMaster implements AutoCloseable {

    final EventLoop loop;
    final ProtocolMaster master;
    final JdkHttpServer server;

    private WireMaster(EventLoop loop, ProtocolMaster master, JdkHttpServer server) {
        this.loop = loop;
        this.master = master;
        this.server = server;
    }

    /** Starts engine, master and server; tokens from {@code tokens}. */
    public static WireMaster start(Tokens tokens, InetSocketAddress listen) throws IOException {
        Engine engine = new Engine(Clock.system(), new EngineOptions(List.of("fifo"), List.of("fifo"), false));
        EventLoop loop = new EventLoop(engine, 1000, "granary-engine").start();
        try {
            loop.submit(new PolicyInstalled(new FifoPolicy(), "wire-bench")).get(10, TimeUnit.SECONDS);
        } catch (Exception ex) {
            loop.close();
            throw new IOException("the engine did not take the fifo policy: " + ex, ex);
        }
        ProtocolMaster master = new ProtocolMaster(loop, tokens, MasterOptions.defaults(), Clock.system());
        JdkHttpServer server = JdkHttpServer.start(listen, master, null);
        return new WireMaster(loop, master, server);
    }

    public URI url() {
        return server.url();
    }

    /** The runtime's {@code granary:wire} line. */
    public String wireLine() {
        long[] d = master.deliveryLatency();
        long live = master.agents().stream().filter(p -> p.state().equals("live")).count();
        return "agents=" + master.agents().size() + " live=" + live + " jobmasters=" + master.jobMasters().size()
                + " deliveries=" + d[0] + " deliveryP50=" + d[1] + "ms deliveryP99=" + d[2] + "ms";
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
        for (String a : args) {
            if (a.startsWith("--secret=")) {
                secret = Path.of(a.substring(9));
            } else if (a.startsWith("--listen=")) {
                listen = a.substring(9);
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
        try (WireMaster m = start(Tokens.fromFile(secret), address)) {
            System.err.println("granary: listening on " + m.url());
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            for (String line; (line = in.readLine()) != null; ) {
                line = line.trim();
                if (line.equals("granary:wire")) {
                    System.out.println(m.wireLine());
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

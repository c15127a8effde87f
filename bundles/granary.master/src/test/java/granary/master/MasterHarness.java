package granary.master;

import granary.api.model.ManualClock;
import granary.policy.fifo.FifoPolicy;
import granary.protocol.Role;
import granary.protocol.Sender;
import granary.protocol.link.JdkHttpServer;
import granary.protocol.link.PeerLink;
import granary.protocol.link.Tokens;
import granary.testkit.LiveEngine;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** A real engine, the protocol master over it, served on a free loopback port; links for peers. */
final class MasterHarness implements AutoCloseable {

    final LiveEngine live = new LiveEngine(List.of("fifo"), List.of("fifo"), new FifoPolicy());
    final Tokens tokens = new Tokens("a test secret of enough bytes".getBytes());
    final ManualClock clock = new ManualClock(1_000_000);
    final ProtocolMaster master;
    final JdkHttpServer server;
    private final List<AutoCloseable> open = new ArrayList<>();

    MasterHarness(MasterOptions options) throws IOException {
        this(options, granary.recovery.Recovery.of(granary.recovery.RecoveryOptions.none()));
    }

    /** A master that starts with {@code recovery}'s window open. */
    MasterHarness(MasterOptions options, granary.recovery.Recovery recovery) throws IOException {
        master = new ProtocolMaster(live.loop, tokens, options, clock, recovery);
        server = JdkHttpServer.start(new InetSocketAddress("127.0.0.1", 0), master, null);
    }

    MasterHarness() throws IOException {
        this(MasterOptions.defaults().withIncarnation(77).withTimeouts(Duration.ofSeconds(30), Duration.ofSeconds(60)));
    }

    PeerLink link(Role role, String id, long incarnation) {
        Sender s = new Sender(role, id);
        return new PeerLink(server.url(), s, incarnation, tokens.issue(s), PeerLink.Options.defaults().withRetries(1));
    }

    PeerLink link(Role role, String id, long incarnation, String token) {
        return new PeerLink(server.url(), new Sender(role, id), incarnation, token, PeerLink.Options.defaults().withRetries(1));
    }

    @Override
    public void close() {
        server.close();
        master.close();
        live.close();
    }
}

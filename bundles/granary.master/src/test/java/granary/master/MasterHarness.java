package granary.master;

import granary.api.model.ManualClock;
import granary.policy.fifo.FifoPolicy;
import granary.protocol.Role;
import granary.protocol.Sender;
import granary.protocol.link.JdkHttpServer;
import granary.protocol.link.SyncLink;
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
    /** The links handed out, closed with the harness. */
    private final List<AutoCloseable> open = new ArrayList<>();
    /** A master on loopback answers at once: a send that gets no answer in 20 s fails (and its link closes). */
    private static final SyncLink.Options LINKS = SyncLink.Options.defaults().withAnswerWithin(Duration.ofSeconds(20));

    MasterHarness(MasterOptions options) throws IOException {
        this(options, granary.recovery.Recovery.of(granary.recovery.RecoveryOptions.none()));
    }

    /** A master that starts with {@code recovery}'s window open. */
    MasterHarness(MasterOptions options, granary.recovery.Recovery recovery) throws IOException {
        this(options, recovery, 0);
    }

    /** A master on {@code port} of 127.0.0.1 (0: a free one): one started again where another was. */
    MasterHarness(MasterOptions options, granary.recovery.Recovery recovery, int port) throws IOException {
        master = new ProtocolMaster(live.loop, tokens, options, clock, recovery);
        server = JdkHttpServer.start(new InetSocketAddress("127.0.0.1", port), master, null);
    }

    MasterHarness() throws IOException {
        this(MasterOptions.defaults().withIncarnation(77).withTimeouts(Duration.ofSeconds(30), Duration.ofSeconds(60)));
    }

    /** A link of peer {@code id} with its own valid token; closed with the harness. */
    SyncLink link(Role role, String id, long incarnation) {
        Sender s = new Sender(role, id);
        return link(role, id, incarnation, tokens.issue(s));
    }

    /** A link of peer {@code id} with {@code token}; closed with the harness. */
    SyncLink link(Role role, String id, long incarnation, String token) {
        SyncLink l = new SyncLink(server.url(), new Sender(role, id), incarnation, token, LINKS);
        synchronized (open) {
            open.add(l);
        }
        return l;
    }

    @Override
    public void close() {
        synchronized (open) {
            for (AutoCloseable c : open) {
                try {
                    c.close();
                } catch (Exception ex) {
                    // closing a link throws nothing; go on with the others
                }
            }
            open.clear();
        }
        server.close();
        master.close();
        live.close();
    }
}

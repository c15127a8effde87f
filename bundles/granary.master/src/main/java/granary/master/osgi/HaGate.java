package granary.master.osgi;

import granary.master.ProtocolMaster;
import granary.protocol.link.Endpoint;
import granary.protocol.link.Reply;
import granary.protocol.link.Standby;
import java.net.URI;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * The protocol endpoint of a master under high availability: the {@link ProtocolMaster} while this
 * master leads, else a standby's refusal naming the leader ({@link Standby}). Switched once to
 * leading and once to stopped, never back: a master that was deposed halts (docs/ha.md).
 */
final class HaGate implements Endpoint {

    private final String name;
    private final URI self;
    private final Supplier<URI> leader;
    private volatile ProtocolMaster master;
    private volatile boolean stopped;

    /**
     * @param leader the leader's URL as published in ZooKeeper, or null if none is known
     */
    HaGate(String name, URI self, Supplier<URI> leader) {
        this.name = name;
        this.self = self;
        this.leader = leader;
    }

    void lead(ProtocolMaster m) {
        if (!stopped) {
            master = m;
        }
    }

    /** Stops serving at once; returns the master that served, if any, to be closed. */
    ProtocolMaster stop() {
        stopped = true;
        ProtocolMaster m = master;
        master = null;
        return m;
    }

    /** True while this master leads and serves (elected, not stopped). */
    boolean serving() {
        return master != null;
    }

    /** True once this master stopped serving (it was deposed, or is shutting down). */
    boolean stopped() {
        return stopped;
    }

    /** The leader to name in a refusal: null while this master serves, or when none is known or this one stopped. */
    URI leaderToName() {
        if (master != null) {
            return null;
        }
        URI l = leader.get();
        return l == null || l.equals(self) ? null : l;
    }

    @Override
    public Reply post(String authorization, byte[] body, String remote) {
        ProtocolMaster m = master;
        return m != null ? m.post(authorization, body, remote) : Standby.refusal(name, self, leaderToName());
    }

    @Override
    public CompletableFuture<Reply> postAsync(String authorization, byte[] body, String remote) {
        ProtocolMaster m = master;
        return m != null ? m.postAsync(authorization, body, remote)
                : CompletableFuture.completedFuture(Standby.refusal(name, self, leaderToName()));
    }

    @Override
    public Reply admit(String authorization, String remote) {
        ProtocolMaster m = master;
        return m != null ? m.admit(authorization, remote) : Standby.refusal(name, self, leaderToName());
    }

    @Override
    public CompletableFuture<Reply> poll(String authorization, long after, long waitMillis, String remote) {
        return poll(authorization, after, waitMillis, 0, remote);
    }

    @Override
    public CompletableFuture<Reply> poll(String authorization, long after, long waitMillis, long incarnation, String remote) {
        ProtocolMaster m = master;
        return m != null ? m.poll(authorization, after, waitMillis, incarnation, remote)
                : CompletableFuture.completedFuture(Standby.refusal(name, self, leaderToName()));
    }
}

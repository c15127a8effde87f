package granary.master.osgi;

import granary.ha.Lease;
import granary.master.LeaderLease;
import java.net.URI;

/**
 * The {@link LeaderLease} of a master under high availability (docs/ha.md, "The lease"): held
 * while this master leads (its {@link HaGate} serves) and its election's {@link Lease} holds. The
 * {@link granary.master.ProtocolMaster} created when it is elected checks it, and the runtime
 * registers it for the HTTP API, which also reads from it whom to point a write at.
 */
final class ElectionLease implements LeaderLease {

    private final Lease lease;
    private final HaGate gate;
    private final URI self;
    private final String cluster;

    ElectionLease(Lease lease, HaGate gate, URI self, String cluster) {
        this.lease = lease;
        this.gate = gate;
        this.self = self;
        this.cluster = cluster;
    }

    @Override
    public boolean held() {
        return gate.serving() && lease.held();
    }

    @Override
    public String why() {
        if (gate.stopped()) {
            return "master " + self + " stepped down as leader of cluster " + cluster + ": " + lease.why();
        }
        if (!gate.serving()) {
            URI leader = gate.leaderToName();
            return "master " + self + " is a standby of cluster " + cluster
                    + (leader == null ? " and no leader is known yet" : "; the leader is " + leader);
        }
        return lease.why();
    }

    @Override
    public URI leader() {
        return gate.leaderToName();
    }
}

package granary.master;

import java.util.List;

import org.osgi.annotation.versioning.ProviderType;

/**
 * What a running master's protocol side shows monitors: its peers, where it is in its start after a
 * restart, and how quickly grants leave it. {@link ProtocolMaster} implements it; in the runtime the
 * master's component registers it as an OSGi service while this master serves (at once for a single
 * master, once elected under high availability) and takes it away when the master stops. The metrics
 * bundle reads it, and the HTTP API may; a runtime without a master side ({@code --listen=off}) has none.
 *
 * <p>Every method may be called from any thread; each is answered by a turn of the master's loop
 * (between two messages) and returns a copy.
 */
@ProviderType
public interface MasterMonitor {

    /** Every agent that registered, sorted by node name; {@link PeerStatus#state()} is {@code live} or {@code lost}. */
    List<PeerStatus> agents();

    /** Every job master that connected, sorted by id; {@code live} or {@code lost}. */
    List<PeerStatus> jobMasters();

    /** Whether the master still listens after starting empty, rebuilds, or serves (docs/recovery.md). */
    RecoveryState recoveryState();

    /** How long agents' grants took from the engine's decision to the cap that carries them leaving the master. */
    DeliveryStats deliveryStats();

    /** How long news for job masters (grants, revocations, exits) took to leave the master in a hint. */
    default DeliveryStats hintStats() {
        return new DeliveryStats(0, 0, -1, -1);
    }

    /**
     * The messages applied since the master started, and the turns that applied them: under load a
     * turn applies every message waiting, with one engine cycle (docs/architecture.md, "The master's
     * loop"), so their ratio is the mean batch.
     */
    default Batches batches() {
        return new Batches(0, 0, 0);
    }

    /**
     * {@code messages} applied in {@code turns}; {@code expired}: messages not applied because their
     * request had been answered at the edge (its time passed, 503: the peer sends it again) before
     * their turn came.
     */
    record Batches(long turns, long messages, long expired) {
    }

    /**
     * The last rebuild after a recovery window (docs/recovery.md, "Rebuilding"), or null if this
     * master has not rebuilt: the window closed, then the grants were rebuilt from what peers
     * reported and the master served again.
     */
    default Rebuilt lastRebuild() {
        return null;
    }

    /**
     * A rebuild: when the window closed (the master's clock, ms), how long from there to serving
     * (wall time, ns: measured, never used in a decision), the grants adopted and the slots dropped.
     */
    record Rebuilt(long closedAtMillis, long nanos, int adoptions, int dropped) {
    }
}

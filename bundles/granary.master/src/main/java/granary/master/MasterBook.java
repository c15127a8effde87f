package granary.master;

import granary.api.event.EngineAccess;
import granary.api.model.Clock;
import granary.api.model.UnitId;
import granary.api.model.UnitSpec;
import granary.recovery.Recovered;
import granary.recovery.RecoveryWindow;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What the master knows of its peers and their work, beside its engine's grants: one instance per
 * master, read and written only in turns of the master's loop (docs/architecture.md, "The master's
 * loop"), except the few fields marked as read by monitors. The handlers of the master's parts
 * ({@link MasterPart}) share it; none of them holds state of its own.
 */
final class MasterBook {

    /** The most recent cancelled or dropped jobs whose former owner is remembered. */
    static final int FORMER_OWNERS = 4096;

    final MasterOptions options;
    final Clock clock;
    final Map<String, AgentPeer> agents = new HashMap<>();
    final Map<String, JobMasterPeer> jobMasters = new HashMap<>();
    /** Job id → the job master that runs it. */
    final Map<String, String> owners = new HashMap<>();
    /**
     * Jobs cancelled or dropped lately → the job master that ran them: the exits of their workers,
     * stopped by the withdrawals, still go to it (a job master is done once its workers are gone).
     */
    final Map<String, String> formerOwners = new LinkedHashMap<>() {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, String> eldest) {
            return size() > FORMER_OWNERS;
        }
    };
    /** Job master id → the key its plan passes are sealed with. */
    final Map<String, String> keys = new HashMap<>();
    /** Every unit of a job run by a job master, as requested: a cap carries its slot size and kind. */
    final Map<UnitId, UnitSpec> unitSpecs = new HashMap<>();
    /** Lost job masters being started again (docs/recovery.md, "Restarting a lost job master"). */
    final Restarts restarts = new Restarts();
    /** Milliseconds from a change of an agent's grants to the cap carrying it leaving the master. */
    final Latencies capLatencies = new Latencies();
    /** Milliseconds from news for a job master (grants, revocations, exits) to the hint carrying it leaving the master. */
    final Latencies hintLatencies = new Latencies();
    /** Peers with a parked poll and news from this turn: answered once, when it ends. */
    final Set<Peer> sendAfterTurn = new LinkedHashSet<>();
    /** Heartbeats and delta requests acknowledged during the window, applied after the rebuild in arrival order. */
    final List<Runnable> deferred = new ArrayList<>();
    /** What the master still owes peers that return after the window. */
    Recovered recovered = Recovered.none();
    /** The last rebuild, for monitors; null before one. */
    volatile MasterMonitor.Rebuilt lastRebuild;
    /** Open while the master listens after starting empty; null once it rebuilt (docs/recovery.md). Read by monitors. */
    volatile RecoveryWindow window;
    /**
     * True while the rebuild adopts its grants (one engine batch): their outputs leave the mirrors
     * alone, which are then filled whole from the engine. On the loop's thread only.
     */
    boolean adopting;
    /** True while the window's rebuild is applied: peers are asked to send again. Read by monitors. */
    volatile boolean rebuilding;
    /** True once the master is closing: nothing new is parked or started. Read at the edge. */
    volatile boolean closed;
    /** The engine while a turn of the loop runs on its thread; null between turns. */
    EngineAccess engine;

    /** When the recovery window this master started with opened (its clock, ms), or -1: it started without one. */
    final long windowOpenedAt;

    MasterBook(MasterOptions options, Clock clock, RecoveryWindow window) {
        this.options = options;
        this.clock = clock;
        this.window = window;
        this.windowOpenedAt = window == null ? -1 : window.openedAt();
    }

    /** The job master that runs {@code job}, or null. */
    JobMasterPeer jobMasterOf(String job) {
        String owner = owners.get(job);
        return owner == null ? null : jobMasters.get(owner);
    }

    /** {@code peer}'s parked poll is answered at the end of this turn if something is due then. */
    void deliver(Peer peer) {
        if (peer.outbox.hasParked()) {
            sendAfterTurn.add(peer);
        }
    }
}

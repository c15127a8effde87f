package granary.bench.wire;

import granary.api.model.JobSpec;
import granary.api.model.UnitId;
import granary.api.model.UnitKind;
import granary.api.model.UnitSpec;
import granary.protocol.Envelope;
import granary.protocol.Hint;
import granary.protocol.Request;
import granary.protocol.Role;
import granary.protocol.Sender;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * A simulated job master: one full request of one job with one unit of {@code desired} slots of
 * 100 cpu / 1 GiB (offline, or online), then an open inbox poll counting the hints, their
 * placements and exits, and keeping the slots it holds per node as the hints say. When the master
 * restarts ({@link Peer#resync()}) it sends the full request again with those holdings (protocol
 * version 2).
 */
final class SimJobMaster extends Peer {

    private final JobSpec spec;
    final CompletableFuture<Void> accepted = new CompletableFuture<>();
    /** Node → slots held there (the one unit), as the hints said. Under the peer's lock. */
    private final Map<String, Integer> holdings = new HashMap<>();
    /** Epoch ms the full request after a master restart was acknowledged, or -1. */
    volatile long reRequestedAt = -1;

    SimJobMaster(WireLoad.Run run, String id, int desired, Peer.Wire wire) {
        this(run, id, desired, false, wire);
    }

    SimJobMaster(WireLoad.Run run, String id, int desired, boolean online, Peer.Wire wire) {
        super(run, new Sender(Role.JOB_MASTER, id), wire);
        UnitSpec u = UnitSpec.builder("work").slot(100, 1024).desired(desired)
                .kind(online ? UnitKind.ONLINE : UnitKind.OFFLINE).build();
        this.spec = new JobSpec(id + "-job", JobSpec.DEFAULT_GROUP, "bench", 0, false, List.of(u));
    }

    void start() {
        post(new Request(true, List.of(spec), List.of(), List.of(), List.of()), ack -> {
            if (ack != null && !ack.isRefusal()) {
                poll();
                accepted.complete(null);
            } else {
                accepted.completeExceptionally(new IllegalStateException(spec.id() + " was refused: " + ack));
            }
        });
    }

    @Override
    void resync() {
        UnitId unit = new UnitId(spec.id(), "work");
        List<Request.Holding> held = new ArrayList<>();
        holdings.forEach((node, n) -> held.add(new Request.Holding(unit, node, n)));
        post(new Request(true, List.of(spec), List.of(), List.of(), List.of(), held), ack -> {
            if (ack != null && !ack.isRefusal()) {
                reRequestedAt = System.currentTimeMillis();
            } else {
                run.note(spec.id() + ": full request after the restart refused: " + ack);
            }
        });
    }

    /** Slots held, summed over nodes. */
    synchronized int held() {
        int n = 0;
        for (int h : holdings.values()) {
            n += h;
        }
        return n;
    }

    @Override
    void inbox(Envelope e, long nanos) {
        if (e.message() instanceof Hint h) {
            run.hints.increment();
            run.hintPlacements.add(h.placements().size());
            run.hintExits.add(h.exits().size());
            synchronized (this) {
                for (Hint.Placement p : h.placements()) {
                    if (p.slots() <= 0) {
                        holdings.remove(p.node());
                    } else {
                        holdings.put(p.node(), p.slots());
                    }
                }
            }
        }
    }
}

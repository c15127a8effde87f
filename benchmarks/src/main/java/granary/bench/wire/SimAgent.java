package granary.bench.wire;

import granary.api.model.Resources;
import granary.api.model.UnitId;
import granary.protocol.Cap;
import granary.protocol.Envelope;
import granary.protocol.Heartbeat;
import granary.protocol.Register;
import granary.protocol.Role;
import granary.protocol.Sender;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * A simulated agent: registers a node of {@code slotsPerAgent} slots (100 cpu, 1 GiB each), keeps
 * its inbox poll open, heartbeats every {@code heartbeatMillis} (random phase), and "runs" what its
 * caps allow: each worker ends {@code workMillis} after it started, and its exit is reported at once
 * (a heartbeat is posted as soon as none is in flight) or, with {@code --report=heartbeat}, in the
 * next periodic heartbeat.
 *
 * <p>Caps carry absolute counts, and a slot released and granted again in one go leaves the count
 * unchanged, so the agent does not wait for a rise: a unit may run {@code cap − running − exits not
 * yet acknowledged} more workers, looked at whenever a cap or a heartbeat's ack arrives. An exit
 * frees its slot once acknowledged; the next worker started on the node takes a new slot number
 * (one per worker, as job masters number them) and the "turnaround" of the oldest freed slot (exit
 * sent → worker started on a cap or ack that allowed it) is recorded.
 * With {@code workMillis <= 0} workers never end (the recovery benchmark: grants stay put).
 *
 * <p>When the master restarts ({@link Peer#resync()}) the agent registers again with every cap it
 * holds (protocol version 2); {@link RecoveryLoad} reads when that was acknowledged and when its
 * caps were whole again ({@link #snapshot()} taken before the master was killed).
 */
final class SimAgent extends Peer {

    private final String node;
    private final Map<UnitId, Integer> caps = new HashMap<>();
    /** The grant behind each cap as the master sent it (size, online, key): what a registration reports back. */
    private final Map<UnitId, Cap.Grant> grants = new HashMap<>();
    /** The caps when {@link #snapshot()} was taken (before the master was killed), or null. */
    private Map<UnitId, Integer> before;
    private int onlineBefore;
    /** Epoch ms the registration after a master restart was acknowledged, or -1. */
    volatile long reRegisteredAt = -1;
    /** Epoch ms the caps equalled the snapshot again after a master restart, or -1. */
    volatile long wholeAt = -1;
    private final String room;
    private final String endpoint;
    private final Map<UnitId, Integer> running = new HashMap<>();
    private final Map<UnitId, Integer> nextSlot = new HashMap<>();
    private final List<Heartbeat.Exit> pending = new ArrayList<>();
    /** Per heartbeat posted ({@link Peer.Post#id()}): the exits it carries that are not acknowledged yet. */
    private final Map<Long, List<Heartbeat.Exit>> unacked = new HashMap<>();
    private int unackedCount;
    /** nanoTime each exit was sent at, oldest first: slots the master should hand out again. */
    private final ArrayDeque<Long> freed = new ArrayDeque<>();
    private boolean tickDue;
    /** Whether a registration after a refusal (declared lost, not registered) is under way. */
    private boolean reRegistering;
    final CompletableFuture<Void> registered = new CompletableFuture<>();

    SimAgent(WireLoad.Run run, String node, Peer.Wire wire) {
        super(run, new Sender(Role.AGENT, node), wire);
        this.node = node;
        this.room = "room-" + (node.hashCode() & 7);
        this.endpoint = "http://127.0.0.1:9/" + node;
    }

    private Resources capacity() {
        return Resources.of(100L * run.options.slotsPerAgent(), 1024L * run.options.slotsPerAgent());
    }

    /**
     * A heartbeat refused (declared lost, or not registered): counted, and the agent registers again
     * with its caps, as the real agent does. A poll refused 409 does the same.
     */
    @Override
    void refused(Post p, granary.protocol.Ack ack) {
        if (!(p.message() instanceof Heartbeat)) {
            return;
        }
        run.heartbeatsRefused.increment();
        if (ack.problems().stream().anyMatch(x -> x.message() != null && x.message().contains(Register.DECLARED_LOST))) {
            run.heartbeatsRefusedLost.increment();
        }
        registerAgain();
    }

    @Override
    void forgotten() {
        if (registered.isDone()) {
            registerAgain();
        }
    }

    private synchronized void registerAgain() {
        if (reRegistering) {
            return;
        }
        reRegistering = true;
        run.reRegistrations.increment();
        List<Cap.Grant> held = new ArrayList<>();
        grants.forEach((u, g) -> held.add(g.withSlots(caps.getOrDefault(u, 0))));
        post(new Register(node, room, Map.of(), capacity(), endpoint, held), ack -> {
            synchronized (this) {
                reRegistering = false;
            }
        });
    }

    void start() {
        WireLoad.Options o = run.options;
        post(new Register(node, room, Map.of(), capacity(), endpoint), ack -> {
            if (ack != null && !ack.isRefusal()) {
                poll();
                long phase = (long) (Math.random() * o.heartbeatMillis());
                run.timer.scheduleAtFixedRate(this::tick, phase, o.heartbeatMillis(), TimeUnit.MILLISECONDS);
                registered.complete(null);
            } else {
                registered.completeExceptionally(new IllegalStateException(node + " was not registered: " + ack));
            }
        });
    }

    @Override
    void resync() {
        List<Cap.Grant> held = new ArrayList<>();
        grants.forEach((u, g) -> held.add(g.withSlots(caps.getOrDefault(u, 0))));
        post(new Register(node, room, Map.of(), capacity(), endpoint, held), ack -> {
            if (ack != null && !ack.isRefusal()) {
                reRegisteredAt = System.currentTimeMillis();
                synchronized (this) {
                    if (before != null && before.isEmpty() && wholeAt < 0) {
                        wholeAt = reRegisteredAt; // it held nothing: nothing to get back
                    }
                }
            } else {
                run.note(node + " was not registered again: " + ack);
            }
        });
    }

    /** How the caps differ from the snapshot now: empty when whole, else {@code unit before→now} for each unit that differs. */
    synchronized String differences() {
        if (before == null) {
            return "";
        }
        java.util.TreeSet<UnitId> units = new java.util.TreeSet<>(java.util.Comparator.comparing(UnitId::toString));
        units.addAll(before.keySet());
        units.addAll(caps.keySet());
        StringBuilder b = new StringBuilder();
        for (UnitId u : units) {
            int was = before.getOrDefault(u, 0), is = caps.getOrDefault(u, 0);
            if (was != is) {
                b.append(b.length() == 0 ? "" : ", ").append(u).append(' ').append(was).append("→").append(is);
            }
        }
        return b.toString();
    }

    /** Remembers the caps held now (before the master is killed). */
    synchronized void snapshot() {
        before = new HashMap<>(caps);
        onlineBefore = online(caps);
        wholeAt = -1;
        reRegisteredAt = -1;
    }

    private int online(Map<UnitId, Integer> of) {
        int n = 0;
        for (Map.Entry<UnitId, Integer> c : of.entrySet()) {
            Cap.Grant g = grants.get(c.getKey());
            if (g != null && g.online()) {
                n += c.getValue();
            }
        }
        return n;
    }

    /** Slots held at the snapshot (0 before it). */
    synchronized int heldBefore() {
        return before == null ? 0 : before.values().stream().mapToInt(Integer::intValue).sum();
    }

    /** Slots held now (sum of caps). */
    synchronized int held() {
        int n = 0;
        for (int c : caps.values()) {
            n += c;
        }
        return n;
    }

    /** Online slots held at the snapshot. */
    synchronized int onlineBefore() {
        return onlineBefore;
    }

    /** Online slots of the snapshot that the agent does not hold now (per unit, never negative). */
    synchronized int onlineLost() {
        if (before == null) {
            return 0;
        }
        int lost = 0;
        for (Map.Entry<UnitId, Integer> b : before.entrySet()) {
            Cap.Grant g = grants.get(b.getKey());
            if (g != null && g.online()) {
                lost += Math.max(0, b.getValue() - caps.getOrDefault(b.getKey(), 0));
            }
        }
        return lost;
    }

    /** The periodic heartbeat: with the exits pending, or empty; skipped while a post is in flight (sent after it). */
    private void tick() {
        synchronized (this) {
            if (posting()) {
                tickDue = true;
                return;
            }
        }
        heartbeat();
    }

    private void heartbeat() {
        synchronized (this) {
            tickDue = false;
            List<Heartbeat.Exit> exits = List.copyOf(pending);
            pending.clear();
            post(new Heartbeat(List.of(), exits, null), null);
        }
    }

    @Override
    synchronized void sending(Post p, long nanos) {
        if (p.message() instanceof Heartbeat h && !h.exited().isEmpty()) {
            unacked.put(p.id(), h.exited());
            unackedCount += h.exited().size();
            for (int i = 0; i < h.exited().size(); i++) {
                freed.add(nanos);
            }
            run.exitsSent.add(h.exited().size());
        }
    }

    @Override
    void answered(Post p, long rttNanos) {
        if (!(p.message() instanceof Heartbeat h)) {
            return;
        }
        run.heartbeatRtt.add(rttNanos / 1000);
        if (!h.exited().isEmpty()) {
            run.exitHeartbeatRtt.add(rttNanos / 1000);
        }
        synchronized (this) {
            List<Heartbeat.Exit> acked = unacked.remove(p.id());
            if (acked != null) {
                unackedCount -= acked.size();
            }
            launch(System.nanoTime(), false);
        }
    }

    @Override
    void idle() {
        boolean send;
        synchronized (this) {
            send = tickDue || (run.options.immediate() && !pending.isEmpty());
        }
        if (send) {
            heartbeat();
        }
    }

    @Override
    void inbox(Envelope e, long nanos) {
        if (!(e.message() instanceof Cap cap)) {
            return;
        }
        run.caps.increment();
        synchronized (this) {
            int total = 0;
            if (cap.full()) {
                caps.clear(); // the whole table, as the real agent takes it: a unit it leaves out is gone
            }
            for (List<Cap.Grant> list : List.of(cap.grants(), cap.withdrawals())) {
                for (Cap.Grant g : list) {
                    int before = caps.getOrDefault(g.unit(), 0);
                    if (g.slots() > before) {
                        run.capIncrease.add(g.slots() - before);
                    }
                    if (g.slots() <= 0) {
                        caps.remove(g.unit());
                    } else {
                        caps.put(g.unit(), g.slots());
                        grants.put(g.unit(), g);
                    }
                }
            }
            if (before != null && wholeAt < 0 && restartSeenAt > 0 && caps.equals(before)) {
                wholeAt = System.currentTimeMillis();
            }
            for (int c : caps.values()) {
                total += c;
            }
            if (total > run.options.slotsPerAgent()) {
                run.overshoot.increment();
            }
            launch(nanos, true);
        }
    }

    /** Starts what the caps allow now. Under the lock. */
    private void launch(long now, boolean onCap) {
        List<Object[]> batch = null;
        for (Map.Entry<UnitId, Integer> c : caps.entrySet()) {
            UnitId unit = c.getKey();
            int busy = running.getOrDefault(unit, 0);
            int held = 0;
            for (List<Heartbeat.Exit> xs : unacked.values()) {
                for (Heartbeat.Exit x : xs) {
                    if (x.unit().equals(unit)) {
                        held++;
                    }
                }
            }
            for (Heartbeat.Exit x : pending) {
                if (x.unit().equals(unit)) {
                    held++;
                }
            }
            int free = c.getValue() - busy - held;
            if (free <= 0) {
                continue;
            }
            for (int i = 0; i < free; i++) {
                // a slot number is one worker's (docs/protocol.md, "Plans"): the master takes an exit
                // of a slot once, and a worker started later takes a new number
                int slot = nextSlot.merge(unit, 1, Integer::sum) - 1;
                busy++;
                if (batch == null) {
                    batch = new ArrayList<>();
                }
                batch.add(new Object[] {unit, slot});
                Long exitSent = freed.poll();
                if (exitSent != null) {
                    run.turnaround.add((now - exitSent) / 1000);
                }
                (onCap ? run.startsOnCap : run.startsOnAck).increment();
            }
            running.put(unit, busy);
        }
        if (batch != null) {
            run.started.add(batch.size());
            List<Object[]> workers = batch;
            if (run.options.workMillis() > 0) {
                run.timer.schedule(() -> finish(workers), run.options.workMillis(), TimeUnit.MILLISECONDS);
            }
        }
    }

    /** Workers ended: their exits are due. */
    private void finish(List<Object[]> workers) {
        boolean now;
        synchronized (this) {
            for (Object[] w : workers) {
                UnitId unit = (UnitId) w[0];
                running.merge(unit, -1, Integer::sum);
                pending.add(new Heartbeat.Exit(unit, (Integer) w[1], 0));
            }
            now = run.options.immediate() && !posting();
        }
        if (now) {
            heartbeat();
        }
    }

    synchronized int running() {
        int n = 0;
        for (int r : running.values()) {
            n += r;
        }
        return n;
    }
}

package granary.conformance;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Random;

/**
 * The in-process network between the peers and the master: every message is a task delivered at a
 * moment of the world's clock, after the base latency and a random extra delay, unless it is
 * dropped, and sometimes twice. A partitioned peer neither sends nor receives. Deterministic for a
 * seed: ties are broken by the order of sending.
 */
final class Wire {

    static final long LATENCY = 5;

    private record Delivery(long at, long order, String peer, Runnable task) {
    }

    private final Random random;
    private final PriorityQueue<Delivery> queue = new PriorityQueue<>(
            (a, b) -> a.at != b.at ? Long.compare(a.at, b.at) : Long.compare(a.order, b.order));
    private final Map<String, Long> partitionedUntil = new HashMap<>();
    private Faults faults = Faults.NONE;
    private long order;
    long sent;
    long dropped;
    long duplicated;

    Wire(long seed) {
        this.random = new Random(seed);
    }

    void faults(Faults f) {
        this.faults = f;
    }

    Faults faults() {
        return faults;
    }

    /** Cuts {@code peer} off until {@code until} (ms of the world's clock). */
    void partition(String peer, long until) {
        partitionedUntil.merge(peer, until, Math::max);
    }

    /** When {@code peer}'s cut ends (0: it is not cut). */
    long cutUntil(String peer) {
        return partitionedUntil.getOrDefault(peer, 0L);
    }

    void heal(String peer) {
        partitionedUntil.remove(peer);
    }

    boolean cut(String peer, long now) {
        Long until = partitionedUntil.get(peer);
        return until != null && now < until;
    }

    /** Sends {@code task} (a message to or from {@code peer}) to run later, subject to the faults. */
    void send(String peer, long now, Runnable task) {
        sent++;
        if (cut(peer, now) || random.nextDouble() < faults.drop()) {
            dropped++;
            return;
        }
        queue.add(new Delivery(now + LATENCY + delay(), order++, peer, task));
        if (random.nextDouble() < faults.duplicate()) {
            duplicated++;
            queue.add(new Delivery(now + LATENCY + delay() + 50, order++, peer, task));
        }
    }

    private long delay() {
        return faults.maxDelay() == 0 ? 0 : (long) (random.nextDouble() * faults.maxDelay());
    }

    /** Runs every delivery due by {@code now}; one to or from a partitioned peer is lost. */
    void deliver(long now) {
        List<Delivery> due = new ArrayList<>();
        while (!queue.isEmpty() && queue.peek().at <= now) {
            due.add(queue.poll());
        }
        for (Delivery d : due) {
            if (cut(d.peer, now)) {
                dropped++;
            } else {
                d.task.run();
            }
        }
    }

    boolean idle() {
        return queue.isEmpty();
    }

    Random random() {
        return random;
    }
}

package granary.conformance;

import java.util.HashMap;
import java.util.Map;
import java.util.Random;

/**
 * The in-process network between the machines of the world: every message is a task delivered at a
 * moment of the world's clock, after the base latency and a random extra delay, unless it is
 * dropped, and sometimes twice. A machine that is cut off neither sends nor receives: a message
 * from or to it is lost when sent and when it would arrive. Deterministic for a seed: ties are
 * broken by the order of sending.
 */
final class Wire {

    static final long LATENCY = 5;

    private final World world;
    private final Random random;
    private final Map<String, Long> partitionedUntil = new HashMap<>();
    private Faults faults = Faults.NONE;
    long sent;
    long dropped;
    long duplicated;

    Wire(World world, long seed) {
        this.world = world;
        this.random = new Random(seed);
    }

    void faults(Faults f) {
        this.faults = f;
    }

    Faults faults() {
        return faults;
    }

    /** Cuts {@code machine} off until {@code until} (ms of the world's clock). */
    void partition(String machine, long until) {
        partitionedUntil.merge(machine, until, Math::max);
    }

    /** When {@code machine}'s cut ends (0: it is not cut). */
    long cutUntil(String machine) {
        return partitionedUntil.getOrDefault(machine, 0L);
    }

    boolean cut(String machine, long now) {
        Long until = partitionedUntil.get(machine);
        return until != null && now < until;
    }

    /** Sends {@code task} (a message between machines {@code from} and {@code to}) to run later, subject to the faults. */
    void send(String from, String to, Runnable task) {
        sent++;
        long now = world.now();
        if (cut(from, now) || cut(to, now) || random.nextDouble() < faults.drop()) {
            dropped++;
            return;
        }
        deliver(from, to, now + LATENCY + delay(), task);
        if (random.nextDouble() < faults.duplicate()) {
            duplicated++;
            deliver(from, to, now + LATENCY + delay() + 50, task);
        }
    }

    private void deliver(String from, String to, long at, Runnable task) {
        world.later(at, () -> {
            long now = world.now();
            if (cut(from, now) || cut(to, now)) {
                dropped++;
            } else {
                task.run();
            }
        });
    }

    private long delay() {
        return faults.maxDelay() == 0 ? 0 : (long) (random.nextDouble() * faults.maxDelay());
    }

    Random random() {
        return random;
    }
}

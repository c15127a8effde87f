package granary.protocol.link;

import granary.api.model.ManualClock;
import java.util.PriorityQueue;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * A {@link Loop} on a manual clock that runs only when told to ({@link #runDue}, {@link #advance}):
 * how tests drive a role step by step. Tasks may be handed over from other threads (a process that
 * ended); they wait until the next {@link #runDue}.
 */
public final class ManualLoop implements Loop {

    private record Timed(long at, long order, Runnable task) {
    }

    private final ManualClock clock;
    private final ConcurrentLinkedQueue<Runnable> ready = new ConcurrentLinkedQueue<>();
    private final PriorityQueue<Timed> timers = new PriorityQueue<>(
            (a, b) -> a.at != b.at ? Long.compare(a.at, b.at) : Long.compare(a.order, b.order));
    private long order;

    public ManualLoop(ManualClock clock) {
        this.clock = clock;
    }

    public ManualClock clock() {
        return clock;
    }

    @Override
    public long now() {
        return clock.millis();
    }

    @Override
    public void execute(Runnable task) {
        ready.add(task);
    }

    @Override
    public synchronized Timer schedule(long delayMillis, Runnable task) {
        Timed t = new Timed(clock.millis() + Math.max(0, delayMillis), order++, task);
        timers.add(t);
        return () -> {
            synchronized (ManualLoop.this) {
                timers.remove(t);
            }
        };
    }

    /** Runs every task due now — handed over, or a timer whose time came — until none is left; returns how many ran. */
    public int runDue() {
        int n = 0;
        while (true) {
            Runnable r = ready.poll();
            if (r == null) {
                synchronized (this) {
                    Timed t = timers.peek();
                    if (t != null && t.at <= clock.millis()) {
                        r = timers.poll().task;
                    }
                }
            }
            if (r == null) {
                return n;
            }
            r.run();
            n++;
        }
    }

    /** Moves the clock on by {@code millis}, in steps of at most {@code step}, running what falls due. */
    public void advance(long millis, long step) {
        long end = clock.millis() + millis;
        runDue();
        while (clock.millis() < end) {
            clock.advance(Math.min(step, end - clock.millis()));
            runDue();
        }
    }
}

package granary.engine.state;

import java.util.IdentityHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;

import granary.api.spi.UnitOrder;

/**
 * A unit order being built off the engine thread (docs/scheduling.md, "Swapping the order off the
 * engine thread"): the snapshot of every group queue, the new heaps built from it, and the units the
 * engine changed meanwhile. {@link #run} is the only part that runs on the build thread; the engine
 * thread reads the result only after {@link #done()} returned true (a volatile read: the build's writes
 * are visible then).
 */
final class OrderBuild implements Runnable {

    final UnitOrder target;
    /** One re-order per group queue (slot queue and gang queue) that existed at the snapshot. */
    final Map<FitQueue, FitQueue.Rebuild> queues = new IdentityHashMap<>();
    /**
     * Every unit queued, dequeued or changed since the snapshot, in the order first touched: taken out
     * before the new heaps are swapped in and re-queued under the new order afterwards. Engine thread.
     */
    final Set<UnitState> touched = new LinkedHashSet<>();
    /** A fault of the new order's policy during the build (first one), handed to the engine at swap-in. */
    volatile RuntimeException fault;
    /** The build itself failed (not the policy): the engine re-orders on its own thread instead. */
    volatile RuntimeException failure;
    private volatile boolean done;
    /** Set on the engine thread when a later swap made this build useless; its result is dropped. */
    volatile boolean cancelled;

    /** A fault of the order was pending when the build started: the build compares by arrival, as the engine would. */
    final boolean faultPending;

    OrderBuild(UnitOrder target, boolean faultPending) {
        this.target = target;
        this.faultPending = faultPending;
    }

    @Override
    public void run() {
        try {
            for (FitQueue.Rebuild r : queues.values()) {
                if (cancelled) {
                    return;
                }
                r.build();
            }
        } catch (RuntimeException e) {
            failure = e;
        } finally {
            done = true;
        }
    }

    boolean done() {
        return done;
    }
}

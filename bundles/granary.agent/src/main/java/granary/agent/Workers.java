package granary.agent;

import granary.api.model.UnitId;
import granary.protocol.Plan;
import granary.protocol.link.Loop;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The workers this agent runs: which run in which slot, which are being stopped, in which order
 * they started (withdrawals stop the newest). Starting and stopping go through the
 * {@link Launcher}; a stopped worker that does not end within the grace period is killed.
 * Confined to the agent's loop.
 */
final class Workers {

    /**
     * One worker: one this agent started, or one a previous life started and this one adopted.
     *
     * @param order when it started relative to the others (larger: newer)
     */
    record Worker(UnitId unit, int slot, Launcher.Record record, Launcher.Running process, long order, boolean adopted) {
        long pid() {
            return process.pid();
        }
    }

    private record Key(UnitId unit, int slot) {
    }

    private final Launcher launcher;
    private final Loop loop;
    private final Duration grace;
    private final Map<Key, Worker> running = new LinkedHashMap<>();
    private final Set<Worker> stopping = new HashSet<>();
    private long started;

    Workers(Launcher launcher, Loop loop, Duration grace) {
        this.launcher = launcher;
        this.loop = loop;
        this.grace = grace;
    }

    Launcher launcher() {
        return launcher;
    }

    /** Starts the launch's process and counts it as running. @throws IOException if it cannot be started */
    Worker start(Plan.Launch l, Launcher.Record r) throws IOException {
        Launcher.Running p = launcher.start(l, r);
        Worker w = new Worker(l.unit(), l.slot(), r, p, ++started, false);
        running.put(new Key(l.unit(), l.slot()), w);
        return w;
    }

    /** Counts a worker a previous life left running as this agent's own. */
    Worker adopt(Launcher.Left left) {
        Launcher.Record r = left.record();
        Worker w = new Worker(r.unit(), r.slot(), r, left.running(), ++started, true);
        running.put(new Key(r.unit(), r.slot()), w);
        return w;
    }

    boolean isRunning(UnitId unit, int slot) {
        return running.containsKey(new Key(unit, slot));
    }

    /** Running workers of {@code unit}, stopping ones included (they still hold their slot until they exit). */
    int running(UnitId unit) {
        int n = 0;
        for (Key k : running.keySet()) {
            if (k.unit().equals(unit)) {
                n++;
            }
        }
        return n;
    }

    int total() {
        return running.size();
    }

    List<Worker> all() {
        return new ArrayList<>(running.values());
    }

    /** Forgets an exited worker. @return true if the agent had stopped it (its exit is reported as STOPPED) */
    boolean exited(Worker w) {
        running.remove(new Key(w.unit(), w.slot()), w);
        return stopping.remove(w);
    }

    boolean stopping(Worker w) {
        return stopping.contains(w);
    }

    /** Stops the newest workers of {@code unit} beyond {@code keep}, those already stopping counted as gone. */
    List<Worker> stopBeyond(UnitId unit, int keep) {
        List<Worker> live = new ArrayList<>();
        for (Worker w : running.values()) {
            if (w.unit().equals(unit) && !stopping.contains(w)) {
                live.add(w);
            }
        }
        live.sort(Comparator.comparingLong(Worker::order));
        List<Worker> stop = new ArrayList<>(live.subList(Math.min(keep, live.size()), live.size()));
        stop.forEach(this::stop);
        return stop;
    }

    /** Stops one worker. */
    void stopOne(Worker w) {
        stop(w);
    }

    /** Stops every worker. */
    List<Worker> stopAll() {
        List<Worker> all = all();
        all.forEach(this::stop);
        return all;
    }

    private void stop(Worker w) {
        if (!stopping.add(w)) {
            return;
        }
        w.process().stop();
        loop.schedule(grace.toMillis(), () -> {
            if (running.get(new Key(w.unit(), w.slot())) == w) {
                w.process().kill();
            }
        });
    }
}

package granary.jobmaster;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The state of N workers of one unit — batch tasks, or the slots of a service: waiting for a slot,
 * running on a node in a slot, succeeded, or failed for good after {@code retries} re-runs.
 * Confined to the job master's loop.
 *
 * <p>Slots: every run of a worker takes a slot number of its own, {@code index + n × run}
 * (run 0, 1, 2, …), never used again for another run: an agent remembers how the worker in a slot
 * ended, and answers a launch of that slot again with it (docs/recovery.md, "Exits that never
 * arrive"). So a job master that is not sure a run happened asks by sending the same launch, and a
 * run again is a new slot.
 */
final class TaskBoard {

    /** What a worker's end means for it. */
    enum Result { SUCCEEDED, RETRY, FAILED, UNKNOWN }

    enum State { WAITING, RUNNING, SUCCEEDED, FAILED }

    /** One worker: its state, the runs it was charged (attempts) and made (runs), where its current run is. */
    record Entry(State state, int attempts, int runs, String node, int slot) {
    }

    private final int n;
    private final int retries;
    private final State[] state;
    private final int[] attempts;
    private final int[] runs;
    private final String[] node;
    private final Deque<Integer> waiting = new ArrayDeque<>();

    TaskBoard(int n, int retries) {
        this.n = n;
        this.retries = retries;
        this.state = new State[n];
        this.attempts = new int[n];
        this.runs = new int[n];
        this.node = new String[n];
        for (int i = 0; i < n; i++) {
            state[i] = State.WAITING;
            waiting.add(i);
        }
    }

    /** A board as a progress file said it was; a worker that was running stays running there (the caller checks). */
    static TaskBoard of(int retries, List<Entry> entries) {
        TaskBoard b = new TaskBoard(entries.size(), retries);
        b.waiting.clear();
        for (int i = 0; i < entries.size(); i++) {
            Entry e = entries.get(i);
            b.state[i] = e.state();
            b.attempts[i] = e.attempts();
            b.runs[i] = e.runs();
            b.node[i] = e.node();
            if (e.state() == State.WAITING) {
                b.waiting.add(i);
            }
        }
        return b;
    }

    List<Entry> entries() {
        List<Entry> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add(new Entry(state[i], attempts[i], runs[i], node[i], state[i] == State.RUNNING ? slot(i) : -1));
        }
        return out;
    }

    /** The next waiting worker, or null. */
    Integer take() {
        return waiting.poll();
    }

    /** A worker from {@link #take} that could not be launched waits again, first in line. */
    void putBack(int i) {
        if (state[i] == State.WAITING && !waiting.contains(i)) {
            waiting.addFirst(i);
        }
    }

    /** Worker {@code i} is launched on {@code where}: a new run, in a new slot; returns the slot. */
    int launch(int i, String where) {
        runs[i]++;
        attempts[i]++;
        state[i] = State.RUNNING;
        node[i] = where;
        waiting.remove(i);
        return slot(i);
    }

    /** The slot of worker {@code i}'s current (last) run. */
    int slot(int i) {
        return i + n * Math.max(0, runs[i] - 1);
    }

    /** The worker whose run had {@code slot}, or -1. */
    int workerOf(int slot) {
        return slot < 0 ? -1 : slot % n;
    }

    /** True if {@code slot} on {@code where} is worker's current run. */
    boolean isCurrent(int slot, String where) {
        int i = workerOf(slot);
        return i >= 0 && i < n && state[i] == State.RUNNING && slot(i) == slot && where.equals(node[i]);
    }

    /** The run in {@code slot} on {@code where} ended with {@code code}. */
    Result ended(int slot, String where, int code) {
        if (!isCurrent(slot, where)) {
            return Result.UNKNOWN;
        }
        int i = workerOf(slot);
        node[i] = null;
        if (code == 0) {
            state[i] = State.SUCCEEDED;
            return Result.SUCCEEDED;
        }
        if (attempts[i] <= retries) {
            state[i] = State.WAITING;
            waiting.add(i);
            return Result.RETRY;
        }
        state[i] = State.FAILED;
        return Result.FAILED;
    }

    /**
     * An earlier run of a worker (not its current one) ended with {@code code}: if it succeeded and
     * the worker has not, the worker is done (a run again was under way, or waiting: it is no longer
     * needed). True if so.
     */
    boolean succeededEarlier(int slot, int code) {
        int i = workerOf(slot);
        if (code != 0 || i < 0 || i >= n || slot / n >= runs[i] || state[i] == State.SUCCEEDED || state[i] == State.FAILED) {
            return false;
        }
        waiting.remove(i);
        state[i] = State.SUCCEEDED;
        node[i] = null;
        return true;
    }

    /**
     * Worker {@code i}'s run ended through no fault of its own (its agent stopped it when its cap
     * went down, its node was declared lost, its exit code is unknown): it waits again, first in
     * line, and the run is not charged as an attempt.
     */
    void lost(int i) {
        if (state[i] == State.RUNNING) {
            attempts[i]--;
            state[i] = State.WAITING;
            node[i] = null;
            waiting.addFirst(i);
        }
    }

    State state(int i) {
        return state[i];
    }

    /** The node worker {@code i} runs on, or null. */
    String nodeOf(int i) {
        return state[i] == State.RUNNING ? node[i] : null;
    }

    /** The running workers, index → node. */
    Map<Integer, String> runningWorkers() {
        Map<Integer, String> out = new TreeMap<>();
        for (int i = 0; i < n; i++) {
            if (state[i] == State.RUNNING) {
                out.put(i, node[i]);
            }
        }
        return out;
    }

    /** Workers running on {@code where}. */
    int runningOn(String where) {
        int c = 0;
        for (int i = 0; i < n; i++) {
            if (state[i] == State.RUNNING && where.equals(node[i])) {
                c++;
            }
        }
        return c;
    }

    int attempts(int i) {
        return attempts[i];
    }

    int waiting() {
        return waiting.size();
    }

    int running() {
        return count(State.RUNNING);
    }

    int succeeded() {
        return count(State.SUCCEEDED);
    }

    List<Integer> failed() {
        List<Integer> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            if (state[i] == State.FAILED) {
                out.add(i);
            }
        }
        return out;
    }

    private int count(State s) {
        int c = 0;
        for (State x : state) {
            if (x == s) {
                c++;
            }
        }
        return c;
    }

    int size() {
        return n;
    }

    /** Workers not finished: waiting or running. */
    int unfinished() {
        return waiting() + running();
    }

    boolean complete() {
        return succeeded() + failed().size() == n;
    }
}

package granary.jobmaster;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The state of N tasks: waiting for a slot, running on a node, succeeded, or failed for good after
 * {@code retries} re-runs. Single-threaded (the job master's event thread).
 */
final class TaskBoard {

    /** What a task's exit means. */
    enum Result { SUCCEEDED, RETRY, FAILED, UNKNOWN }

    private final int tasks;
    private final int retries;
    private final Deque<Integer> waiting = new ArrayDeque<>();
    private final Map<Integer, String> running = new HashMap<>();
    private final int[] attempts;
    private final List<Integer> failed = new ArrayList<>();
    private int succeeded;

    TaskBoard(int tasks, int retries) {
        this.tasks = tasks;
        this.retries = retries;
        this.attempts = new int[tasks];
        for (int i = 0; i < tasks; i++) {
            waiting.add(i);
        }
    }

    /** The next waiting task, or null. */
    Integer take() {
        return waiting.poll();
    }

    /** A task from {@link #take} that could not be launched waits again, first in line. */
    void putBack(int task) {
        waiting.addFirst(task);
    }

    void started(int task, String node) {
        running.put(task, node);
        attempts[task]++;
    }

    /** Task {@code task} ended on {@code node} with {@code code}. */
    Result ended(int task, String node, int code) {
        if (task < 0 || task >= tasks || !node.equals(running.get(task))) {
            return Result.UNKNOWN;
        }
        running.remove(task);
        if (code == 0) {
            succeeded++;
            return Result.SUCCEEDED;
        }
        if (attempts[task] <= retries) {
            waiting.add(task);
            return Result.RETRY;
        }
        failed.add(task);
        return Result.FAILED;
    }

    /**
     * A running task found not running (its exit never reached the job master): it waits again, first
     * in line, and the lost run does not count as an attempt.
     */
    void lost(int task) {
        if (running.remove(task) != null) {
            attempts[task]--;
            waiting.addFirst(task);
        }
    }

    /** The node task {@code task} runs on, or null if it is not running. */
    String nodeOf(int task) {
        return running.get(task);
    }

    /** The running tasks, task → node. */
    Map<Integer, String> runningTasks() {
        return Map.copyOf(running);
    }

    /** Tasks running on {@code node}. */
    int runningOn(String node) {
        return (int) running.values().stream().filter(node::equals).count();
    }

    int attempts(int task) {
        return attempts[task];
    }

    int waiting() {
        return waiting.size();
    }

    int running() {
        return running.size();
    }

    int succeeded() {
        return succeeded;
    }

    List<Integer> failed() {
        return List.copyOf(failed);
    }

    int tasks() {
        return tasks;
    }

    boolean complete() {
        return succeeded + failed.size() == tasks;
    }
}

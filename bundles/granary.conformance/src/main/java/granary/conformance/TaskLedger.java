package granary.conformance;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Predicate;

/**
 * Every run of every batch task in the world, from the node's operating system (not from what any
 * role believes): which task, where, when it started and how it ended. A task started while an
 * earlier run of it still ran or had succeeded ran twice; that is a violation unless something
 * made it unavoidable (the earlier run's node was declared lost, or a disk fault took what its agent
 * knew of it, or its job master keeps no state).
 */
final class TaskLedger {

    /** One run of a task. */
    static final class Run {
        final String job;
        final int task;
        final String node;
        final long pid;
        final long start;
        long end = -1;
        int code;

        Run(String job, int task, String node, long pid, long start) {
            this.job = job;
            this.task = task;
            this.node = node;
            this.pid = pid;
            this.start = start;
        }

        @Override
        public String toString() {
            return "pid " + pid + " on " + node + " from t=" + (start - World.T0) + "ms" + (end < 0 ? " (running)"
                    : " to t=" + (end - World.T0) + "ms, code " + code);
        }
    }

    private final World world;
    private final Map<String, List<Run>> runs = new TreeMap<>();
    private final Map<Long, Run> byPid = new TreeMap<>();
    long started;
    long twice;

    TaskLedger(World world) {
        this.world = world;
    }

    void started(SimOs.Proc p) {
        String job = p.env.get("GRANARY_JOB");
        String task = p.env.get("GRANARY_TASK");
        if (job == null || task == null || p.record.online() || !p.record.unit().unit().equals("tasks")) {
            return;
        }
        Run r = new Run(job, Integer.parseInt(task), p.node(), p.pid, world.now());
        List<Run> before = runs.computeIfAbsent(job + "/" + task, k -> new ArrayList<>());
        started++;
        for (Run b : before) {
            if ((b.end < 0 || b.code == 0) && !excused(b)) {
                twice++;
                world.violation("task " + r.task + " of job " + job + " ran twice: again on " + r.node + " (pid " + r.pid
                        + ") while an earlier run " + (b.end < 0 ? "still ran" : "had succeeded") + ": " + b);
                break;
            }
        }
        before.add(r);
        byPid.put(p.pid, r);
    }

    void ended(SimOs.Proc p, int code) {
        Run r = byPid.get(p.pid);
        if (r != null) {
            r.end = world.now();
            r.code = code;
        }
    }

    private boolean excused(Run b) {
        return world.nodeWasLost(b.node, b.start) || world.node(b.node).damaged || !world.keepsState(b.job);
    }

    /** Runs of {@code job}'s tasks matching {@code p}. */
    List<Run> runs(String job, Predicate<Run> p) {
        List<Run> out = new ArrayList<>();
        runs.forEach((k, list) -> list.stream().filter(r -> r.job.equals(job) && p.test(r)).forEach(out::add));
        return out;
    }

    /** Tasks of {@code job} with a run that succeeded. */
    long succeeded(String job) {
        return runs.entrySet().stream().filter(e -> e.getKey().startsWith(job + "/"))
                .filter(e -> e.getValue().stream().anyMatch(r -> r.end >= 0 && r.code == 0)).count();
    }
}

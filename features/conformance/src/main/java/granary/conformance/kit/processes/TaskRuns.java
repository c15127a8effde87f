package granary.conformance.kit.processes;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Every run of every batch task of a real-process scenario, as the tasks wrote it themselves: the
 * task command ({@link #command}) appends a {@code start} line to {@code runs/<task>} (its node, its
 * wrapper's pid, its own pid, the time) and, once its work is done, an {@code end} line. The real-process
 * counterpart of the simulated kit's {@code TaskLedger} (bundle granary.conformance), with the same
 * rule: a task started again while an earlier run still ran, or after one succeeded, ran twice —
 * unless that earlier run's node was declared lost after it started. A run its agent stopped
 * (SIGTERM: {@code stopping unit=... pid=<its wrapper>} in the agent's log) ended without success
 * and may run again.
 */
public final class TaskRuns {

    /** One run of a task; {@code end} is -1 if it wrote no end line (stopped, killed, or still running). */
    public record Run(int task, String node, long wrapperPid, long pid, long start, long end) {

        boolean succeeded() {
            return end >= 0;
        }

        @Override
        public String toString() {
            return "pid " + pid + " on " + node + (end >= 0 ? " (" + (end - start) + " ms, finished)" : " (no end line)");
        }
    }

    private static final Pattern START = Pattern.compile("(?m)^start (\\S+) (\\d+) (\\d+) (\\d+)$");
    private static final Pattern END = Pattern.compile("(?m)^end (\\d+) (\\d+)$");
    /** An agent's line for a worker it stops: {@code stopping unit=fo/tasks slot=3 pid=4711 ...}. */
    private static final Pattern STOPPING = Pattern.compile("(?m)^stopping unit=\\S+ slot=\\d+ pid=(\\d+)");

    private final Map<Integer, List<Run>> runs;

    TaskRuns(Map<Integer, List<Run>> runs) {
        this.runs = runs;
    }

    /**
     * The shell command of a task that takes {@code seconds} and writes its start and end to
     * {@code <dir>/runs/<GRANARY_TASK>} (the sample job master runs it with {@code /bin/sh -c}; the
     * agent's wrapper is its parent). The directory must exist.
     */
    public static String command(Path dir, int seconds) {
        String file = "'" + dir.toAbsolutePath().resolve("runs") + "'/$GRANARY_TASK";
        return "echo \"start $GRANARY_NODE $PPID $$ $(date +%s%3N)\" >> " + file + "; sleep " + seconds
                + "; echo \"end $$ $(date +%s%3N)\" >> " + file;
    }

    /** The runs written under {@code <dir>/runs}. */
    public static TaskRuns read(Path dir) {
        Map<Integer, List<Run>> out = new TreeMap<>();
        Path runDir = dir.resolve("runs");
        if (!Files.isDirectory(runDir)) {
            return new TaskRuns(out);
        }
        try (Stream<Path> files = Files.list(runDir)) {
            for (Path f : files.toList()) {
                int task = Integer.parseInt(f.getFileName().toString());
                out.put(task, parse(task, Files.readString(f)));
            }
        } catch (IOException | NumberFormatException ex) {
            throw new ProcessFailure("cannot read the tasks' run files in " + runDir + ": " + ex.getMessage());
        }
        return new TaskRuns(out);
    }

    /** The runs one task's file holds, in the order they started. */
    static List<Run> parse(int task, String text) {
        Map<Long, Long> ends = new TreeMap<>();
        Matcher e = END.matcher(text);
        while (e.find()) {
            ends.put(Long.parseLong(e.group(1)), Long.parseLong(e.group(2)));
        }
        List<Run> list = new ArrayList<>();
        Matcher s = START.matcher(text);
        while (s.find()) {
            long pid = Long.parseLong(s.group(3));
            list.add(new Run(task, s.group(1), Long.parseLong(s.group(2)), pid, Long.parseLong(s.group(4)), ends.getOrDefault(pid, -1L)));
        }
        list.sort(Comparator.comparingLong(Run::start));
        return list;
    }

    /** The wrapper pids of workers an agent stopped, from the agents' logs ({@code stopping unit=... pid=N}). */
    public static Set<Long> stoppedByAgents(List<String> agentLogs) {
        Set<Long> out = new java.util.TreeSet<>();
        for (String log : agentLogs) {
            Matcher m = STOPPING.matcher(log);
            while (m.find()) {
                out.add(Long.parseLong(m.group(1)));
            }
        }
        return out;
    }

    public Map<Integer, List<Run>> runs() {
        return runs;
    }

    /** How many runs were started in all. */
    public int started() {
        return runs.values().stream().mapToInt(List::size).sum();
    }

    /**
     * What went wrong with a batch of {@code tasks} tasks: a task without a finished run, a run that
     * ended unfinished without its agent stopping it, a task that ran twice.
     *
     * @param stopped  wrapper pids of workers their agent stopped
     * @param lostNode for a node declared lost, the time (ms since the epoch) before which its runs are
     *                 excused: the scenario saw it registered again after that
     */
    public List<String> violations(int tasks, Set<Long> stopped, Map<String, Long> lostNode) {
        List<String> out = new ArrayList<>();
        for (int t = 0; t < tasks; t++) {
            List<Run> list = runs.getOrDefault(t, List.of());
            if (list.stream().noneMatch(Run::succeeded)) {
                out.add("task " + t + " never finished a run: " + list);
            }
            for (int i = 0; i < list.size(); i++) {
                Run r = list.get(i);
                if (!r.succeeded() && !stopped.contains(r.wrapperPid()) && !excused(r, lostNode)) {
                    out.add("task " + t + ": run " + r + " ended without finishing, and no agent stopped it");
                }
                for (Run b : list.subList(0, i)) {
                    // an unfinished earlier run is either stopped (may run again) or reported above
                    if (b.succeeded() && !excused(b, lostNode)) {
                        out.add("task " + t + " ran twice: again on " + r.node() + " (pid " + r.pid() + ") "
                                + (b.succeeded() && b.end() <= r.start() ? "after an earlier run had finished: "
                                : "while an earlier run still ran: ") + b);
                        break;
                    }
                }
            }
        }
        return out;
    }

    private static boolean excused(Run b, Map<String, Long> lostNode) {
        Long until = lostNode.get(b.node());
        return until != null && b.start() < until;
    }
}

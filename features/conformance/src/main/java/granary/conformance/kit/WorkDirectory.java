package granary.conformance.kit;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import granary.conformance.kit.processes.Cluster;
import granary.conformance.kit.processes.WorkerScan;

/**
 * Where a {@code --processes} run's processes work and log (docs/recovery.md, "Real processes"), and
 * what is left of it after the run. {@code --work-dir DIR} is the operator's: kept. Without it the
 * kit makes a temporary one, {@code granary-conformance-<pid>-*} in {@code java.io.tmpdir}, and
 * leaves nothing there:
 * <ul>
 * <li>a run whose rows all held deletes it;</li>
 * <li>a run with a failed row keeps its logs, renamed {@code granary-conformance-failed-*}, and says
 *     where (each row's own cluster has already deleted what was no log);</li>
 * <li>a run stopped by a signal (Ctrl-C, SIGTERM) kills the processes it started, and the workers of
 *     their agents, by PID and deletes it in a shutdown hook;</li>
 * <li>a run killed with -9 cannot: the next run, before it makes its own, kills what such a run left
 *     running and deletes every {@code granary-conformance-<pid>-*} whose process no longer runs.</li>
 * </ul>
 */
final class WorkDirectory {

    static final String PREFIX = "granary-conformance-";
    /** A temporary directory of a run that was under way: its process's pid, then the random part. */
    private static final Pattern RUNNING = Pattern.compile(Pattern.quote(PREFIX) + "(\\d{1,10})-.+");

    private final Path dir;
    private final boolean temporary;
    private final Thread hook;
    /** What stops the rows when the run is stopped: their clusters closed, none started after. */
    private volatile Runnable stopRows = () -> { };

    private WorkDirectory(Path dir, boolean temporary) {
        this.dir = dir.toAbsolutePath().normalize();
        this.temporary = temporary;
        this.hook = new Thread(this::stopped, "granary-conformance clean-up");
        Runtime.getRuntime().addShutdownHook(hook);
    }

    /** {@code given}, created; or, if null, a new temporary directory after the leftovers of dead runs are deleted. */
    static WorkDirectory open(Path given) throws IOException {
        if (given != null) {
            return new WorkDirectory(Files.createDirectories(given), false);
        }
        Path tmp = Files.createDirectories(Path.of(System.getProperty("java.io.tmpdir")));
        removeLeftOvers(tmp);
        return new WorkDirectory(Files.createTempDirectory(tmp, PREFIX + ProcessHandle.current().pid() + "-"), true);
    }

    Path path() {
        return dir;
    }

    /** What the shutdown hook runs first if the run is stopped before its end (the rows' {@code stop}). */
    void onStop(Runnable stop) {
        this.stopRows = stop;
    }

    /**
     * The run has ended and every row closed its cluster: a temporary directory is deleted if every row
     * held, else kept under a name the next run leaves alone.
     *
     * @return where the logs are now; null if they were deleted
     */
    Path finish(boolean held) throws IOException {
        removeHook();
        if (!temporary) {
            return dir;
        }
        if (held) {
            Cluster.deleteTree(dir);
            return null;
        }
        Path kept = dir.resolveSibling(PREFIX + "failed-" + dir.getFileName().toString().substring(PREFIX.length()));
        return Files.move(dir, kept);
    }

    private void removeHook() {
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException shuttingDown) {
            // the hook runs, or has run, already
        }
    }

    /** The shutdown hook of a run stopped before its end: its processes killed by PID, a temporary directory deleted. */
    private void stopped() {
        stopRows.run();
        // and whatever else the kit started
        ProcessHandle.current().descendants().forEach(ProcessHandle::destroyForcibly);
        try {
            // workers no longer below the kit: orphans of an agent the row killed
            for (WorkerScan.Worker w : WorkerScan.scan(dir)) {
                ProcessHandle.of(w.pid()).ifPresent(ProcessHandle::destroyForcibly);
            }
        } catch (RuntimeException noProc) {
            // no /proc: nothing more to find
        }
        if (temporary) {
            // the killed processes may still hold files open for a moment: wait for them, bounded
            ProcessHandle.current().descendants().forEach(h -> h.onExit().orTimeout(5, java.util.concurrent.TimeUnit.SECONDS)
                    .exceptionally(t -> h).join());
            Cluster.deleteTree(dir);
        }
    }

    /**
     * Kills by PID what a run killed with -9 left running in {@code dir}: the processes it started
     * (their {@code java.io.tmpdir} is a row's directory in it) and the workers of their agents.
     */
    private static void killProcessesOf(Path dir) {
        String tmpdir = "-Djava.io.tmpdir=" + dir + "/";
        ProcessHandle.allProcesses()
                .filter(h -> h.info().arguments().map(a -> java.util.Arrays.stream(a).anyMatch(x -> x.startsWith(tmpdir))).orElse(false))
                .forEach(ProcessHandle::destroyForcibly);
        try {
            WorkerScan.scan(dir).forEach(w -> ProcessHandle.of(w.pid()).ifPresent(ProcessHandle::destroyForcibly));
        } catch (RuntimeException noProc) {
            // no /proc: nothing more to find
        }
    }

    /** Deletes the {@code granary-conformance-<pid>-*} directories in {@code dir} whose process is gone; returns how many. */
    static int removeLeftOvers(Path dir) throws IOException {
        int removed = 0;
        try (Stream<Path> entries = Files.list(dir)) {
            for (Path p : entries.toList()) {
                Matcher m = RUNNING.matcher(p.getFileName().toString());
                if (m.matches() && Files.isDirectory(p) && !Cluster.alive(Long.parseLong(m.group(1)))) {
                    killProcessesOf(p);
                    Cluster.deleteTree(p);
                    removed++;
                }
            }
        }
        return removed;
    }
}

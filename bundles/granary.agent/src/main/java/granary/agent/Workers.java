package granary.agent;

import granary.api.model.UnitId;
import granary.protocol.Plan;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The worker processes this agent runs: starts them as the plan says (no shell), knows which run,
 * and stops them (destroy, then destroyForcibly after the grace period). Not thread-safe:
 * {@link Node} guards it.
 *
 * <p>A worker gets the plan's environment plus {@code GRANARY_NODE}, {@code GRANARY_UNIT} and
 * {@code GRANARY_SLOT}; it starts in the plan's working directory if that is an absolute path of an
 * existing directory, else in {@code <work-dir>/workers/<job>/<unit>/<slot>} (created); its
 * stdout and stderr are appended to {@code <work-dir>/logs/<job>.<unit>.<slot>.out} and {@code .err}.
 */
final class Workers {

    /** Exit code reported for a worker the agent stopped (a withdrawal, or the agent's own exit). */
    static final int STOPPED = -15;
    /** Exit code reported for a launch whose process could not be started. */
    static final int NOT_STARTED = -1;
    /**
     * Exit code reported for a worker that ended while no agent watched it, or one adopted from a
     * previous life of the agent: the operating system tells its exit code to its parent only.
     */
    static final int EXIT_UNKNOWN = -2;

    /** What {@link #adoptOrphans} found: the workers adopted, and the exits of those that ended meanwhile. */
    record Orphans(List<Worker> adopted, List<granary.protocol.Heartbeat.Exit> ended) {
    }

    private record Key(UnitId unit, int slot) {
    }

    private final Path workDir;
    /**
     * One small file per running worker ({@code <job>.<unit>.<slot>.worker}: unit, slot, pid, start
     * time), written when it starts and removed when it ends, so that a restarted agent finds the
     * workers its previous life left behind. Not forced to disk: only a machine crash loses such a
     * write, and that ends the workers too.
     */
    private final Path runDir;
    private final String node;
    private final ScheduledExecutorService timer;
    private final Duration grace;
    private final Map<Key, Worker> running = new LinkedHashMap<>();
    private final Set<Worker> stopping = new HashSet<>();
    private long started;

    Workers(Path workDir, String node, ScheduledExecutorService timer, Duration grace) {
        this.workDir = workDir;
        this.runDir = workDir.resolve("run");
        this.node = node;
        this.timer = timer;
        this.grace = grace;
    }

    /** Starts the launch's process and counts it as running. @throws IOException if it cannot be started */
    Worker start(Plan.Launch l) throws IOException {
        ProcessBuilder pb = new ProcessBuilder(l.command());
        pb.environment().putAll(l.environment());
        pb.environment().put("GRANARY_NODE", node);
        pb.environment().put("GRANARY_UNIT", l.unit().toString());
        pb.environment().put("GRANARY_SLOT", Integer.toString(l.slot()));
        pb.directory(directory(l));
        Path logs = Files.createDirectories(workDir.resolve("logs"));
        String base = safe(l.unit().job()) + "." + safe(l.unit().unit()) + "." + l.slot();
        pb.redirectOutput(ProcessBuilder.Redirect.appendTo(logs.resolve(base + ".out").toFile()));
        pb.redirectError(ProcessBuilder.Redirect.appendTo(logs.resolve(base + ".err").toFile()));
        Process p = pb.start();
        p.getOutputStream().close(); // a worker reads no input from the agent: it sees end of file at once
        Worker w = new Worker(l.unit(), l.slot(), p, ++started);
        running.put(new Key(l.unit(), l.slot()), w);
        remember(w);
        return w;
    }

    private Path runFile(UnitId unit, int slot) {
        return runDir.resolve(safe(unit.job()) + "." + safe(unit.unit()) + "." + slot + ".worker");
    }

    /** Writes the worker's run file (a temporary file renamed over it: never half written). */
    private void remember(Worker w) {
        try {
            Files.createDirectories(runDir);
            Path f = runFile(w.unit(), w.slot());
            Path tmp = f.resolveSibling(f.getFileName() + ".tmp");
            Files.writeString(tmp, "unit=" + w.unit() + "\nslot=" + w.slot() + "\npid=" + w.pid() + "\nstart="
                    + startMillis(w.handle()) + "\n");
            Files.move(tmp, f, java.nio.file.StandardCopyOption.REPLACE_EXISTING, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException ex) {
            // the worker runs all the same; only a restart of this agent would not find it
        }
    }

    private static long startMillis(ProcessHandle h) {
        return h.info().startInstant().map(java.time.Instant::toEpochMilli).orElse(-1L);
    }

    /**
     * Reads the run files a previous life of this agent left: a worker whose process still runs (the
     * same pid and start time: not a pid used again) is adopted; one that is gone is reported ended
     * with {@link #EXIT_UNKNOWN}; its file is removed. A file that does not read is removed.
     */
    Orphans adoptOrphans() {
        List<Worker> adopted = new ArrayList<>();
        List<granary.protocol.Heartbeat.Exit> ended = new ArrayList<>();
        if (!Files.isDirectory(runDir)) {
            return new Orphans(adopted, ended);
        }
        List<Path> files;
        try (java.util.stream.Stream<Path> list = Files.list(runDir)) {
            files = list.filter(f -> f.getFileName().toString().endsWith(".worker")).sorted().toList();
        } catch (IOException ex) {
            return new Orphans(adopted, ended);
        }
        for (Path f : files) {
            Map<String, String> v = new java.util.HashMap<>();
            try {
                for (String line : Files.readAllLines(f)) {
                    int eq = line.indexOf('=');
                    if (eq > 0) {
                        v.put(line.substring(0, eq), line.substring(eq + 1));
                    }
                }
                UnitId unit = UnitId.parse(v.get("unit"));
                int slot = Integer.parseInt(v.get("slot"));
                long pid = Long.parseLong(v.get("pid"));
                long start = Long.parseLong(v.get("start"));
                java.util.Optional<ProcessHandle> h = ProcessHandle.of(pid)
                        .filter(ProcessHandle::isAlive).filter(x -> start < 0 || startMillis(x) == start);
                if (h.isPresent() && !isRunning(unit, slot)) {
                    Worker w = new Worker(unit, slot, h.get(), null, ++started);
                    running.put(new Key(unit, slot), w);
                    adopted.add(w);
                    continue;   // its file stays: it describes a running worker
                }
                ended.add(new granary.protocol.Heartbeat.Exit(unit, slot, EXIT_UNKNOWN));
            } catch (IOException | RuntimeException ex) {
                // unreadable: nothing to adopt or report
            }
            try {
                Files.deleteIfExists(f);
            } catch (IOException ex) {
                // left for the next start to read again
            }
        }
        return new Orphans(adopted, ended);
    }

    private File directory(Plan.Launch l) throws IOException {
        Path asked = l.workingDirectory().isEmpty() ? null : Path.of(l.workingDirectory());
        if (asked != null && asked.isAbsolute() && Files.isDirectory(asked)) {
            return asked.toFile();
        }
        return Files.createDirectories(workDir.resolve("workers").resolve(safe(l.unit().job()))
                .resolve(safe(l.unit().unit())).resolve(Integer.toString(l.slot()))).toFile();
    }

    /** A name made safe as one path element: separators and leading dots replaced. */
    static String safe(String name) {
        String s = name.replaceAll("[^A-Za-z0-9._=+-]", "_");
        return s.startsWith(".") ? "_" + s.substring(1) : s;
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

    /** Forgets an exited worker. @return true if the agent had stopped it (its exit is reported as {@link #STOPPED}) */
    boolean exited(Worker w) {
        if (running.remove(new Key(w.unit(), w.slot()), w)) {
            try {
                Files.deleteIfExists(runFile(w.unit(), w.slot()));
            } catch (IOException ex) {
                // a stale file: the next start finds its process gone and reports it ended
            }
        }
        return stopping.remove(w);
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
        w.destroy();
        timer.schedule(() -> {
            if (w.isAlive()) {
                w.destroyForcibly();
            }
        }, grace.toMillis(), TimeUnit.MILLISECONDS);
    }
}

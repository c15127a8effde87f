package granary.conformance.kit.processes;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Real processes of a cluster on loopback (docs/recovery.md, "Real processes"): the master (a
 * runnable jar of features/standalone), agents and job masters (the jars of features/agent and
 * features/jobmaster). Output goes to files in its directory; every process and its children are
 * killed by PID in {@link #close()}, and so is every worker of its agents still running then (found
 * in {@code /proc}: {@link WorkerScan}). Used by the conformance kit's {@code --processes} and by the
 * integration tests of features/standalone. Every wait is bounded; a failure is a {@link ProcessFailure}.
 *
 * <p>The processes write nothing outside the directory: their {@code java.io.tmpdir} is the
 * directory, and their JVMs keep no performance-data file (HotSpot writes it to
 * {@code /tmp/hsperfdata_<user>/<pid>} whatever the temporary directory, and a kill -9 leaves it). What
 * they leave there that is no log — a killed runtime's work directory ({@code granary-<pid>-*}, its
 * framework storage, some 32 MB), JLine's native library — {@link #close()} deletes.
 */
public final class Cluster implements AutoCloseable {

    /** How long one step (the master listening, a console answer, a process exiting) may take. */
    public static final Duration TIMEOUT = Duration.ofSeconds(60);

    /** A started process with its output files. */
    public record Proc(String name, Process process, Path out, Path err) {
        public String stdout() {
            return read(out);
        }

        public String stderr() {
            return read(err);
        }

        private static String read(Path p) {
            try {
                return Files.readString(p);
            } catch (IOException ex) {
                return "(" + ex + ")";
            }
        }

        /** Waits for it to exit, at most {@code timeout}; fails with its output if it does not. */
        public int exit(Duration timeout) throws InterruptedException {
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new ProcessFailure(name + " did not exit within " + timeout + "\n--- stdout ---\n" + stdout() + "\n--- stderr ---\n" + stderr());
            }
            return process.exitValue();
        }

        @Override
        public String toString() {
            return name + "\n--- stdout ---\n" + stdout() + "\n--- stderr ---\n" + stderr();
        }
    }

    /** The agent's jar as features/standalone's tests find it (their working directory is that module). */
    public static final Path AGENT_JAR = Path.of("../agent/target/granary-agent.jar");
    /** The sample job master's jar, likewise. */
    public static final Path JOB_MASTER_JAR = Path.of("../jobmaster/target/granary-jobmaster.jar");

    private final Path dir;
    private final Path agentJar;
    private final Path jobMasterJar;
    private final List<Proc> started = new ArrayList<>();
    /** Processes no longer below a started one (e.g. workers of an agent killed with -9), killed by PID in close. */
    private final List<Long> alsoKill = new ArrayList<>();
    private OutputStream masterConsole;
    private Proc master;
    private String url;
    private Thread watch;
    /** Per node, the most workers of the watched job seen running at once, and which. */
    private final Map<String, List<WorkerScan.Worker>> busiest = new TreeMap<>();
    private final List<String> leftBehind = new ArrayList<>();
    /** Set when {@link #close()} begins: no process starts after it (a shutdown hook may close from another thread). */
    private volatile boolean closed;

    /** A cluster whose agents and job masters are started from the jars where features/standalone's tests find them. */
    public Cluster(Path dir) {
        this(dir, AGENT_JAR, JOB_MASTER_JAR);
    }

    public Cluster(Path dir, Path agentJar, Path jobMasterJar) {
        this.dir = dir.toAbsolutePath().normalize();   // the processes start in it: their paths must not be relative to it
        this.agentJar = agentJar;
        this.jobMasterJar = jobMasterJar;
    }

    public Path dir() {
        return dir;
    }

    /** The master started last. */
    public Proc master() {
        return master;
    }

    /** The URL the master started last listens on. */
    public String url() {
        return url;
    }

    /** Starts the master on a free loopback port and waits until it listens. */
    public Cluster startMaster(Path jar, String... extra) throws IOException, InterruptedException {
        return startMaster("127.0.0.1:0", jar, extra);
    }

    /**
     * Starts a master again on the port of the one before (killed first by the caller), with the same
     * secret file, and waits until it listens; the console commands then go to the new one.
     */
    public Cluster restartMaster(Path jar, String... extra) throws IOException, InterruptedException {
        String before = url;
        startMaster(before.substring(before.lastIndexOf('/') + 1), jar, extra);
        if (!url.equals(before)) {
            throw new ProcessFailure("the master came back on " + url + ", not on " + before);
        }
        return this;
    }

    private Cluster startMaster(String listen, Path jar, String... extra) throws IOException, InterruptedException {
        List<String> args = new ArrayList<>(List.of("--demo=false", "--piped", "--listen=" + listen,
                "--secret=" + dir.resolve("granary.secret")));
        // an HTTPS master (--keystore) prints an https:// URL, matched below like an http:// one
        args.addAll(List.of(extra));
        master = start("master", jar, args);
        masterConsole = master.process().getOutputStream();
        Pattern listening = Pattern.compile("listening on (https?://127\\.0\\.0\\.1:\\d+)");
        long end = System.nanoTime() + TIMEOUT.toNanos();
        while (System.nanoTime() < end) {
            Matcher m = listening.matcher(master.stderr());
            if (m.find()) {
                url = m.group(1);
                return this;
            }
            if (!master.process().isAlive()) {
                throw new ProcessFailure("the master exited with " + master.process().exitValue() + ": " + master);
            }
            Thread.sleep(100);   // a child process: polled, with a deadline
        }
        throw new ProcessFailure("the master did not listen within " + TIMEOUT + ": " + master);
    }

    /**
     * Runs a console command on the master (its piped standard input), again every second, until
     * {@code expect} shows in what it printed since; returns that output.
     */
    public String console(String command, String expect) throws IOException, InterruptedException {
        int before = master.stdout().length();
        long end = System.nanoTime() + TIMEOUT.toNanos();
        long next = 0;
        while (System.nanoTime() < end) {
            if (System.nanoTime() >= next) {
                masterConsole.write((command + "\n").getBytes(StandardCharsets.UTF_8));
                masterConsole.flush();
                next = System.nanoTime() + 1_000_000_000L;
            }
            String out = master.stdout();
            if (out.length() > before && out.substring(before).contains(expect)) {
                return out.substring(before);
            }
            Thread.sleep(100);   // a child process: polled, with a deadline
        }
        throw new ProcessFailure("'" + command + "' did not print '" + expect + "': " + master);
    }

    /** Writes the token of {@code identity} (e.g. {@code agent/n1}) to a file, from the master's secret. */
    public Path token(String identity) throws IOException {
        granary.protocol.link.Tokens tokens = granary.protocol.link.Tokens.fromFile(dir.resolve("granary.secret"));
        Path file = dir.resolve(identity.replace('/', '-') + ".token");
        Files.writeString(file, tokens.issue(granary.protocol.link.Tokens.parseIdentity(identity)) + "\n");
        return file;
    }

    public Proc agent(String node, String capacity, Path tokenFile, String... extra) throws IOException {
        return agent(List.of(), node, capacity, tokenFile, extra);
    }

    /** An agent whose JVM gets {@code jvm} options first (e.g. the trust store for an HTTPS master). */
    public Proc agent(List<String> jvm, String node, String capacity, Path tokenFile, String... extra) throws IOException {
        List<String> args = new ArrayList<>(List.of("--master=" + url, "--node=" + node, "--room=r1",
                "--capacity=" + capacity, "--token-file=" + tokenFile, "--work-dir=" + dir.resolve(node),
                "--work-roots=" + dir, // the rows' workers run in the cluster's directory (job masters' --workdir)
                "--allow-root-workers")); // as the harness's user, root or not: they write the run logs it reads (docs/agent.md, "Users")
        args.addAll(List.of(extra));
        return start("agent " + node, agentJar, jvm, args);
    }

    /** Kills {@code pid} too in {@link #close()} (a process that is no longer a descendant of a started one). */
    public void alsoKill(long pid) {
        alsoKill.add(pid);
    }

    public Proc jobMaster(String job, int tasks, String command, Path tokenFile, String... extra) throws IOException {
        return jobMaster(List.of(), job, tasks, command, tokenFile, extra);
    }

    /** A job master whose JVM gets {@code jvm} options first (e.g. the trust store for HTTPS agents). */
    public Proc jobMaster(List<String> jvm, String job, int tasks, String command, Path tokenFile, String... extra) throws IOException {
        List<String> args = new ArrayList<>(List.of("--master=" + url, "--token-file=" + tokenFile, "--job=" + job,
                "--tasks=" + tasks, "--slot=cpu=100,mem=256", "--command=" + command));
        args.addAll(List.of(extra));
        return start("job master " + job, jobMasterJar, jvm, args);
    }

    public Proc start(String name, Path jar, List<String> args) throws IOException {
        return start(name, jar, List.of(), args);
    }

    public synchronized Proc start(String name, Path jar, List<String> jvm, List<String> args) throws IOException {
        if (closed) {
            throw new ProcessFailure(name + " not started: the cluster is closed (the run was stopped)");
        }
        if (!Files.isRegularFile(jar)) {
            throw new ProcessFailure(jar + " missing: run 'mvn package' from the root, which builds it (or name it: java -jar granary-conformance.jar --help)");
        }
        String java = ProcessHandle.current().info().command().orElse(
                Path.of(System.getProperty("java.home"), "bin", "java").toString());
        List<String> command = new ArrayList<>(List.of(java, "-Xmx256m", "-XX:-UsePerfData", "-Djava.io.tmpdir=" + dir));
        command.addAll(jvm);
        command.addAll(List.of("-jar", jar.toAbsolutePath().toString()));
        command.addAll(args);
        String file = name.replace(' ', '-');
        for (int n = 2; Files.exists(dir.resolve(file + ".out")); n++) {
            file = name.replace(' ', '-') + "-" + n; // a process started again (same name) gets its own files
        }
        Path out = dir.resolve(file + ".out");
        Path err = dir.resolve(file + ".err");
        Process p = new ProcessBuilder(command).directory(dir.toFile()).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        Proc proc = new Proc(name, p, out, err);
        started.add(proc);
        return proc;
    }

    /** The standard output of every agent process started, in the order they started. */
    public List<String> agentLogs() {
        return started.stream().filter(p -> p.name().startsWith("agent ")).map(Proc::stdout).toList();
    }

    /** The workers of this cluster's agents running now, as the OS lists them. */
    public List<WorkerScan.Worker> workers() {
        return WorkerScan.scan(dir);
    }

    /**
     * Samples the workers of {@code job} four times a second until {@link #close()}, keeping for each
     * node the most seen running at once ({@link #busiest()}): a node never runs more than its slots.
     */
    public void watchWorkers(String job) {
        watch = new Thread(() -> {
            while (!Thread.currentThread().isInterrupted()) {
                Map<String, List<WorkerScan.Worker>> now = new TreeMap<>();
                List<WorkerScan.Worker> all;
                try {
                    all = workers();
                } catch (ProcessFailure ex) {
                    return;   // no /proc to read: nothing to watch
                }
                for (WorkerScan.Worker w : all) {
                    List<WorkerScan.Worker> on = now.computeIfAbsent(w.node(), n -> new ArrayList<>());
                    // one per slot: a worker's wrapper, command and its children share its environment
                    if (w.job().equals(job) && on.stream().noneMatch(o -> o.unit().equals(w.unit()) && o.slot() == w.slot())) {
                        on.add(w);
                    }
                }
                synchronized (busiest) {
                    now.forEach((node, ws) -> busiest.merge(node, ws, (a, b) -> b.size() > a.size() ? b : a));
                }
                try {
                    Thread.sleep(250);   // other processes' state: nothing to be notified by
                } catch (InterruptedException ex) {
                    return;
                }
            }
        }, "granary-conformance workers of " + job);
        watch.setDaemon(true);
        watch.start();
    }

    /** Per node, the most workers of the watched job seen running at once (one per slot). */
    public Map<String, List<WorkerScan.Worker>> busiest() {
        synchronized (busiest) {
            return new TreeMap<>(busiest);
        }
    }

    /** Processes still running after {@link #close()} killed them: none, or a line each. */
    public List<String> leftBehind() {
        return List.copyOf(leftBehind);
    }

    /**
     * Kills every process started here and their children, and every worker of its agents, by PID;
     * none starts after. May be called again, and from another thread (the kit's shutdown hook).
     */
    @Override
    public synchronized void close() {
        closed = true;
        if (watch != null) {
            watch.interrupt();
        }
        for (Proc p : started) {
            p.process().descendants().forEach(ProcessHandle::destroyForcibly);
            p.process().destroyForcibly();
        }
        for (long pid : alsoKill) {
            ProcessHandle.of(pid).ifPresent(h -> {
                h.descendants().forEach(ProcessHandle::destroyForcibly);
                h.destroyForcibly();
            });
        }
        // workers no longer below a started process: orphans of a killed agent, a job master an agent started
        try {
            for (WorkerScan.Worker w : workers()) {
                ProcessHandle.of(w.pid()).ifPresent(ProcessHandle::destroyForcibly);
            }
        } catch (ProcessFailure ex) {
            leftBehind.add("workers not looked for: " + ex.getMessage());
        }
        for (Proc p : started) {
            try {
                if (!p.process().waitFor(10, TimeUnit.SECONDS)) {
                    leftBehind.add(p.name() + " (pid " + p.process().pid() + ") still runs after kill -9");
                }
            } catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
        }
        try {
            await("every worker gone after kill -9", () -> workers().isEmpty(), this::workers, Duration.ofSeconds(10));
        } catch (ProcessFailure ex) {
            leftBehind.add(ex.getMessage());
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
        removeTemporaryFiles(dir);
    }

    /** A runtime's work directory, {@code granary-<pid>-*} (features/standalone's Main names it so). */
    private static final Pattern RUNTIME_WORK_DIR = Pattern.compile("granary-(\\d{1,10})-.+");

    /**
     * Deletes what the processes left in {@code dir} that is no log: the work directories of runtimes
     * no longer running (a clean stop deletes its own; a kill -9 cannot) and JLine's native library.
     */
    static void removeTemporaryFiles(Path dir) {
        try (java.util.stream.Stream<Path> entries = Files.list(dir)) {
            for (Path p : entries.toList()) {
                String name = p.getFileName().toString();
                Matcher m = RUNTIME_WORK_DIR.matcher(name);
                if (m.matches() && Files.isDirectory(p) && !alive(Long.parseLong(m.group(1))) || name.startsWith("jlinenative-")) {
                    deleteTree(p);
                }
            }
        } catch (IOException | RuntimeException ex) {
            // best effort: what stays is in the cluster's own directory
        }
    }

    /** Deletes a directory tree (or a file), best effort. */
    public static void deleteTree(Path root) {
        if (!Files.exists(root, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        try (java.util.stream.Stream<Path> files = Files.walk(root)) {
            files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException | RuntimeException ex) {
            // best effort
        }
    }

    // ---- waiting and signalling, shared by the scenarios --------------------------------------

    /** Polls {@code done} (other processes' state: nothing to be notified by) until it holds or {@code timeout} passes. */
    public static void await(String what, BooleanSupplier done, Supplier<?> state, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!done.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new ProcessFailure("not within " + timeout.toSeconds() + " s: " + what + "; last state: " + state.get());
            }
            Thread.sleep(50);
        }
    }

    /** Sends SIGSTOP, SIGCONT, ... to {@code pid} with kill(1), waiting at most 10 s for it. */
    public static void signal(String name, long pid) throws IOException, InterruptedException {
        Process k = new ProcessBuilder("kill", "-" + name, Long.toString(pid)).inheritIO().start();
        if (!k.waitFor(10, TimeUnit.SECONDS)) {
            k.destroyForcibly();
            throw new ProcessFailure("kill -" + name + " " + pid + " did not return within 10 s");
        }
        if (k.exitValue() != 0) {
            throw new ProcessFailure("kill -" + name + " " + pid + " exited with " + k.exitValue());
        }
    }

    /** SIGKILL, and waits (at most 30 s) until the process is gone. */
    public static void kill9(ProcessHandle h) throws InterruptedException {
        h.destroyForcibly();   // SIGKILL on Unix
        await("pid " + h.pid() + " gone after kill -9", () -> !h.isAlive(), () -> h, Duration.ofSeconds(30));
    }

    public static boolean alive(long pid) {
        return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
    }
}

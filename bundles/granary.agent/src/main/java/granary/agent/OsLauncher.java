package granary.agent;

import granary.api.model.Resources;
import granary.api.model.UnitId;
import granary.protocol.Heartbeat;
import granary.protocol.Plan;
import granary.protocol.disk.Disk;
import granary.protocol.disk.FileDisk;
import granary.protocol.link.Loop;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.IntConsumer;

/**
 * Workers as operating system processes (docs/recovery.md, "Exits that never arrive").
 *
 * <p>A worker runs the plan's command (no shell of the job master's choosing) under a small
 * {@code /bin/sh} wrapper that waits for it and writes its exit code to
 * {@code <work-dir>/run/<job>.<unit>.<slot>.exit} before it ends itself — as YARN's container
 * launcher does — so that a worker that ends while its agent is dead (killed, restarting) still
 * has its code known: the next agent reports it instead of "unknown", and its job master need not
 * run it again. The wrapper passes SIGTERM on to the worker. Without {@code /bin/sh} the command
 * runs bare, and such an end is reported {@link Heartbeat#EXIT_UNKNOWN}.
 *
 * <p>Each worker has a run record, {@code <job>.<unit>.<slot>.worker}: unit, slot, the job master,
 * its key, the slot's size, online or not, the wrapper's pid and start time. A restarted agent reads
 * them: a worker whose process still runs (same pid <em>and</em> start time, so not a pid used
 * again) is adopted; one that ended is reported with the code its wrapper wrote. The record stays
 * after the master acknowledged the worker's end, marked by a {@code .reported} file, for as long as the
 * agent remembers ended slots ({@link #forget}).
 *
 * <p>Stopping stops the process tree: the worker's descendants and the wrapper. It first leaves a
 * {@code .stopped} mark (an empty file: being there is what it says), so that an agent restarted
 * before the end reached a master reports it as a stop, not as the 143 the wrapper wrote.
 *
 * <p>A worker gets the plan's environment plus {@code GRANARY_NODE}, {@code GRANARY_UNIT} and
 * {@code GRANARY_SLOT}; it starts in the plan's working directory if that is an absolute path of an
 * existing directory, else in {@code <work-dir>/workers/<job>/<unit>/<slot>} (created); its
 * stdout and stderr are appended to {@code <work-dir>/logs/<job>.<unit>.<slot>.out} and {@code .err}.
 *
 * <p>With isolation (docs/agent.md, "Isolation") each worker has a cgroup of its own, which the
 * wrapper joins before it starts the worker, so that everything the worker starts is in it, double
 * forks included: its limits (hard isolation) hold the whole tree, its counters say what the tree
 * used, a stop signals every process in it, and when the worker ends whatever it left is killed and
 * the group removed. The run record names the group, so that a restarted agent knows the whole tree
 * of a worker it adopts. Without isolation the tree is the wrapper's descendants, as before.
 *
 * <p>As root, a worker runs as its user (docs/agent.md, "Users") through {@code setpriv}; the
 * wrapper stays the agent's, so that its exit file is written whatever the worker does.
 */
final class OsLauncher implements Launcher {

    private static final String SHELL = "/bin/sh";
    /**
     * Waits for the worker, passes SIGTERM on, writes its exit code where {@code GRANARY_EXIT_FILE}
     * says. A stop that comes between the worker's start and the wrapper learning its PID is
     * remembered and passed on then (else the worker ran on, its end unreported, until it ended).
     *
     * <p>The worker's process starts as a copy of the wrapper, with the wrapper's trap, until the
     * shell clears it and execs the command: a SIGTERM that reaches it before the trap is cleared
     * is taken by the trap and lost with the exec (a worker stopped as it started then ran on, one
     * NodeTest run in twenty under load). So once the trap is cleared, and before the exec, it looks
     * for the stop's mark ({@code .stopped} beside the exit file), which a stop leaves before it
     * signals: a stop whose signal came too early has left its mark by then, and one whose mark
     * came later signals a process that has no trap any more.
     */
    static final String WRAPPER = "trap 't=1; [ -n \"$c\" ] && kill -TERM \"$c\" 2>/dev/null' TERM INT HUP\n"
            + "for f in $GRANARY_CGROUP_PROCS; do echo $$ > \"$f\" || { echo \"granary: cannot join the worker's cgroup $f\" >&2; exit 125; }; done\n"
            + "unset GRANARY_CGROUP_PROCS\n"
            + "{ [ -e \"${GRANARY_EXIT_FILE%.exit}.stopped\" ] && exit 143; exec \"$@\"; } &\n"
            + "c=$!\n"
            + "[ -n \"$t\" ] && kill -TERM \"$c\" 2>/dev/null\n"
            + "while :; do wait \"$c\"; s=$?; kill -0 \"$c\" 2>/dev/null || break; done\n"
            // a wait cut short by the trap says 143 though the worker may have ended on its own just then
            // (the shell reaped it meanwhile): asked again, the shell gives the worker's own status
            + "wait \"$c\" 2>/dev/null; r=$?; [ \"$r\" -ne 127 ] && s=$r\n"
            + "printf '%s\\n' \"$s\" > \"$GRANARY_EXIT_FILE.tmp\" && mv -f \"$GRANARY_EXIT_FILE.tmp\" \"$GRANARY_EXIT_FILE\"\n"
            + "exit \"$s\"\n";

    /** The wrapper's {@code $0}: with the script, what tells a wrapper among the node's processes. */
    private static final String WRAPPER_NAME = "granary-worker";

    private final Path workDir;
    private final Path runDir;
    private final Disk records;
    private final String node;
    private final Loop loop;
    private final boolean wrap;
    private final WorkerPolicy policy;
    /** The workers' cgroups; null with isolation off. */
    private final Cgroups cgroups;
    private final boolean enforce;
    /** The users workers ran as: name to uid and gid. */
    private final Map<String, long[]> users = new HashMap<>();

    OsLauncher(Path workDir, String node, Loop loop) {
        this(workDir, node, loop, WorkerPolicy.EMBEDDED, null, false);
    }

    /**
     * @param cgroups the workers' cgroups, or null with isolation off
     * @param enforce whether their slots' sizes are written as limits (hard isolation)
     */
    OsLauncher(Path workDir, String node, Loop loop, WorkerPolicy policy, Cgroups cgroups, boolean enforce) {
        this.workDir = workDir;
        this.runDir = workDir.resolve("run");
        this.records = new FileDisk(runDir);
        this.node = node;
        this.loop = loop;
        this.wrap = Files.isExecutable(Path.of(SHELL));
        this.policy = policy;
        this.cgroups = cgroups;
        this.enforce = enforce;
    }

    /** The name of the agent's parent cgroup: the node's name and a tag of its work dir (two agents of one name in tests). */
    static String parentGroup(String node, Path workDir) {
        return "granary-" + safe(node) + "-" + Integer.toHexString(workDir.toAbsolutePath().normalize().toString().hashCode());
    }

    /** The user a worker of {@code l} runs as: the one its plan names, else the agent's configured one; null: the agent's own. */
    String userOf(Plan.Launch l) {
        String asked = l.environment().get(Confinement.USER_VARIABLE);
        return asked != null && !asked.isEmpty() ? asked : policy.user();
    }

    @Override
    public Running start(Plan.Launch l, Record r) throws IOException {
        String base = base(l.unit(), l.slot());
        Path exitFile = runDir.resolve(base + ".exit");
        Files.createDirectories(runDir);
        Files.deleteIfExists(exitFile);
        records.delete(base + ".stopped"); // a stop of an earlier worker of this slot is not this one's
        List<String> command = new ArrayList<>();
        if (wrap) {
            command.addAll(List.of(SHELL, "-c", WRAPPER, WRAPPER_NAME));
            command.add(executable(l.command().isEmpty() ? "" : l.command().get(0), l.environment()));
            command.addAll(l.command().subList(1, l.command().size()));
        } else {
            command.addAll(l.command());
        }
        String user = userOf(l);
        long[] ids = user == null ? null : ids(user);
        if (ids != null && ids[0] == 0 && !policy.allowRoot()) {
            throw new PlanFault("workers may not run as root on node " + node + " (user " + user + "; an operator allows it"
                    + " with the agent's --allow-root-workers)");
        }
        boolean switchUser = ids != null && ids[0] != selfUid();
        if (switchUser) {
            if (selfUid() != 0) {
                throw new IOException("cannot run the worker as user " + user + ": the agent runs as uid " + selfUid()
                        + ", and only root may start processes as another user");
            }
            command.addAll(wrap ? 4 : 0, List.of(SETPRIV, "--reuid=" + ids[0], "--regid=" + ids[1], "--init-groups", "--"));
        }
        ProcessBuilder pb = new ProcessBuilder(command);
        pb.environment().putAll(l.environment());
        pb.environment().put("GRANARY_NODE", node);
        pb.environment().put("GRANARY_UNIT", l.unit().toString());
        pb.environment().put("GRANARY_SLOT", Integer.toString(l.slot()));
        pb.environment().put("GRANARY_EXIT_FILE", exitFile.toString());
        if (switchUser) {
            pb.environment().put("USER", user);
            pb.environment().put("LOGNAME", user);
        }
        File dir = directory(l);
        Path logs = Files.createDirectories(workDir.resolve("logs"));
        Path out = logs.resolve(base + ".out");
        Path err = logs.resolve(base + ".err");
        pb.directory(dir);
        pb.redirectOutput(ProcessBuilder.Redirect.appendTo(out.toFile()));
        pb.redirectError(ProcessBuilder.Redirect.appendTo(err.toFile()));
        if (switchUser) {
            if (!Files.exists(out)) {
                Files.createFile(out);
            }
            if (!Files.exists(err)) {
                Files.createFile(err);
            }
            own(out, ids);
            own(err, ids);
            if (dir.toPath().startsWith(workDir.resolve("workers"))) {
                own(dir.toPath(), ids); // its own directory; one a plan names is the operator's, left as it is
            }
        }
        Cgroups.Group group = null;
        if (cgroups != null) {
            if (!wrap) {
                throw new IOException("isolation needs " + SHELL + " to put the worker in its cgroup");
            }
            group = cgroups.create(base, r.size().cpu(), r.size().memMb(), enforce);
            pb.environment().put("GRANARY_CGROUP_PROCS", group.procsFiles());
        }
        Process p;
        try {
            p = pb.start();
        } catch (IOException | RuntimeException ex) {
            if (group != null) {
                group.clear();
            }
            throw ex;
        }
        p.getOutputStream().close(); // a worker reads no input from the agent: it sees end of file at once
        remember(r, p.toHandle(), group);
        return new Os(p.toHandle(), p, base, exitFile, group);
    }

    private static final String SETPRIV = "setpriv";

    /** The uid and gid of {@code user} (a name, or a number), asked of the system once. */
    private long[] ids(String user) throws IOException {
        long[] known = users.get(user);
        if (known != null) {
            return known;
        }
        long[] ids = {idOf(user, "-u"), idOf(user, "-g")};
        users.put(user, ids);
        return ids;
    }

    private static long idOf(String user, String which) throws IOException {
        Process p = new ProcessBuilder("id", which, user).redirectErrorStream(true).start();
        p.getOutputStream().close();
        try {
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            if (!p.waitFor(10, java.util.concurrent.TimeUnit.SECONDS) || p.exitValue() != 0) {
                p.destroyForcibly();
                throw new PlanFault("no user " + user + " on this node (" + out + ")");
            }
            return Long.parseLong(out);
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while looking up user " + user, ex);
        } catch (NumberFormatException ex) {
            throw new PlanFault("no user " + user + " on this node");
        }
    }

    /** Whether {@code user} is known on this node. */
    static boolean userExists(String user) {
        try {
            idOf(user, "-u");
            return true;
        } catch (IOException ex) {
            return false;
        }
    }

    /** The uid the agent runs as; -1 where the system does not say (not Linux). */
    static long selfUid() {
        try {
            return ((Number) Files.getAttribute(Path.of("/proc/self"), "unix:uid")).longValue();
        } catch (IOException | RuntimeException ex) {
            return -1; // not Linux: no switching of users
        }
    }

    private static void own(Path p, long[] ids) throws IOException {
        Files.setAttribute(p, "unix:uid", (int) ids[0]);
        Files.setAttribute(p, "unix:gid", (int) ids[1]);
    }

    /**
     * The program as ProcessBuilder would find it, checked now: the wrapper would report a missing
     * one as exit 127, where a launch that cannot start is {@link Heartbeat#NOT_STARTED}.
     */
    private static String executable(String program, Map<String, String> env) throws IOException {
        if (program.isEmpty()) {
            throw new PlanFault("the command is empty");
        }
        if (program.contains("/")) {
            if (!Files.isExecutable(Path.of(program))) {
                throw new PlanFault("Cannot run program \"" + program + "\": not an executable file");
            }
            return program;
        }
        String path = env.getOrDefault("PATH", System.getenv().getOrDefault("PATH", "/usr/bin:/bin"));
        for (String dir : path.split(File.pathSeparator)) {
            if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, program))) {
                return program;
            }
        }
        throw new PlanFault("Cannot run program \"" + program + "\": not found on PATH " + path);
    }

    /** Writes the worker's run record (a temporary file renamed over it: never half written; not forced: a machine crash ends the worker too). */
    private void remember(Record r, ProcessHandle h, Cgroups.Group group) {
        String body = "unit=" + r.unit() + "\nslot=" + r.slot() + "\njobMaster=" + r.jobMaster() + "\nkey=" + r.key()
                + "\nsize=" + r.size() + "\nonline=" + r.online() + "\npid=" + h.pid()
                + "\nstart=" + startMillis(h) + "\n" + (group == null ? "" : "cgroup=" + group.recorded() + "\n");
        try {
            records.replace(base(r.unit(), r.slot()) + ".worker", body.getBytes(StandardCharsets.UTF_8), false);
        } catch (IOException ex) {
            // the worker runs all the same; only a restart of this agent would not find it
        }
    }

    private static long startMillis(ProcessHandle h) {
        return h.info().startInstant().map(Instant::toEpochMilli).orElse(-1L);
    }

    @Override
    public List<Left> left(Consumer<String> problems) {
        List<Left> out = new ArrayList<>();
        List<String> names;
        try {
            names = records.list(".worker");
        } catch (IOException ex) {
            problems.accept("cannot list " + runDir + ": " + ex.getMessage());
            return out;
        }
        for (String name : names) {
            Map<String, String> v = new HashMap<>();
            try {
                byte[] b = records.read(name);
                for (String line : new String(b == null ? new byte[0] : b, StandardCharsets.UTF_8).split("\n")) {
                    int eq = line.indexOf('=');
                    if (eq > 0) {
                        v.put(line.substring(0, eq), line.substring(eq + 1));
                    }
                }
                Record r = new Record(UnitId.parse(v.get("unit")), Integer.parseInt(v.get("slot")), v.get("jobMaster"),
                        v.get("key"), Resources.parse(v.getOrDefault("size", "cpu=0,mem=0")),
                        Boolean.parseBoolean(v.get("online")));
                if (r.jobMaster() == null || r.key() == null) {
                    throw new IllegalArgumentException("no jobMaster or key (written by an older agent)");
                }
                long pid = Long.parseLong(v.get("pid"));
                long start = Long.parseLong(v.get("start"));
                String base = base(r.unit(), r.slot());
                Path exitFile = runDir.resolve(base + ".exit");
                // The exit file is the wrapper's last act (written whole, then it exits; a launch deletes an old
                // one first): once it is there the worker has ended, even if the wrapper has not quite gone yet.
                Optional<ProcessHandle> h = Files.exists(exitFile) ? Optional.empty()
                        : ProcessHandle.of(pid).filter(ProcessHandle::isAlive).filter(x -> start < 0 || startMillis(x) == start);
                byte[] reported = h.isPresent() ? null : records.read(base + ".reported");
                boolean stopped = stopped(base);
                Cgroups.Group group = Cgroups.Group.of(v.get("cgroup"));
                if (h.isEmpty() && group != null) {
                    group.clear(); // its worker ended while no agent watched: what it left goes now
                }
                out.add(h.isPresent() ? new Left(r, new Os(h.get(), null, base, exitFile, group), 0, false, stopped)
                        : reported != null ? new Left(r, null, reportedCode(reported, exitFile), true, stopped)
                        : new Left(r, null, recorded(exitFile), false, stopped));
            } catch (IOException | RuntimeException ex) {
                problems.accept("run record " + records.where(name) + " does not read (" + ex.getMessage() + "): dropped");
                try {
                    records.delete(name);
                } catch (IOException gone) {
                    // left for the next start to report again
                }
            }
        }
        out.addAll(unrecorded(out, problems));
        return out;
    }

    /**
     * Workers of this agent that run without a run record (it was lost with the disk, or never
     * written: a kill between the start and the record): found among the node's processes by the
     * exit file their environment names, which lies in this agent's run directory. Their record
     * names no job master: the agent reports them and the master decides (docs/recovery.md,
     * "Workers without a cap"). Only where {@code /proc} lists processes.
     *
     * <p>Every process of a worker's tree shares its environment, so one exit file stands for one
     * worker, however many processes name it: its wrapper (known by its command line), or, with the
     * wrapper gone, the oldest of its topmost processes. A process a worker left behind (a double
     * fork, now a child of init) is part of that worker, never a second one; and processes whose exit
     * file belongs to a recorded worker are that worker's.
     */
    private List<Left> unrecorded(List<Left> recorded, Consumer<String> problems) {
        Path proc = Path.of("/proc");
        if (!Files.isDirectory(proc)) {
            return List.of();
        }
        java.util.Set<String> recordedExitFiles = new java.util.HashSet<>();
        recorded.forEach(l -> recordedExitFiles.add(runDir.resolve(base(l.record().unit(), l.record().slot()) + ".exit").toString()));
        String prefix = "GRANARY_EXIT_FILE=" + runDir + java.io.File.separator;
        Map<Long, Map<String, String>> ours = new HashMap<>();
        try (java.util.stream.Stream<Path> pids = Files.list(proc)) {
            pids.filter(p -> p.getFileName().toString().chars().allMatch(Character::isDigit)).forEach(p -> {
                Map<String, String> env = environ(p.resolve("environ"), prefix);
                if (env != null) {
                    ours.put(Long.parseLong(p.getFileName().toString()), env);
                }
            });
        } catch (IOException | RuntimeException ex) {
            problems.accept("cannot list the node's processes in /proc (" + ex.getMessage() + "): workers without a run record are not found");
            return List.of();
        }
        // the topmost processes of each worker (parent not one of ours: a wrapper, or what escaped its tree)
        Map<String, List<ProcessHandle>> byExitFile = new java.util.TreeMap<>();
        ours.forEach((pid, env) -> {
            String exitFile = env.get("GRANARY_EXIT_FILE");
            Optional<ProcessHandle> h = ProcessHandle.of(pid).filter(ProcessHandle::isAlive);
            boolean child = h.flatMap(ProcessHandle::parent).map(pp -> ours.containsKey(pp.pid())).orElse(false);
            if (exitFile != null && h.isPresent() && !child && !recordedExitFiles.contains(exitFile)) {
                byExitFile.computeIfAbsent(exitFile, f -> new ArrayList<>()).add(h.get());
            }
        });
        List<Left> out = new ArrayList<>();
        byExitFile.forEach((exitFile, tops) -> {
            // a wrapper that wrote its exit file has ended its worker and is on its way out: that end is
            // a worker's whose record went with it, not a worker still running
            if (Files.exists(Path.of(exitFile))) {
                return;
            }
            ProcessHandle top = tops.stream().filter(OsLauncher::isWrapper).findFirst()
                    .orElseGet(() -> tops.stream().min(java.util.Comparator.comparingLong(OsLauncher::startMillis)
                            .thenComparingLong(ProcessHandle::pid)).orElseThrow());
            Map<String, String> env = ours.get(top.pid());
            try {
                Record r = new Record(UnitId.parse(env.get("GRANARY_UNIT")), Integer.parseInt(env.get("GRANARY_SLOT")), "", "",
                        Resources.ZERO, false);
                String base = base(r.unit(), r.slot());
                // its cgroup, if it has one, from the files its wrapper joined it through
                String procs = env.getOrDefault("GRANARY_CGROUP_PROCS", "");
                Cgroups.Group group = Cgroups.Group.of(String.join("|", java.util.Arrays.stream(procs.split(" "))
                        .filter(f -> !f.isEmpty()).map(f -> String.valueOf(Path.of(f).getParent())).toList()));
                out.add(new Left(r, new Os(top, null, base, Path.of(exitFile), group), 0, false, stopped(base)));
            } catch (RuntimeException ex) {
                // not a worker this agent could have started: left alone
            }
        });
        return out;
    }

    /** Whether {@code h} is a worker's wrapper: {@code /bin/sh -c WRAPPER granary-worker ...}. */
    private static boolean isWrapper(ProcessHandle h) {
        try {
            String[] args = new String(Files.readAllBytes(Path.of("/proc", Long.toString(h.pid()), "cmdline")), StandardCharsets.UTF_8)
                    .split("\0", 5);
            return args.length >= 4 && args[1].equals("-c") && args[2].equals(WRAPPER) && args[3].equals(WRAPPER_NAME);
        } catch (IOException | RuntimeException ex) {
            return false; // gone, or not readable
        }
    }

    /** The GRANARY_ variables of a process whose exit file variable starts with {@code prefix}; null for any other (or unreadable). */
    private static Map<String, String> environ(Path file, String prefix) {
        byte[] b;
        try {
            b = Files.readAllBytes(file);
        } catch (IOException | RuntimeException ex) {
            return null; // another user's, or gone
        }
        Map<String, String> env = new HashMap<>();
        boolean ours = false;
        for (String kv : new String(b, StandardCharsets.UTF_8).split("\0")) {
            if (kv.startsWith("GRANARY_")) {
                int eq = kv.indexOf('=');
                if (eq > 0) {
                    env.put(kv.substring(0, eq), kv.substring(eq + 1));
                }
                ours |= kv.startsWith(prefix);
            }
        }
        return ours ? env : null;
    }

    /** Whether an agent stopped the worker of {@code base} (its {@code .stopped} mark is there, whole or torn). */
    private boolean stopped(String base) {
        try {
            return records.read(base + ".stopped") != null;
        } catch (IOException ex) {
            return false;
        }
    }

    /** The code a {@code .reported} mark says the master was told; an empty mark (an older agent): the wrapper's. */
    private static int reportedCode(byte[] mark, Path exitFile) {
        try {
            return Integer.parseInt(new String(mark, StandardCharsets.UTF_8).trim());
        } catch (NumberFormatException ex) {
            return recorded(exitFile);
        }
    }

    /** The code a wrapper wrote, or {@link Heartbeat#EXIT_UNKNOWN}. */
    private static int recorded(Path exitFile) {
        try {
            return Integer.parseInt(Files.readString(exitFile).trim());
        } catch (IOException | NumberFormatException ex) {
            return Heartbeat.EXIT_UNKNOWN;
        }
    }

    @Override
    public void reported(UnitId unit, int slot, int code) {
        try {
            records.replace(base(unit, slot) + ".reported", (code + "\n").getBytes(StandardCharsets.UTF_8), false);
        } catch (IOException ex) {
            // a restarted agent reports the end once more: the master takes an exit it knows once
        }
    }

    @Override
    public void forget(UnitId unit, int slot) {
        String base = base(unit, slot);
        try {
            records.delete(base + ".worker");
            records.delete(base + ".exit");
            records.delete(base + ".reported");
            records.delete(base + ".stopped");
        } catch (IOException ex) {
            // a stale record: the next start finds its process gone and reports it ended again
        }
    }

    private static long mib(long bytes) {
        return (bytes + (1 << 20) - 1) >> 20;
    }

    /**
     * The node's processes as the last {@link #machine} read them (isolation off: workers' usage
     * comes from their trees in it). Read on the loop only.
     */
    private ProcStat.Snapshot procs = ProcStat.Snapshot.EMPTY;

    @Override
    public Sample machine() {
        // each heartbeat asks for the machine first, then for each worker: one walk of /proc serves them all
        procs = cgroups == null ? ProcStat.snapshot() : ProcStat.Snapshot.EMPTY;
        return ProcStat.machine();
    }

    @Override
    public String selfCheck() {
        for (String d : List.of("logs", "run", "workers")) {
            Path dir = workDir.resolve(d);
            try {
                Files.createDirectories(dir);
                Path probe = Files.createTempFile(dir, ".health", ".probe");
                Files.delete(probe);
            } catch (IOException | RuntimeException ex) {
                return "cannot write in " + dir + " (" + (ex.getMessage() == null ? ex.getClass().getSimpleName() : ex.getMessage()) + ")";
            }
        }
        return null;
    }

    @Override
    public void healthCheck(List<String> command, java.time.Duration timeout, Consumer<String> verdict) {
        Process p;
        try {
            p = new ProcessBuilder(command).directory(workDir.toFile()).redirectErrorStream(true).start();
            p.getOutputStream().close();
        } catch (IOException | RuntimeException ex) {
            verdict.accept("the health command " + command + " cannot be started (" + ex.getMessage() + ")");
            return;
        }
        Thread reader = new Thread(() -> {
            String v;
            long began = System.nanoTime();
            try {
                // bounded: what it prints beyond 64 KiB is not read, and the wait ends at the timeout
                byte[] out = p.getInputStream().readNBytes(64 * 1024);
                boolean ended = p.waitFor(timeout.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
                v = ended && System.nanoTime() - began < timeout.toNanos()
                        ? HealthVerdict.of(p.exitValue(), new String(out, StandardCharsets.UTF_8))
                        : "the health command did not finish within " + timeout.toMillis() + "ms";
            } catch (IOException | InterruptedException ex) {
                v = "the health command's output could not be read (" + ex.getMessage() + ")";
            } finally {
                p.descendants().forEach(ProcessHandle::destroyForcibly);
                p.destroyForcibly();
            }
            String said = v;
            loop.execute(() -> verdict.accept(said));
        }, "granary-agent health check");
        reader.setDaemon(true);
        reader.start();
        // the reader blocks on the output until the command ends: a command that hangs is killed at its timeout
        loop.schedule(timeout.toMillis(), () -> {
            if (p.isAlive()) {
                p.descendants().forEach(ProcessHandle::destroyForcibly);
                p.destroyForcibly();
            }
        });
    }

    @Override
    public void close() {
        if (cgroups != null) {
            cgroups.close();
        }
    }

    private File directory(Plan.Launch l) throws IOException {
        Path asked = l.workingDirectory().isEmpty() ? null : Path.of(l.workingDirectory());
        if (asked != null && asked.isAbsolute() && Files.isDirectory(asked)) {
            return asked.toFile();
        }
        return Files.createDirectories(workDir.resolve("workers").resolve(safe(l.unit().job()))
                .resolve(safe(l.unit().unit())).resolve(Integer.toString(l.slot()))).toFile();
    }

    private static String base(UnitId unit, int slot) {
        return safe(unit.job()) + "." + safe(unit.unit()) + "." + slot;
    }

    /** A name made safe as one path element: separators and leading dots replaced. */
    static String safe(String name) {
        String s = name.replaceAll("[^A-Za-z0-9._=+-]", "_");
        return s.startsWith(".") ? "_" + s.substring(1) : s;
    }

    /** A worker process: one this agent started ({@code process} set: its code can be read), or one it adopted. */
    private final class Os implements Running {
        private final ProcessHandle handle;
        private final Process process;
        private final String base;
        private final Path exitFile;
        /** Its cgroup; null with isolation off. */
        private final Cgroups.Group group;
        /** Set on the thread that saw the end, before the end is handed to the loop. */
        private volatile Heartbeat.Oom oom;

        Os(ProcessHandle handle, Process process, String base, Path exitFile, Cgroups.Group group) {
            this.handle = handle;
            this.process = process;
            this.base = base;
            this.exitFile = exitFile;
            this.group = group;
        }

        @Override
        public long pid() {
            return handle.pid();
        }

        @Override
        public void onExit(IntConsumer exited) {
            (process != null ? process.onExit() : handle.onExit()).whenComplete((p, failure) -> {
                if (group != null) {
                    // the worker's tree ends with it: what it left (a double fork) is killed, the group goes
                    if (group.oomKills() > 0) {
                        long limit = group.limitBytes();
                        oom = new Heartbeat.Oom(limit < 0 ? 0 : mib(limit), mib(Math.max(0, group.peakBytes())));
                    }
                    group.clear();
                }
                loop.execute(() -> exited.accept(code()));
            });
        }

        /** The code the wrapper wrote; else the process's own (a child's); else unknown. */
        private int code() {
            int written = recorded(exitFile);
            if (written != Heartbeat.EXIT_UNKNOWN || process == null) {
                return written;
            }
            return process.exitValue();
        }

        @Override
        public void stop() {
            try {
                records.replace(base + ".stopped", new byte[0], false);
            } catch (IOException ex) {
                // the worker stops all the same; only a restart of this agent before its end is reported would miss it
            }
            handle.descendants().forEach(ProcessHandle::destroy);
            handle.destroy();
            if (group != null) {
                group.signal(false); // what left the tree (a double fork) is still in the group
            }
        }

        @Override
        public boolean alive() {
            return handle.isAlive();
        }

        @Override
        public void kill() {
            handle.descendants().forEach(ProcessHandle::destroyForcibly);
            handle.destroyForcibly();
            if (group != null) {
                group.signal(true);
            }
        }

        @Override
        public Heartbeat.Oom oom() {
            return oom;
        }

        @Override
        public Sample sample() {
            if (group != null) {
                long cpu = group.cpuNanos();
                long mem = group.memBytes();
                return cpu < 0 || mem < 0 ? null : new Sample(cpu, mem);
            }
            if (!handle.isAlive()) {
                return null;
            }
            long[] sum = ProcStat.tree(procs, handle.pid());
            return new Sample(sum[0], sum[1]);
        }
    }
}

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
 */
final class OsLauncher implements Launcher {

    private static final String SHELL = "/bin/sh";
    /**
     * Waits for the worker, passes SIGTERM on, writes its exit code where {@code GRANARY_EXIT_FILE}
     * says. A stop that comes between the worker's start and the wrapper learning its PID is
     * remembered and passed on then (else the worker ran on, its end unreported, until it ended).
     */
    static final String WRAPPER = "trap 't=1; [ -n \"$c\" ] && kill -TERM \"$c\" 2>/dev/null' TERM INT HUP\n"
            + "\"$@\" &\n"
            + "c=$!\n"
            + "[ -n \"$t\" ] && kill -TERM \"$c\" 2>/dev/null\n"
            + "while :; do wait \"$c\"; s=$?; kill -0 \"$c\" 2>/dev/null || break; done\n"
            + "printf '%s\\n' \"$s\" > \"$GRANARY_EXIT_FILE.tmp\" && mv -f \"$GRANARY_EXIT_FILE.tmp\" \"$GRANARY_EXIT_FILE\"\n"
            + "exit \"$s\"\n";

    private final Path workDir;
    private final Path runDir;
    private final Disk records;
    private final String node;
    private final Loop loop;
    private final boolean wrap;

    OsLauncher(Path workDir, String node, Loop loop) {
        this.workDir = workDir;
        this.runDir = workDir.resolve("run");
        this.records = new FileDisk(runDir);
        this.node = node;
        this.loop = loop;
        this.wrap = Files.isExecutable(Path.of(SHELL));
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
            command.addAll(List.of(SHELL, "-c", WRAPPER, "granary-worker"));
            command.add(executable(l.command().isEmpty() ? "" : l.command().get(0), l.environment()));
            command.addAll(l.command().subList(1, l.command().size()));
        } else {
            command.addAll(l.command());
        }
        ProcessBuilder pb = new ProcessBuilder(command);
        pb.environment().putAll(l.environment());
        pb.environment().put("GRANARY_NODE", node);
        pb.environment().put("GRANARY_UNIT", l.unit().toString());
        pb.environment().put("GRANARY_SLOT", Integer.toString(l.slot()));
        pb.environment().put("GRANARY_EXIT_FILE", exitFile.toString());
        pb.directory(directory(l));
        Path logs = Files.createDirectories(workDir.resolve("logs"));
        pb.redirectOutput(ProcessBuilder.Redirect.appendTo(logs.resolve(base + ".out").toFile()));
        pb.redirectError(ProcessBuilder.Redirect.appendTo(logs.resolve(base + ".err").toFile()));
        Process p = pb.start();
        p.getOutputStream().close(); // a worker reads no input from the agent: it sees end of file at once
        remember(r, p.toHandle());
        return new Os(p.toHandle(), p, base, exitFile);
    }

    /**
     * The program as ProcessBuilder would find it, checked now: the wrapper would report a missing
     * one as exit 127, where a launch that cannot start is {@link Heartbeat#NOT_STARTED}.
     */
    private static String executable(String program, Map<String, String> env) throws IOException {
        if (program.isEmpty()) {
            throw new IOException("the command is empty");
        }
        if (program.contains("/")) {
            if (!Files.isExecutable(Path.of(program))) {
                throw new IOException("Cannot run program \"" + program + "\": not an executable file");
            }
            return program;
        }
        String path = env.getOrDefault("PATH", System.getenv().getOrDefault("PATH", "/usr/bin:/bin"));
        for (String dir : path.split(File.pathSeparator)) {
            if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, program))) {
                return program;
            }
        }
        throw new IOException("Cannot run program \"" + program + "\": not found on PATH " + path);
    }

    /** Writes the worker's run record (a temporary file renamed over it: never half written; not forced: a machine crash ends the worker too). */
    private void remember(Record r, ProcessHandle h) {
        String body = "unit=" + r.unit() + "\nslot=" + r.slot() + "\njobMaster=" + r.jobMaster() + "\nkey=" + r.key()
                + "\nsize=" + r.size() + "\nonline=" + r.online() + "\npid=" + h.pid()
                + "\nstart=" + startMillis(h) + "\n";
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
                out.add(h.isPresent() ? new Left(r, new Os(h.get(), null, base, exitFile), 0, false, stopped)
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
     */
    private List<Left> unrecorded(List<Left> recorded, Consumer<String> problems) {
        Path proc = Path.of("/proc");
        if (!Files.isDirectory(proc)) {
            return List.of();
        }
        java.util.Set<Long> known = new java.util.HashSet<>();
        recorded.forEach(l -> {
            if (l.running() != null) {
                known.add(l.running().pid());
            }
        });
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
        List<Left> out = new ArrayList<>();
        ours.forEach((pid, env) -> {
            Optional<ProcessHandle> h = ProcessHandle.of(pid).filter(ProcessHandle::isAlive);
            // the topmost process of a worker (its wrapper), not its children, which share its environment
            boolean child = h.flatMap(ProcessHandle::parent).map(pp -> ours.containsKey(pp.pid())).orElse(false);
            if (h.isEmpty() || child || known.contains(pid) || known.stream().anyMatch(k -> isDescendant(h.get(), k))) {
                return;
            }
            // a wrapper that wrote its exit file has ended its worker and is on its way out: that end is
            // the recorded worker's, not a worker without a record
            String exitFile = env.get("GRANARY_EXIT_FILE");
            if (exitFile == null || Files.exists(Path.of(exitFile))) {
                return;
            }
            try {
                Record r = new Record(UnitId.parse(env.get("GRANARY_UNIT")), Integer.parseInt(env.get("GRANARY_SLOT")), "", "",
                        Resources.ZERO, false);
                String base = base(r.unit(), r.slot());
                out.add(new Left(r, new Os(h.get(), null, base, Path.of(exitFile)), 0, false, stopped(base)));
            } catch (RuntimeException ex) {
                // not a worker this agent could have started: left alone
            }
        });
        return out;
    }

    private static boolean isDescendant(ProcessHandle h, long ancestor) {
        for (Optional<ProcessHandle> p = h.parent(); p.isPresent(); p = p.get().parent()) {
            if (p.get().pid() == ancestor) {
                return true;
            }
        }
        return false;
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

        Os(ProcessHandle handle, Process process, String base, Path exitFile) {
            this.handle = handle;
            this.process = process;
            this.base = base;
            this.exitFile = exitFile;
        }

        @Override
        public long pid() {
            return handle.pid();
        }

        @Override
        public void onExit(IntConsumer exited) {
            (process != null ? process.onExit() : handle.onExit()).whenComplete((p, failure) -> loop.execute(() -> exited.accept(code())));
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
        }

        @Override
        public boolean alive() {
            return handle.isAlive();
        }

        @Override
        public void kill() {
            handle.descendants().forEach(ProcessHandle::destroyForcibly);
            handle.destroyForcibly();
        }
    }
}

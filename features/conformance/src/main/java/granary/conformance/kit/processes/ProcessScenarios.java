package granary.conformance.kit.processes;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import granary.conformance.Cases;

/**
 * The conformance kit's real-process scenarios ({@code --processes}; docs/recovery.md, "Real
 * processes"): a master, two agents (n1, n2: 4 slots each) and the sample job master with two
 * online (service) workers and a batch of 24 tasks of 3 s, all on loopback; then the master, an
 * agent or the job master is killed with -9 and started again. What must hold, checked on the
 * operating system's processes: every online worker that ran before the kill still runs after it
 * (the same PID), none is started twice, the batch finishes, and the online workers stop with the
 * job. A fourth (spec case 3) stops a restartable job master with SIGSTOP past its timeout: the
 * master must start it again through an agent and fence the old one. Each scenario is one row of the
 * kit's table; its timings are the row's counters.
 */
public final class ProcessScenarios {

    /** The three jars a cluster is made of. */
    public record Jars(Path runtime, Path agent, Path jobMaster) {

        /** The jars a build leaves under {@code features} (the directory holding standalone/, agent/, jobmaster/). */
        public static Jars under(Path features) {
            return new Jars(features.resolve("standalone/target/granary-standalone.jar"),
                    features.resolve("agent/target/granary-agent.jar"),
                    features.resolve("jobmaster/target/granary-jobmaster.jar"));
        }

        /** The first jar that is not a file, or null. */
        public Path missing() {
            for (Path p : List.of(runtime, agent, jobMaster)) {
                if (!Files.isRegularFile(p)) {
                    return p;
                }
            }
            return null;
        }
    }

    private static final String WINDOW = "--config=granary.recovery:windowSeconds=5,settleMillis=1000";
    private static final Duration LONG = Duration.ofSeconds(180);
    private static final int TASKS = 24;

    private final Jars jars;
    private final Path work;
    private final PrintStream log;

    /**
     * @param work a directory for the scenarios' processes: one subdirectory each, with every
     *             process's output ({@code *.out}, {@code *.err}), kept after the run
     */
    public ProcessScenarios(Jars jars, Path work, PrintStream log) {
        this.jars = jars;
        this.work = work;
        this.log = log;
    }

    /** Runs the four scenarios, one after the other. */
    public List<Cases.Outcome> all() {
        return List.of(masterKill(), agentKill(), jobMasterKill(), jobMasterTimeout());
    }

    public Cases.Outcome masterKill() {
        return run("P1", "M kill -9 (real processes)", "master -9 while 2 services and a batch run; started again",
                (s, t) -> {
                    Cluster.Proc jm = s.triangle();
                    Map<Integer, Long> pids = s.serviceRunning();
                    long t0 = System.nanoTime();
                    kill9(s.cluster.master().process().toHandle());
                    s.cluster.restartMaster(jars.runtime(), WINDOW);
                    t.put("listeningMillis", ms(System.nanoTime() - t0));
                    // The rebuild adds the nodes to the engine: the first 'granary:nodes' listing both stands for the window's end.
                    s.cluster.console("granary:nodes", "n2 ");
                    t.put("rebuiltMillis", ms(System.nanoTime() - t0));
                    s.cluster.console("granary:agents", "node=n1 state=live");
                    s.cluster.console("granary:agents", "node=n2 state=live");
                    pids.forEach((slot, pid) -> s.check(alive(pid), "online worker " + slot + " (pid " + pid + ") did not survive the master's restart"));
                    s.check(jm.exit(LONG) == 0, "the job master did not finish its batch: " + jm);
                    s.check(pids.equals(s.readPids()), "an online worker was started again: pids " + pids + " then " + s.readPids());
                    s.servicesStopAfterTheBatch(pids);
                });
    }

    public Cases.Outcome agentKill() {
        return run("P2", "A kill -9 (real processes)", "agent n1 -9 (its workers left to the OS); started again",
                (s, t) -> {
                    Cluster.Proc jm = s.triangle();
                    Map<Integer, Long> pids = s.serviceRunning();
                    Map<Integer, String> where = serviceNodes(jm.stdout());
                    kill9(s.agents.get("n1").process().toHandle());
                    Thread.sleep(1000);   // a real second after the kill: the OS has had time to take the workers down, if it would
                    Map<Integer, Boolean> survived = new TreeMap<>();
                    pids.forEach((slot, pid) -> survived.put(slot, alive(pid)));
                    long t0 = System.nanoTime();
                    Cluster.Proc again = s.cluster.agent("n1", "cpu=400,mem=4096", s.dir.resolve("agent-n1.token"));
                    s.cluster.console("granary:agents", "node=n1 state=live");
                    t.put("registeredMillis", ms(System.nanoTime() - t0));
                    s.check(jm.exit(LONG) == 0, "the job master did not finish its batch: " + jm);
                    pids.forEach((slot, pid) -> s.check(survived.get(slot), "online worker " + slot + " (pid " + pid + ", node "
                            + where.get(slot) + ") did not outlive its agent's kill -9"));
                    where.forEach((slot, node) -> {
                        if (node.equals("n1")) {
                            s.check(again.stdout().contains("adopted unit=fo/service slot="),
                                    "the restarted agent did not adopt its online worker " + slot + ": " + again.stdout());
                        }
                    });
                    s.servicesStopAfterTheBatch(pids);
                });
    }

    public Cases.Outcome jobMasterKill() {
        return run("P3", "AM kill -9 (real processes)", "job master -9 while its services run; started again",
                (s, t) -> {
                    Cluster.Proc jm = s.triangle();
                    Map<Integer, Long> pids = s.serviceRunning();
                    kill9(jm.process().toHandle());
                    long t0 = System.nanoTime();
                    Cluster.Proc again = s.cluster.jobMaster("fo", TASKS, "sleep 3", s.dir.resolve("job-master-jm-fo.token"), s.jobMasterOptions());
                    s.check(again.exit(LONG) == 0, "the restarted job master did not finish the batch: " + again);
                    t.put("batchDoneMillis", ms(System.nanoTime() - t0));
                    String out = again.stdout();
                    pids.forEach((slot, pid) -> s.check(out.contains("adopted service=" + slot + " "), "the restarted job master did not adopt"
                            + " online worker " + slot + " (pid " + pid + "): " + out));
                    s.check(pids.equals(s.readPids()), "an online worker was started again: pids " + pids + " then " + s.readPids());
                    s.servicesStopAfterTheBatch(pids);
                });
    }

    /**
     * Spec case 3 (docs/recovery.md, "Restarting a lost job master"): a restartable sample job master
     * is frozen (SIGSTOP) past the job master timeout (5 s here); the master fences it and starts it
     * again through an agent; the new one adopts the online workers and finishes the batch; the frozen
     * one, resumed (SIGCONT), is refused as fenced and exits with code 7.
     */
    public Cases.Outcome jobMasterTimeout() {
        return run("P4", "AM timeout, restarted by M (processes)", "restartable job master SIGSTOP past its 5 s timeout; SIGCONT later",
                (s, t) -> {
                    Cluster.Proc jm = s.triangle(List.of(WINDOW, "--config=granary.master:jobMasterTimeoutSeconds=5"),
                            "--restartable=cpu=50,mem=256");
                    Map<Integer, Long> pids = s.serviceRunning();
                    long t0 = System.nanoTime();
                    signal("STOP", jm.process().pid());
                    Path log;
                    try {
                        // Not the console's state=restarting: on a quiet machine the restart can run the batch
                        // to its end between two polls. The agent's log of the process it started is the proof.
                        await("an agent started the job master again", () -> s.restartLog() != null, () -> s.dir, LONG);
                        t.put("startedMillis", ms(System.nanoTime() - t0));
                        log = s.restartLog();
                        await("the restarted job master finished the batch", () -> read(log).contains("cancelled job=fo"),
                                () -> read(log), LONG);
                        t.put("batchDoneMillis", ms(System.nanoTime() - t0));
                    } finally {
                        signal("CONT", jm.process().pid());
                    }
                    int code = jm.exit(LONG);
                    s.check(code == 7 && jm.stdout().contains("fenced "), "the resumed job master was not fenced (exit " + code + "): " + jm);
                    String out = read(log);
                    pids.forEach((slot, pid) -> s.check(out.contains("adopted service=" + slot + " "), "the restarted job master did not"
                            + " adopt online worker " + slot + " (pid " + pid + "): " + out));
                    s.check(pids.equals(s.readPids()), "an online worker was started again: pids " + pids + " then " + s.readPids());
                    s.servicesStopAfterTheBatch(pids);
                });
    }

    // ---- one scenario -------------------------------------------------------------------------

    private interface Body {
        void run(Scenario s, Map<String, Long> timings) throws Exception;
    }

    private Cases.Outcome run(String id, String title, String injected, Body body) {
        Map<String, Long> timings = new LinkedHashMap<>();
        Scenario s;
        try {
            s = new Scenario(emptyDirectory(work.resolve(id)));
        } catch (IOException ex) {
            return new Cases.Outcome(id, title, injected, List.of("cannot create its directory: " + ex), List.of(), timings);
        }
        long t0 = System.nanoTime();
        try {
            body.run(s, timings);
        } catch (ProcessFailure ex) {
            s.violations.add(ex.getMessage());
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            s.violations.add("interrupted");
        } catch (Exception ex) {
            s.violations.add(ex.toString());
        } finally {
            s.close();
        }
        timings.put("millis", ms(System.nanoTime() - t0));
        log.printf("%s %s: %s; load %s; logs in %s%n", id, s.violations.isEmpty() ? "held" : "broken", timings, load(), s.dir);
        return new Cases.Outcome(id, title, injected, List.copyOf(s.violations), List.of(), timings);
    }

    /** The cluster of one scenario and what it found wrong. */
    private final class Scenario {
        final Path dir;
        final Cluster cluster;
        final Map<String, Cluster.Proc> agents = new TreeMap<>();
        final List<String> violations = new ArrayList<>();
        final List<Long> servicePids = new ArrayList<>();

        Scenario(Path dir) {
            this.dir = dir;
            this.cluster = new Cluster(dir, jars.agent(), jars.jobMaster());
        }

        void check(boolean held, String otherwise) {
            if (!held) {
                violations.add(otherwise);
            }
        }

        /** Master, agents n1 and n2, the job master with 2 online workers and 24 tasks of 3 s. */
        Cluster.Proc triangle() throws IOException, InterruptedException {
            return triangle(List.of(WINDOW));
        }

        /** As {@link #triangle()}, the master started with {@code masterOptions}, the job master with {@code jobMasterExtra} too. */
        Cluster.Proc triangle(List<String> masterOptions, String... jobMasterExtra) throws IOException, InterruptedException {
            cluster.startMaster(jars.runtime(), masterOptions.toArray(new String[0]));
            // room for a job master's own slot (cpu=50) beside 4 tasks: slots granted to a lost job master that
            // it had not planned yet stay idle until its next incarnation (docs/recovery.md)
            String capacity = jobMasterExtra.length == 0 ? "cpu=400,mem=4096" : "cpu=450,mem=4352";
            agents.put("n1", cluster.agent("n1", capacity, cluster.token("agent/n1")));
            agents.put("n2", cluster.agent("n2", capacity, cluster.token("agent/n2")));
            cluster.console("granary:agents", "node=n2 state=live");
            cluster.console("granary:agents", "node=n1 state=live");
            List<String> options = new ArrayList<>(List.of(jobMasterOptions()));
            options.addAll(List.of(jobMasterExtra));
            return cluster.jobMaster("fo", TASKS, "sleep 3", cluster.token("job-master/jm-fo"), options.toArray(new String[0]));
        }

        /** The job master the master started again: its standard output, in the work dir of the agent that started it; null before. */
        Path restartLog() {
            for (String node : List.of("n1", "n2")) {
                Path p = dir.resolve(node).resolve("logs").resolve("granary.restart-1_jm-fo.job-master.0.out");
                if (Files.exists(p)) {
                    return p;
                }
            }
            return null;
        }

        String[] jobMasterOptions() {
            return new String[] {"--online=2", "--online-command=echo $$ > " + dir.toAbsolutePath() + "/svc-$GRANARY_TASK.pid; exec sleep 600",
                "--patience=120", "--timeout=240", "--workdir=" + dir.toAbsolutePath()};
        }

        /** Waits until both online workers wrote their PIDs; returns slot → PID. */
        Map<Integer, Long> serviceRunning() throws InterruptedException {
            await("both online workers run", () -> readPids().size() == 2, this::readPids, LONG);
            // and their agents recorded them (run files): a kill in the instant between a worker's start
            // and its run file leaves an orphan no restarted agent knows (docs/recovery.md, "Real processes")
            await("the agents recorded both online workers", () -> agentsSay("launched unit=fo/service slot=0 ")
                    && agentsSay("launched unit=fo/service slot=1 "), this::readPids, LONG);
            Map<Integer, Long> pids = readPids();
            servicePids.addAll(pids.values());
            pids.forEach((slot, pid) -> check(alive(pid), "online worker " + slot + " pid " + pid + " is not running"));
            return pids;
        }

        private boolean agentsSay(String line) {
            return agents.values().stream().anyMatch(a -> a.stdout().contains(line));
        }

        Map<Integer, Long> readPids() {
            Map<Integer, Long> out = new TreeMap<>();
            for (int i = 0; i < 2; i++) {
                try {
                    String s = Files.readString(dir.resolve("svc-" + i + ".pid")).trim();
                    if (!s.isEmpty()) {
                        out.put(i, Long.parseLong(s));
                    }
                } catch (IOException | NumberFormatException ex) {
                    // not written yet
                }
            }
            return out;
        }

        /** The job master cancels its job when the batch is done: the agents stop the online workers. */
        void servicesStopAfterTheBatch(Map<Integer, Long> pids) throws InterruptedException {
            await("the online workers stopped after the job master cancelled its job",
                    () -> pids.values().stream().noneMatch(ProcessScenarios::alive), () -> pids, Duration.ofSeconds(60));
        }

        void close() {
            servicePids.forEach(cluster::alsoKill);   // orphans of a killed agent are no longer its descendants
            cluster.close();
        }
    }

    // ---- helpers ------------------------------------------------------------------------------

    /**
     * {@code dir}, created, or emptied if a run before left it: its PID files would pass for this
     * run's services. Only the scenario's own directory under the work directory is emptied.
     */
    private static Path emptyDirectory(Path dir) throws IOException {
        if (Files.isDirectory(dir)) {
            try (var paths = Files.walk(dir)) {
                for (Path p : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
                    if (!p.equals(dir)) {
                        Files.delete(p);
                    }
                }
            }
        }
        return Files.createDirectories(dir);
    }

    private static Map<Integer, String> serviceNodes(String out) {
        Map<Integer, String> m = new TreeMap<>();
        Matcher x = Pattern.compile("(?m)^(?:launched|adopted) service=(\\d+) node=(\\S+)").matcher(out);
        while (x.find()) {
            m.put(Integer.parseInt(x.group(1)), x.group(2));
        }
        return m;
    }

    private static String read(Path p) {
        try {
            return p == null ? "" : Files.readString(p);
        } catch (IOException ex) {
            return "";
        }
    }

    /** Sends SIGSTOP or SIGCONT to {@code pid} with kill(1), waiting at most 10 s for it. */
    private static void signal(String name, long pid) throws IOException, InterruptedException {
        Process k = new ProcessBuilder("kill", "-" + name, Long.toString(pid)).inheritIO().start();
        if (!k.waitFor(10, java.util.concurrent.TimeUnit.SECONDS)) {
            k.destroyForcibly();
            throw new ProcessFailure("kill -" + name + " " + pid + " did not return within 10 s");
        }
        if (k.exitValue() != 0) {
            throw new ProcessFailure("kill -" + name + " " + pid + " exited with " + k.exitValue());
        }
    }

    static boolean alive(long pid) {
        return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
    }

    private static void kill9(ProcessHandle h) throws InterruptedException {
        h.destroyForcibly();   // SIGKILL on Unix
        await("pid " + h.pid() + " gone after kill -9", () -> !h.isAlive(), () -> h, Duration.ofSeconds(30));
    }

    /** Polls {@code done} (other processes' state: nothing to be notified by) until it holds or {@code timeout} passes. */
    static void await(String what, BooleanSupplier done, Supplier<?> state, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!done.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new ProcessFailure("not within " + timeout.toSeconds() + " s: " + what + "; last state: " + state.get());
            }
            Thread.sleep(50);
        }
    }

    private static long ms(long nanos) {
        return nanos / 1_000_000;
    }

    private static String load() {
        try {
            return Files.readString(Path.of("/proc/loadavg")).trim();
        } catch (IOException ex) {
            return "?";
        }
    }
}

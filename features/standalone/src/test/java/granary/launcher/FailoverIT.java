package granary.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 12, real processes (docs/recovery.md, "Real processes"): a master, two agents and the
 * sample job master with two online (service) workers and a batch of short tasks on loopback; one
 * of them is killed with -9 and started again. Online workers are checked by their OS PID, which
 * each writes to {@code svc-<slot>.pid} in the test directory. Felix run only: the recovery code is
 * the same bundles in both runtimes, and each scenario takes about a minute on a loaded machine.
 */
class FailoverIT {

    private static final String WINDOW = "--config=granary.recovery:windowSeconds=5,settleMillis=1000";
    private static final Duration LONG = Duration.ofSeconds(180);

    @TempDir
    Path dir;
    private Cluster cluster;
    private final List<Long> servicePids = new ArrayList<>();
    private final Map<String, Cluster.Proc> agents = new TreeMap<>();

    @BeforeEach
    void felixOnly() {
        Assumptions.assumeTrue(It.framework().equals("felix"), "the failover scenarios run once, on the Felix runtime");
    }

    @AfterEach
    void stop(org.junit.jupiter.api.TestInfo info) throws IOException {
        if (cluster != null) {
            servicePids.forEach(cluster::alsoKill); // orphans of a killed agent are no longer its descendants
            cluster.close();
        }
        // the processes' logs outlive the temporary directory, for the report
        Path keep = It.target().resolve("failover-logs").resolve(info.getTestMethod().map(m -> m.getName()).orElse("test"));
        Files.createDirectories(keep);
        try (var files = Files.list(dir)) {
            for (Path f : files.filter(f -> f.toString().endsWith(".out") || f.toString().endsWith(".err")).toList()) {
                Files.copy(f, keep.resolve(f.getFileName()), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            }
        }
    }

    // ---- scenarios ------------------------------------------------------------------------------

    @Test
    void killingTheMasterKeepsOnlineWorkersRunningAndTheBatchFinishes() throws Exception {
        Cluster.Proc jm = triangle();
        Map<Integer, Long> pids = serviceRunning();
        int linesAtKill = jm.stdout().length();
        long t0 = System.nanoTime();
        kill9(cluster.master.process().toHandle());
        cluster.restartMaster(It.runnableJar(), WINDOW);
        long listening = System.nanoTime();
        Progress progress = Progress.watch(jm, linesAtKill, t0);
        // No log line says the window closed: the rebuild adds the nodes to the engine, so the first
        // 'granary:nodes' that lists both (polled every second) stands for it.
        cluster.console("granary:nodes", "n2 ");
        long rebuilt = System.nanoTime();
        // the agents registered with the new master (console() fails if not within its bounded wait)
        cluster.console("granary:agents", "node=n1 state=live");
        cluster.console("granary:agents", "node=n2 state=live");
        pids.forEach((slot, pid) -> assertTrue(alive(pid), "online worker " + slot + " (pid " + pid + ") survived the master's restart"));
        assertEquals(0, jm.exit(LONG), jm.toString());
        System.out.printf("FAILOVER master kill -9 -> new master listening %d ms, -> window closed (nodes listed, ±1 s) %d ms,"
                + " -> batch progress %s ms; load: %s%n", ms(listening - t0), ms(rebuilt - t0), progress.millis(), load());
        assertEquals(pids, readPids(), "no online worker was started again: " + jm.stdout());
        servicesStopAfterTheBatch(pids);
    }

    @Test
    void killingAnAgentLeavesItsWorkersToTheOsAndItsReturnWithTheCheckpoint() throws Exception {
        Cluster.Proc jm = triangle();
        Map<Integer, Long> pids = serviceRunning();
        Map<Integer, String> where = serviceNodes(jm.stdout());
        Cluster.Proc n1 = agents.get("n1");
        kill9(n1.process().toHandle()); // the agent only: its workers are left to the OS
        Thread.sleep(1000);
        Map<Integer, Boolean> survived = new TreeMap<>();
        pids.forEach((slot, pid) -> survived.put(slot, alive(pid)));
        System.out.println("FAILOVER agent n1 kill -9: service placement " + where + ", alive right after " + survived);
        agents.put("n1-again", cluster.agent("n1", "cpu=400,mem=4096", dir.resolve("agent-n1.token")));
        cluster.console("granary:agents", "node=n1 state=live");
        int code = jm.exit(LONG);
        Map<Integer, Long> after = readPids();
        Map<Integer, Boolean> aliveAfter = new TreeMap<>();
        pids.forEach((slot, pid) -> aliveAfter.put(slot, alive(pid)));
        System.out.println("FAILOVER agent n1 kill -9: job master exit " + code + ", old service pids alive " + aliveAfter
                + ", pid files now " + after + "; load: " + load());
        assertEquals(0, code, jm.toString());
        pids.forEach((slot, pid) -> assertTrue(survived.get(slot), "worker " + slot + " (pid " + pid + ", node "
                + where.get(slot) + ") outlived its agent's kill -9"));
        // the restarted agent adopted the online workers left on n1, and stops them with the job
        where.forEach((slot, node) -> {
            if (node.equals("n1")) {
                assertTrue(agents.get("n1-again").stdout().contains("adopted unit=fo/service slot="),
                        "the restarted agent adopted its online worker: " + agents.get("n1-again").stdout());
            }
        });
        servicesStopAfterTheBatch(pids);
    }

    @Test
    void killingTheJobMasterKeepsItsOnlineWorkersAndARestartFinishesTheBatch() throws Exception {
        Cluster.Proc jm = triangle();
        Map<Integer, Long> pids = serviceRunning();
        kill9(jm.process().toHandle());
        Cluster.Proc again = cluster.jobMaster("fo", TASKS, "sleep 3", dir.resolve("job-master-jm-fo.token"), jobMasterOptions());
        assertEquals(0, again.exit(LONG), again.toString());
        String out = again.stdout();
        System.out.println("FAILOVER job master kill -9: restarted one says " + lines(out, "adopted|launched service")
                + "; load: " + load());
        pids.forEach((slot, pid) -> assertTrue(out.contains("adopted service=" + slot + " "), "the restarted job master adopted"
                + " online worker " + slot + " (pid " + pid + ") rather than starting it again: " + out));
        assertEquals(pids, readPids(), "no online worker was started again");
        servicesStopAfterTheBatch(pids);
    }

    /**
     * Spec case 3 (docs/recovery.md, "Restarting a lost job master"): a restartable sample job master
     * is stopped (SIGSTOP) past the job master timeout (5 s here); the master fences it and starts it
     * again through an agent; the new one adopts the online workers and finishes the batch; the
     * stopped one, resumed (SIGCONT), is refused as fenced and exits with code 7.
     */
    @Test
    void aRestartableJobMasterStoppedPastItsTimeoutIsStartedAgainByTheMasterAndTheOldOneIsFenced() throws Exception {
        Cluster.Proc jm = triangle(List.of(WINDOW, "--config=granary.master:jobMasterTimeoutSeconds=5"),
                "--restartable=cpu=50,mem=256");
        Map<Integer, Long> pids = serviceRunning();
        long t0 = System.nanoTime();
        signal("STOP", jm.process().pid());
        Path log;
        try {
            cluster.console("granary:jobmasters", "state=restarting");
            cluster.console("granary:jobmasters", "(started by the master)");
            long back = System.nanoTime();
            It.await("an agent started the job master again", () -> restartLog() != null, () -> dir, LONG);
            log = restartLog();
            It.await("the restarted job master finished the batch", () -> read(log).contains("cancelled job=fo"),
                    () -> read(log), LONG);
            System.out.printf("FAILOVER job master SIGSTOP -> started again and back (full request) %d ms, -> batch done %d ms;"
                    + " load: %s%n", ms(back - t0), ms(System.nanoTime() - t0), load());
        } finally {
            signal("CONT", jm.process().pid());
        }
        assertEquals(7, jm.exit(LONG), "the resumed job master is fenced and exits: " + jm);
        assertTrue(jm.stdout().contains("fenced "), jm.stdout());
        String out = read(log);
        pids.forEach((slot, pid) -> assertTrue(out.contains("adopted service=" + slot + " "), "the restarted job master"
                + " adopted online worker " + slot + " (pid " + pid + "): " + out));
        assertEquals(pids, readPids(), "no online worker was started again");
        servicesStopAfterTheBatch(pids);
    }

    /** The restarted job master's standard output, in the work dir of the agent that started it; null before. */
    private Path restartLog() {
        for (String node : List.of("n1", "n2")) {
            Path p = dir.resolve(node).resolve("logs").resolve("granary.restart-1_jm-fo.job-master.0.out");
            if (Files.exists(p)) {
                return p;
            }
        }
        return null;
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
        }
        assertEquals(0, k.exitValue(), "kill -" + name + " " + pid);
    }

    // ---- the cluster ----------------------------------------------------------------------------

    private static final int TASKS = 24;

    private static String lines(String out, String regex) {
        return Pattern.compile("(?m)^(" + regex + ").*$").matcher(out).results().map(m -> m.group()).toList().toString();
    }

    private String[] jobMasterOptions() {
        return new String[] {"--online=2", "--online-command=echo $$ > " + dir + "/svc-$GRANARY_TASK.pid; exec sleep 600",
                "--patience=120", "--timeout=240", "--workdir=" + dir};
    }

    /** Master, agents n1 and n2 (4 slots each), the job master with 2 online workers and 24 tasks of 3 s. */
    private Cluster.Proc triangle() throws Exception {
        return triangle(List.of(WINDOW));
    }

    /** As {@link #triangle()}, the master started with {@code masterOptions}, the job master with {@code jobMasterExtra} too. */
    private Cluster.Proc triangle(List<String> masterOptions, String... jobMasterExtra) throws Exception {
        cluster = new Cluster(dir).startMaster(It.runnableJar(), masterOptions.toArray(new String[0]));
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


    /** Waits until both online workers wrote their PIDs and a batch task ran; returns slot → PID. */
    private Map<Integer, Long> serviceRunning() throws InterruptedException, IOException {
        It.await("both online workers run", () -> readPids().size() == 2, this::readPids, LONG);
        Map<Integer, Long> pids = readPids();
        servicePids.addAll(pids.values());
        pids.forEach((slot, pid) -> assertTrue(alive(pid), "online worker " + slot + " pid " + pid));
        return pids;
    }

    private Map<Integer, Long> readPids() {
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

    private static Map<Integer, String> serviceNodes(String out) {
        Map<Integer, String> m = new TreeMap<>();
        Matcher x = Pattern.compile("(?m)^(?:launched|adopted) service=(\\d+) node=(\\S+)").matcher(out);
        while (x.find()) {
            m.put(Integer.parseInt(x.group(1)), x.group(2));
        }
        return m;
    }

    /** The job master cancels its job when the batch is done: the agents stop the online workers. */
    private void servicesStopAfterTheBatch(Map<Integer, Long> pids) {
        It.await("the online workers stopped after the job master cancelled its job",
                () -> pids.values().stream().noneMatch(FailoverIT::alive), () -> pids, Duration.ofSeconds(60));
    }

    private static boolean alive(long pid) {
        return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
    }

    private static void kill9(ProcessHandle h) throws InterruptedException {
        h.destroyForcibly(); // SIGKILL on Unix
        It.await("pid " + h.pid() + " gone after kill -9", () -> !h.isAlive(), () -> h, Duration.ofSeconds(30));
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

    /** Watches the job master's output after a kill for its first new launched/finished line. */
    private static final class Progress {
        private volatile long millis = -1;

        static Progress watch(Cluster.Proc jm, int from, long t0) {
            Progress p = new Progress();
            Thread t = new Thread(() -> {
                long end = System.nanoTime() + LONG.toNanos();
                Pattern line = Pattern.compile("(?m)^(launched|finished) task=");
                while (System.nanoTime() < end && p.millis < 0) {
                    String out = jm.stdout();
                    if (out.length() > from && line.matcher(out.substring(from)).find()) {
                        p.millis = (System.nanoTime() - t0) / 1_000_000;
                        return;
                    }
                    try {
                        Thread.sleep(50);   // a child process: polled, with a deadline
                    } catch (InterruptedException ex) {
                        return;
                    }
                }
            }, "progress-watch");
            t.setDaemon(true);
            t.start();
            return p;
        }

        String millis() {
            return millis < 0 ? "(none seen)" : Long.toString(millis);
        }
    }
}

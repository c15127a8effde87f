package granary.conformance.kit.processes;

import static granary.conformance.kit.processes.Cluster.alive;
import static granary.conformance.kit.processes.Cluster.await;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;

/** The cluster of one scenario, the steps and checks its rows share, and what it found wrong. */
final class Scenario {

    /** The master's recovery window in every row: 5 s, or 1 s after the last peer reported. */
    static final String WINDOW = "--config=granary.recovery:windowSeconds=5,settleMillis=1000";
    /** The longest any one step of a row may take. */
    static final Duration LONG = Duration.ofSeconds(180);
    static final String JOB = "fo";
    static final int TASKS = 12;
    static final int TASK_SECONDS = 2;
    /** A node's capacity: 4 slots of the job's cpu=100,mem=256. */
    static final String CAPACITY = "cpu=400,mem=4096";
    static final int SLOTS_PER_NODE = 4;
    /** Room for a job master's own slot (cpu=50) beside 4 slots, for rows where the master starts it again. */
    static final String CAPACITY_WITH_ROOM = "cpu=450,mem=4352";

    final Path dir;
    final Cluster cluster;
    final Map<String, Long> timings;
    final Map<String, Cluster.Proc> agents = new TreeMap<>();
    final List<String> violations = new ArrayList<>();
    final List<Long> servicePids = new ArrayList<>();
    /** Nodes declared lost: runs there that began before the time (ms) may run again elsewhere. */
    final Map<String, Long> lostNodes = new TreeMap<>();
    private final ProcessScenarios.Jars jars;
    private String capacity = CAPACITY;
    private String[] jobMasterOptions;

    Scenario(Path dir, Map<String, Long> timings, ProcessScenarios.Jars jars) {
        this.dir = dir;
        this.timings = timings;
        this.jars = jars;
        this.cluster = new Cluster(dir, jars.agent(), jars.jobMaster());
    }

    void check(boolean held, String otherwise) {
        if (!held) {
            violations.add(otherwise);
        }
    }

    /** Master, agents n1 and n2 (4 slots each), the job master with 2 online workers and 12 tasks of 2 s. */
    Cluster.Proc triangle() throws IOException, InterruptedException {
        return triangle(List.of(WINDOW), CAPACITY);
    }

    /** As {@link #triangle()}, the master started with {@code masterOptions}, the agents with {@code capacity}, the job master with {@code jobMasterExtra} too. */
    Cluster.Proc triangle(List<String> masterOptions, String capacity, String... jobMasterExtra) throws IOException, InterruptedException {
        this.capacity = capacity;
        cluster.startMaster(jars.runtime(), masterOptions.toArray(new String[0]));
        agents.put("n1", cluster.agent("n1", capacity, cluster.token("agent/n1")));
        agents.put("n2", cluster.agent("n2", capacity, cluster.token("agent/n2")));
        bothLive();
        Files.createDirectories(dir.resolve("runs"));
        List<String> options = new ArrayList<>(List.of("--online=2",
                "--online-command=echo $$ > " + dir + "/svc-$GRANARY_TASK.pid; exec sleep 600",
                "--patience=120", "--timeout=240", "--workdir=" + dir));
        options.addAll(List.of(jobMasterExtra));
        jobMasterOptions = options.toArray(new String[0]);
        cluster.watchWorkers(JOB);
        return cluster.jobMaster(JOB, TASKS, TaskRuns.command(dir, TASK_SECONDS), cluster.token("job-master/jm-" + JOB), jobMasterOptions);
    }

    /** The job master started again by hand, with the same command line (and so the same progress directory). */
    Cluster.Proc jobMasterAgain() throws IOException {
        return cluster.jobMaster(JOB, TASKS, TaskRuns.command(dir, TASK_SECONDS), dir.resolve("job-master-jm-" + JOB + ".token"),
                jobMasterOptions);
    }

    /** The agent of {@code node} started again (by its supervisor) with the same work dir and token. */
    Cluster.Proc restartAgent(String node) throws IOException {
        Cluster.Proc again = cluster.agent(node, capacity, dir.resolve("agent-" + node + ".token"));
        agents.put(node, again);
        return again;
    }

    void bothLive() throws IOException, InterruptedException {
        cluster.console("granary:agents", "node=n1 state=live");
        cluster.console("granary:agents", "node=n2 state=live");
    }

    /** The job master the master started again: its standard output, in the work dir of the agent that started it; null before. */
    Path restartLog() {
        for (String node : List.of("n1", "n2")) {
            Path p = dir.resolve(node).resolve("logs").resolve("granary.restart-1_jm-" + JOB + ".job-master.0.out");
            if (Files.exists(p)) {
                return p;
            }
        }
        return null;
    }

    /** Waits until both online workers wrote their PIDs; returns slot → PID. */
    Map<Integer, Long> serviceRunning() throws InterruptedException {
        await("both online workers run", () -> readPids().size() == 2, this::readPids, LONG);
        // and their agents recorded them (run files): a kill in the instant between a worker's start
        // and its run file leaves an orphan no restarted agent knows (docs/recovery.md, "Real processes")
        await("the agents recorded both online workers", () -> agentsSay("launched unit=" + JOB + "/service slot=0 ")
                && agentsSay("launched unit=" + JOB + "/service slot=1 "), this::readPids, LONG);
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

    /** An agent started again adopted the online workers of its node ({@code where}: slot → node). */
    void adoptedServicesOf(String node, Map<Integer, String> where, Cluster.Proc agent) {
        where.forEach((slot, n) -> check(!n.equals(node) || agent.stdout().contains("adopted unit=" + JOB + "/service slot=" + slot + " "),
                "the restarted agent of " + node + " did not adopt online worker " + slot + ": " + agent));
    }

    /**
     * A job master started again knows the online workers as running — adopted on its agent's
     * answer, or resumed from its progress — and launched none of them again.
     */
    void keptServices(String out, Map<Integer, Long> pids) {
        boolean resumed = out.contains("resumed job=" + JOB + " ");
        pids.forEach((slot, pid) -> check(resumed || out.contains("adopted service=" + slot + " "), "the restarted job master"
                + " neither adopted online worker " + slot + " (pid " + pid + ") nor resumed it from its progress: " + out));
        check(!Pattern.compile("(?m)^(re)?launched service=").matcher(out).find(),
                "the restarted job master launched an online worker again: " + out);
    }

    /** The online workers still run (the same PIDs), at a moment their job cannot have ended: after {@code what}. */
    void servicesAlive(Map<Integer, Long> pids, String what) {
        pids.forEach((slot, pid) -> check(alive(pid), "online worker " + slot + " (pid " + pid + ") did not outlive " + what));
    }

    /** The job master {@code jm} finished its batch (exit 0); then everything {@link #clean} checks. */
    void finished(Cluster.Proc jm, Map<Integer, Long> pids) throws InterruptedException {
        long t0 = System.nanoTime();
        int code = jm.exit(LONG);
        timings.putIfAbsent("batchDoneMillis", (System.nanoTime() - t0) / 1_000_000);
        check(code == 0, "the job master did not finish its batch (exit " + code + "): " + jm);
        clean(pids, jm.stdout());
    }

    /**
     * Once the job is over ({@code out}: the output of the job master that ended it): the online
     * workers were not started again, ran until the job's cancel stopped them, and are gone; no
     * worker of the job runs; every task finished a run and none ran twice; no node ran more
     * workers of the job than its slots.
     */
    void clean(Map<Integer, Long> pids, String out) throws InterruptedException {
        check(pids.equals(readPids()), "an online worker was started again: pids " + pids + " then " + readPids());
        pids.forEach((slot, pid) -> check(out.contains("service-stopped service=" + slot + " ")
                && !out.contains("service-exited service=" + slot + " "), "online worker " + slot + " (pid " + pid
                + ") did not run until its job's cancel stopped it: " + out));
        try {
            await("the online workers stopped after the job master cancelled its job",
                    () -> pids.values().stream().noneMatch(Cluster::alive), () -> pids, Duration.ofSeconds(60));
            await("no worker of job " + JOB + " runs once its job master has ended",
                    () -> cluster.workers().stream().noneMatch(w -> w.job().equals(JOB)), cluster::workers, Duration.ofSeconds(15));
        } catch (ProcessFailure ex) {
            violations.add(ex.getMessage());
        }
        TaskRuns runs = TaskRuns.read(dir);
        timings.put("taskRuns", (long) runs.started());
        violations.addAll(runs.violations(TASKS, TaskRuns.stoppedByAgents(cluster.agentLogs()), lostNodes));
        cluster.busiest().forEach((node, ws) -> check(ws.size() <= SLOTS_PER_NODE, "node " + node + " ran " + ws.size()
                + " workers of job " + JOB + " at once, beyond its " + SLOTS_PER_NODE + " slots: " + ws));
    }

    void close() {
        servicePids.forEach(cluster::alsoKill);   // orphans of a killed agent are no longer its descendants
        cluster.close();
        cluster.leftBehind().forEach(p -> violations.add("left behind: " + p));
    }
}

package granary.conformance.kit.processes;

import static granary.conformance.kit.processes.Cluster.alive;
import static granary.conformance.kit.processes.Cluster.await;
import static granary.conformance.kit.processes.Cluster.kill9;
import static granary.conformance.kit.processes.Cluster.signal;
import static granary.conformance.kit.processes.Scenario.CAPACITY;
import static granary.conformance.kit.processes.Scenario.CAPACITY_WITH_ROOM;
import static granary.conformance.kit.processes.Scenario.JOB;
import static granary.conformance.kit.processes.Scenario.LONG;
import static granary.conformance.kit.processes.Scenario.WINDOW;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import granary.conformance.Cases;

/**
 * The conformance kit's real-process scenarios ({@code --processes}; docs/recovery.md, "Real
 * processes"): a master, two agents (n1, n2: 4 slots each) and the sample job master with two
 * online (service) workers and a batch of 12 tasks of 2 s, all on loopback; then a failure of the
 * 17 cases is played on them with kill -9, SIGSTOP and SIGCONT, or a master with another secret.
 * What must hold is checked on the operating system's processes, not on what any role believes:
 * every online worker that ran before the failure still runs after it (the same PID) and is not
 * started again; the batch finishes with no task run twice (each run writes its start and end:
 * {@link TaskRuns}); no node runs more workers of the job than it has slots; once the job master
 * has ended, no worker of the job runs. Each scenario is one row of the kit's table; its timings
 * are the row's counters.
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

    private final Jars jars;
    private final Path work;
    private final PrintStream log;
    /** Set by {@link #stop()}: no row starts after it. */
    private volatile boolean stopped;
    /** The row under way, whose cluster {@link #stop()} closes. */
    private volatile Scenario current;

    /**
     * @param work a directory for the scenarios' processes: one subdirectory each, with every
     *             process's output ({@code *.out}, {@code *.err}); what is no log (a killed runtime's
     *             storage) is deleted when the row ends, the logs stay for the caller to keep or delete
     */
    public ProcessScenarios(Jars jars, Path work, PrintStream log) {
        this.jars = jars;
        this.work = work;
        this.log = log;
    }

    /** The rows' ids, in the order {@link #all()} runs them. */
    public static final List<String> IDS = List.of("P1", "P2", "P3", "P4", "P5", "P6", "P7", "P8", "P9", "P10",
            "P11", "P12", "P13", "P14", "P15", "P16", "P17");

    /** Runs every scenario, one after the other. */
    public List<Cases.Outcome> all() {
        return rows(List.of());
    }

    /** Runs the scenarios of {@code ids} (all if empty), in the order of {@link #IDS}. */
    public List<Cases.Outcome> rows(List<String> ids) {
        List<Supplier<Cases.Outcome>> rows = List.of(this::masterKill, this::agentKill, this::jobMasterKill, this::jobMasterTimeout,
                this::agentStoppedPastItsTimeout, this::agentRestartedWhileTheMasterIsDown, this::tornAgentCheckpoint,
                this::masterWithAnotherSecret, this::masterAndJobMasterKill, this::masterKillWhileTheJobMasterIsStopped,
                this::jobMasterAndAgentKill, this::jobMasterKillWhileAnAgentIsLost, this::jobMasterTimeoutWhileAnAgentRestarts,
                this::jobMasterAndAgentTimeout, this::masterKillWhileAnAgentIsStopped, this::masterAndJobMasterKillWhileAnAgentIsStopped,
                this::masterKillWhileTheJobMasterAndAnAgentAreStopped);
        List<Cases.Outcome> out = new ArrayList<>();
        for (int i = 0; i < rows.size() && !stopped; i++) {
            if (ids.isEmpty() || ids.contains(IDS.get(i))) {
                out.add(rows.get(i).get());
            }
        }
        return out;
    }

    /**
     * Stops the run from another thread (the kit's shutdown hook on Ctrl-C or SIGTERM): no row starts
     * after, and the cluster of the row under way is closed: its processes and their agents' workers
     * killed by PID, and none started after.
     */
    public void stop() {
        stopped = true;
        Scenario s = current;
        if (s != null) {
            s.cluster.close();
        }
    }

    /** The master killed with -9 and started again on the same port (docs/recovery.md, "The 17 cases"). */
    public Cases.Outcome masterKill() {
        return run("P1", "M kill -9 (real processes)", "master -9 while 2 services and a batch run; started again",
                (s, t) -> {
                    Cluster.Proc jm = s.triangle();
                    Map<Integer, Long> pids = s.serviceRunning();
                    long t0 = System.nanoTime();
                    kill9(s.cluster.master().process().toHandle());
                    s.cluster.restartMaster(jars.runtime(), WINDOW);
                    t.put("listeningMillis", ms(System.nanoTime() - t0));
                    s.servicesAlive(pids, "the master's kill -9");
                    // The rebuild adds the nodes to the engine: the first 'granary:nodes' listing both stands for the window's end.
                    s.cluster.console("granary:nodes", "n2 ");
                    t.put("rebuiltMillis", ms(System.nanoTime() - t0));
                    s.bothLive();
                    s.finished(jm, pids);
                });
    }

    /** An agent killed with -9 (its workers left to the OS) and started again with the same work dir (docs/recovery.md, "The 17 cases"). */
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
                    Cluster.Proc again = s.restartAgent("n1");
                    // not the console's state=live: the master has not missed the old agent yet (its timeout is 30 s)
                    await("the restarted agent of n1 registered", () -> again.stdout().contains("registered node=n1 ")
                            || !again.process().isAlive(), again::toString, LONG);
                    t.put("registeredMillis", ms(System.nanoTime() - t0));
                    pids.forEach((slot, pid) -> s.check(survived.get(slot), "online worker " + slot + " (pid " + pid + ", node "
                            + where.get(slot) + ") did not outlive its agent's kill -9"));
                    s.adoptedServicesOf("n1", where, again);
                    s.finished(jm, pids);
                });
    }

    /** The job master killed with -9 and started again by hand with the same command line (docs/recovery.md, "The 17 cases"). */
    public Cases.Outcome jobMasterKill() {
        return run("P3", "AM kill -9 (real processes)", "job master -9 while its services run; started again",
                (s, t) -> {
                    Cluster.Proc jm = s.triangle();
                    Map<Integer, Long> pids = s.serviceRunning();
                    kill9(jm.process().toHandle());
                    long t0 = System.nanoTime();
                    Cluster.Proc again = s.jobMasterAgain();
                    s.check(again.exit(LONG) == 0, "the restarted job master did not finish the batch: " + again);
                    t.put("batchDoneMillis", ms(System.nanoTime() - t0));
                    s.keptServices(again.stdout(), pids);
                    s.finished(again, pids);
                });
    }

    /**
     * A lost job master restarted (docs/recovery.md, "Restarting a lost job master"): a restartable sample job master
     * is frozen (SIGSTOP) past the job master timeout (5 s here); the master fences it and starts it
     * again through an agent; the new one keeps the online workers and finishes the batch; the frozen
     * one, resumed (SIGCONT), is refused as fenced and exits with code 7.
     */
    public Cases.Outcome jobMasterTimeout() {
        return run("P4", "AM timeout, restarted by M (processes)", "restartable job master SIGSTOP past its 5 s timeout; SIGCONT later",
                (s, t) -> {
                    Cluster.Proc jm = s.triangle(List.of(WINDOW, "--config=granary.master:jobMasterTimeoutSeconds=5"),
                            CAPACITY_WITH_ROOM, "--restartable=cpu=50,mem=256");
                    Map<Integer, Long> pids = s.serviceRunning();
                    long t0 = System.nanoTime();
                    signal("STOP", jm.process().pid());
                    Path restarted;
                    try {
                        restarted = startedAgain(s, t, t0);
                        batchDone(restarted, t, t0);
                    } finally {
                        signal("CONT", jm.process().pid());
                    }
                    successorTookOver(s, jm, restarted, pids);
                });
    }

    /**
     * A silent node (docs/recovery.md, "A silent node"): the agent of a node that runs a service is
     * frozen (SIGSTOP; its workers run on) past the agent timeout (5 s here) until the master lists
     * the node lost and the job master was told; then resumed (SIGCONT). It learns it was declared
     * lost, registers again, and its node is live; the service keeps its PID; the tasks that were on
     * the node may run again elsewhere (their runs there are excused), nothing else twice.
     */
    public Cases.Outcome agentStoppedPastItsTimeout() {
        return run("P5", "A timeout: SIGSTOP, SIGCONT (processes)", "agent of a service's node SIGSTOP past its 5 s timeout; SIGCONT",
                (s, t) -> {
                    Cluster.Proc jm = s.triangle(List.of(WINDOW, "--config=granary.master:agentTimeoutSeconds=5"), CAPACITY);
                    Map<Integer, Long> pids = s.serviceRunning();
                    String node = serviceNodes(jm.stdout()).get(0);
                    Cluster.Proc agent = s.agents.get(node);
                    long t0 = System.nanoTime();
                    signal("STOP", agent.process().pid());
                    try {
                        s.cluster.console("granary:agents", "node=" + node + " state=lost");
                        t.put("lostMillis", ms(System.nanoTime() - t0));
                        await("the job master was told node " + node + " is lost", () -> jm.stdout().contains("node node=" + node
                                + " state=lost"), jm::stdout, LONG);
                        s.servicesAlive(pids, "the loss of node " + node);
                    } finally {
                        signal("CONT", agent.process().pid());
                        // runs on the frozen node that began before it woke were the lost node's: they may run again
                        s.lostNodes.put(node, System.currentTimeMillis());
                    }
                    t.put("frozenMillis", ms(System.nanoTime() - t0));
                    s.cluster.console("granary:agents", "node=" + node + " state=live");
                    t.put("liveAgainMillis", ms(System.nanoTime() - t0));
                    String out = agent.stdout();
                    s.check(out.contains("declared-lost "), "the resumed agent of " + node + " did not learn it was declared lost: " + agent);
                    s.check(count(out, "registered node=") >= 2, "the resumed agent of " + node + " did not register again: " + agent);
                    s.check(agent.process().isAlive(), "the resumed agent of " + node + " exited: " + agent);
                    s.finished(jm, pids);
                    // Plans the job master sent to the node while it was lost: work sent nowhere (the agent drops
                    // them when it registers again). The master takes the offline slots back before it says
                    // the node is lost, so there are none (docs/recovery.md, "Real processes").
                    int lostLaunches = launchesWhileLost(jm.stdout(), node);
                    t.put("launchesToTheLostNode", (long) lostLaunches);
                    s.check(lostLaunches == 0, "the job master planned " + lostLaunches + " tasks on " + node
                            + " while it was lost: it was told the node was lost before its slots there were taken back");
                });
    }

    /**
     * The agent rides out its master (docs/recovery.md, "The agent rides out its master"): the master is killed;
     * while it is down, the agent of a node that runs a service is killed too and started again by
     * its supervisor (this scenario). With no master to answer, the new agent adopts its workers and
     * waits: it must not exit and must not stop a worker. Then the master comes back.
     */
    public Cases.Outcome agentRestartedWhileTheMasterIsDown() {
        return run("P6", "M kill -9, A restarted meanwhile (proc.)", "master -9; agent -9 and started again while no master answers; master back",
                (s, t) -> {
                    Cluster.Proc jm = s.triangle();
                    Map<Integer, Long> pids = s.serviceRunning();
                    Map<Integer, String> where = serviceNodes(jm.stdout());
                    String node = where.get(0);
                    kill9(s.cluster.master().process().toHandle());
                    kill9(s.agents.get(node).process().toHandle());
                    long t0 = System.nanoTime();
                    Cluster.Proc again = s.restartAgent(node);
                    await("the restarted agent of " + node + " says no master answers", () -> again.stdout().contains("master-trouble ")
                            || !again.process().isAlive(), again::toString, LONG);
                    t.put("ridingOutMillis", ms(System.nanoTime() - t0));
                    // the master stays away 3 s more: the agent must neither give up nor stop a worker meanwhile
                    Thread.sleep(3000);
                    s.check(again.process().isAlive(), "the agent of " + node + ", started again while no master answered, exited: " + again);
                    s.check(!again.stdout().contains("stopping "), "the agent of " + node + " stopped a worker while no master answered: " + again);
                    s.servicesAlive(pids, "an agent restarted while no master answered");
                    s.adoptedServicesOf(node, where, again);
                    s.cluster.restartMaster(jars.runtime(), WINDOW);
                    s.bothLive();
                    t.put("liveAgainMillis", ms(System.nanoTime() - t0));
                    s.finished(jm, pids);
                });
    }

    /**
     * A torn checkpoint (docs/recovery.md, "A torn checkpoint"): the master and the
     * agent of a node that runs a service are killed with -9; a byte of the agent's
     * {@code caps.checkpoint} is flipped; both start again. The agent moves the file aside, rebuilds
     * its caps from its run records and registers with them; the new master rebuilds from those and
     * keeps the service on that node (same PID, not started again).
     */
    public Cases.Outcome tornAgentCheckpoint() {
        return run("P7", "M -9, A -9 with a torn checkpoint (proc.)", "master and agent -9; a byte of caps.checkpoint flipped; both started again",
                (s, t) -> {
                    Cluster.Proc jm = s.triangle();
                    Map<Integer, Long> pids = s.serviceRunning();
                    Map<Integer, String> where = serviceNodes(jm.stdout());
                    String node = where.get(0);
                    kill9(s.cluster.master().process().toHandle());
                    kill9(s.agents.get(node).process().toHandle());
                    flipLastByte(s.dir.resolve(node).resolve("caps.checkpoint"));
                    s.servicesAlive(pids, "the master's and the agent's kill -9");
                    long t0 = System.nanoTime();
                    s.cluster.restartMaster(jars.runtime(), WINDOW);
                    Cluster.Proc again = s.restartAgent(node);
                    s.bothLive();
                    t.put("liveAgainMillis", ms(System.nanoTime() - t0));
                    String out = again.stdout();
                    s.check(out.contains("checkpoint-corrupt "), "the agent of " + node + " did not report its torn checkpoint: " + again);
                    s.check(out.contains("cap-rebuilt unit=" + JOB + "/service "), "the agent of " + node
                            + " did not rebuild the service's cap from its run records: " + again);
                    s.adoptedServicesOf(node, where, again);
                    s.finished(jm, pids);
                });
    }

    /**
     * The master started again with another secret: agents and the job master get 401 for every
     * call until it is stopped and started once more with the right one. Nobody may exit or stop a
     * worker over it (docs/recovery.md, "The agent rides out its master").
     */
    public Cases.Outcome masterWithAnotherSecret() {
        return run("P8", "M back with another secret: 401s (proc.)", "master -9; back with another secret (401s); -9 again; back with the right one",
                (s, t) -> {
                    Cluster.Proc jm = s.triangle();
                    Map<Integer, Long> pids = s.serviceRunning();
                    kill9(s.cluster.master().process().toHandle());
                    long t0 = System.nanoTime();
                    s.cluster.restartMaster(jars.runtime(), WINDOW, "--secret=" + s.dir.resolve("another.secret"));
                    for (Cluster.Proc a : s.agents.values()) {
                        await(a.name() + " refused (401) by the master with another secret", () -> a.stdout().contains("kind=UNAUTHORIZED")
                                || !a.process().isAlive(), a::toString, LONG);
                    }
                    t.put("refusedMillis", ms(System.nanoTime() - t0));
                    s.agents.values().forEach(a -> s.check(a.process().isAlive(), a.name() + " exited when the master refused its token: " + a));
                    s.check(jm.process().isAlive(), "the job master exited when the master refused its token: " + jm);
                    s.servicesAlive(pids, "the 401s");
                    kill9(s.cluster.master().process().toHandle());
                    s.cluster.restartMaster(jars.runtime(), WINDOW);
                    s.bothLive();
                    t.put("liveAgainMillis", ms(System.nanoTime() - t0));
                    s.finished(jm, pids);
                });
    }

    /** The master and the job master killed with -9 together; both started again (docs/recovery.md, "The 17 cases"). */
    public Cases.Outcome masterAndJobMasterKill() {
        return run("P9", "M + AM kill -9 (real processes)", "master and job master -9 together; both started again",
                (s, t) -> {
                    Cluster.Proc jm = s.triangle();
                    Map<Integer, Long> pids = s.serviceRunning();
                    kill9(s.cluster.master().process().toHandle());
                    kill9(jm.process().toHandle());
                    s.servicesAlive(pids, "the master's and the job master's kill -9");
                    long t0 = System.nanoTime();
                    s.cluster.restartMaster(jars.runtime(), WINDOW);
                    Cluster.Proc again = s.jobMasterAgain();
                    s.bothLive();
                    s.check(again.exit(LONG) == 0, "the restarted job master did not finish the batch: " + again);
                    t.put("batchDoneMillis", ms(System.nanoTime() - t0));
                    s.keptServices(again.stdout(), pids);
                    s.finished(again, pids);
                });
    }

    /**
     * A frozen job master while the master restarts (docs/recovery.md, "The 17 cases"): the job master is frozen (SIGSTOP) and the master killed meanwhile; the
     * new master's window closes without the job master, so the agents' caps make a mock request;
     * the job master stays frozen past the new master's job master timeout (5 s), then is resumed
     * (SIGCONT): its full request replaces the mock, and the batch finishes.
     */
    public Cases.Outcome masterKillWhileTheJobMasterIsStopped() {
        return run("P10", "M -9 while AM stopped past timeout (proc.)", "job master SIGSTOP; master -9, back; 5 s past the AM timeout; SIGCONT",
                (s, t) -> {
                    List<String> master = List.of(WINDOW, "--config=granary.master:jobMasterTimeoutSeconds=5");
                    Cluster.Proc jm = s.triangle(master, CAPACITY_WITH_ROOM);
                    Map<Integer, Long> pids = s.serviceRunning();
                    long t0 = System.nanoTime();
                    signal("STOP", jm.process().pid());
                    try {
                        kill9(s.cluster.master().process().toHandle());
                        s.cluster.restartMaster(jars.runtime(), master.toArray(new String[0]));
                        s.cluster.console("granary:nodes", "n2 ");
                        t.put("rebuiltMillis", ms(System.nanoTime() - t0));
                        s.cluster.console("granary:jobmasters", "state=lost");
                        t.put("lostMillis", ms(System.nanoTime() - t0));
                        s.servicesAlive(pids, "the master's kill -9 while their job master was away");
                    } finally {
                        signal("CONT", jm.process().pid());
                    }
                    s.finished(jm, pids);
                });
    }

    /**
     * The job master and the agent of a service's node killed with -9 together; the agent started again,
     * then the job master (docs/recovery.md, "The 17 cases").
     */
    public Cases.Outcome jobMasterAndAgentKill() {
        return run("P11", "AM + A kill -9 (real processes)", "job master and the agent of a service's node -9; both started again",
                (s, t) -> {
                    Cluster.Proc jm = s.triangle();
                    Map<Integer, Long> pids = s.serviceRunning();
                    Map<Integer, String> where = serviceNodes(jm.stdout());
                    String node = where.get(0);
                    kill9(jm.process().toHandle());
                    kill9(s.agents.get(node).process().toHandle());
                    long t0 = System.nanoTime();
                    Cluster.Proc agent = s.restartAgent(node);
                    Cluster.Proc again = s.jobMasterAgain();
                    await("the restarted agent of " + node + " registered", () -> agent.stdout().contains("registered node=" + node + " ")
                            || !agent.process().isAlive(), agent::toString, LONG);
                    s.servicesAlive(pids, "the kill -9 of their job master and of the agent of " + node);
                    s.adoptedServicesOf(node, where, agent);
                    s.check(again.exit(LONG) == 0, "the restarted job master did not finish the batch: " + again);
                    t.put("batchDoneMillis", ms(System.nanoTime() - t0));
                    s.keptServices(again.stdout(), pids);
                    s.finished(again, pids);
                });
    }

    /**
     * (docs/recovery.md, "The 17 cases") The agent of a service's node frozen past its 5 s timeout; while the master lists
     * it lost, the job master is killed with -9 and started again; then the agent is resumed.
     */
    public Cases.Outcome jobMasterKillWhileAnAgentIsLost() {
        return run("P12", "AM kill -9 while an A is lost (proc.)", "agent SIGSTOP past its 5 s timeout; job master -9, started again; SIGCONT",
                (s, t) -> {
                    Cluster.Proc jm = s.triangle(List.of(WINDOW, "--config=granary.master:agentTimeoutSeconds=5"), CAPACITY);
                    Map<Integer, Long> pids = s.serviceRunning();
                    String node = serviceNodes(jm.stdout()).get(0);
                    Cluster.Proc agent = s.agents.get(node);
                    long t0 = System.nanoTime();
                    Cluster.Proc again;
                    signal("STOP", agent.process().pid());
                    try {
                        s.cluster.console("granary:agents", "node=" + node + " state=lost");
                        t.put("lostMillis", ms(System.nanoTime() - t0));
                        kill9(jm.process().toHandle());
                        again = s.jobMasterAgain();
                        await("the restarted job master sent its job", () -> again.stdout().contains("submitted job=")
                                || !again.process().isAlive(), again::toString, LONG);
                        s.servicesAlive(pids, "their job master's kill -9 while node " + node + " was lost");
                    } finally {
                        signal("CONT", agent.process().pid());
                        s.lostNodes.put(node, System.currentTimeMillis());
                    }
                    s.cluster.console("granary:agents", "node=" + node + " state=live");
                    t.put("liveAgainMillis", ms(System.nanoTime() - t0));
                    s.check(again.exit(LONG) == 0, "the restarted job master did not finish the batch: " + again);
                    s.keptServices(again.stdout(), pids);
                    s.finished(again, pids);
                });
    }

    /**
     * (docs/recovery.md, "The 17 cases") A restartable job master frozen past its 5 s timeout while the agent of a
     * service's node is killed with -9 and started again; the master starts the job master again.
     */
    public Cases.Outcome jobMasterTimeoutWhileAnAgentRestarts() {
        return run("P13", "AM timeout while an A restarts (proc.)", "job master SIGSTOP past its 5 s timeout; agent -9, started again; SIGCONT later",
                (s, t) -> {
                    Cluster.Proc jm = s.triangle(List.of(WINDOW, "--config=granary.master:jobMasterTimeoutSeconds=5"),
                            CAPACITY_WITH_ROOM, "--restartable=cpu=50,mem=256");
                    Map<Integer, Long> pids = s.serviceRunning();
                    Map<Integer, String> where = serviceNodes(jm.stdout());
                    String node = where.get(0);
                    long t0 = System.nanoTime();
                    signal("STOP", jm.process().pid());
                    Path restarted;
                    try {
                        kill9(s.agents.get(node).process().toHandle());
                        Cluster.Proc agent = s.restartAgent(node);
                        await("the restarted agent of " + node + " registered", () -> agent.stdout().contains("registered node=" + node + " ")
                                || !agent.process().isAlive(), agent::toString, LONG);
                        s.adoptedServicesOf(node, where, agent);
                        restarted = startedAgain(s, t, t0);
                        batchDone(restarted, t, t0);
                    } finally {
                        signal("CONT", jm.process().pid());
                    }
                    successorTookOver(s, jm, restarted, pids);
                });
    }

    /**
     * (docs/recovery.md, "The 17 cases") The agent of a service's node frozen past its 5 s timeout; once its node is lost,
     * the restartable job master is frozen past its own; the master starts the job master again on
     * the other node. The agent is resumed once the new job master runs, the old one after the batch.
     */
    public Cases.Outcome jobMasterAndAgentTimeout() {
        return run("P14", "AM timeout + A timeout (processes)", "agent SIGSTOP past its timeout, then job master SIGSTOP past its own; SIGCONT both",
                (s, t) -> {
                    Cluster.Proc jm = s.triangle(List.of(WINDOW, "--config=granary.master:jobMasterTimeoutSeconds=5,agentTimeoutSeconds=5"),
                            CAPACITY_WITH_ROOM, "--restartable=cpu=50,mem=256");
                    Map<Integer, Long> pids = s.serviceRunning();
                    String node = serviceNodes(jm.stdout()).get(0);
                    Cluster.Proc agent = s.agents.get(node);
                    long t0 = System.nanoTime();
                    Path restarted;
                    signal("STOP", agent.process().pid());
                    try {
                        s.cluster.console("granary:agents", "node=" + node + " state=lost");
                        t.put("lostMillis", ms(System.nanoTime() - t0));
                        signal("STOP", jm.process().pid());
                        try {
                            restarted = startedAgain(s, t, t0);
                            s.servicesAlive(pids, "the loss of node " + node + " and of their job master");
                            signal("CONT", agent.process().pid());
                            s.lostNodes.put(node, System.currentTimeMillis());
                            s.cluster.console("granary:agents", "node=" + node + " state=live");
                            t.put("liveAgainMillis", ms(System.nanoTime() - t0));
                            batchDone(restarted, t, t0);
                        } finally {
                            signal("CONT", jm.process().pid());
                        }
                    } finally {
                        signal("CONT", agent.process().pid());
                        s.lostNodes.putIfAbsent(node, System.currentTimeMillis());
                    }
                    s.check(agent.process().isAlive(), "the resumed agent of " + node + " exited: " + agent);
                    successorTookOver(s, jm, restarted, pids);
                });
    }

    /**
     * (docs/recovery.md, "The 17 cases") The agent of a service's node frozen; the master killed with -9 and started
     * again; its window closes without that agent, so the job master's holdings keep the service's
     * slot on the node; the agent, resumed, registers and takes it back (the service is not started
     * again anywhere).
     */
    public Cases.Outcome masterKillWhileAnAgentIsStopped() {
        return run("P15", "M -9 while an A is stopped (processes)", "agent SIGSTOP; master -9, back; its window closes without the agent; SIGCONT",
                (s, t) -> masterBackWithoutAnAgent(s, t, false));
    }

    /**
     * As {@link #masterKillWhileAnAgentIsStopped}, and the job master killed with -9 with the master and started
     * again (its holdings from disk) (docs/recovery.md, "The 17 cases").
     */
    public Cases.Outcome masterAndJobMasterKillWhileAnAgentIsStopped() {
        return run("P16", "M + AM -9 while an A is stopped (proc.)", "agent SIGSTOP; master and job master -9, both back; window closes; SIGCONT",
                (s, t) -> masterBackWithoutAnAgent(s, t, true));
    }

    private void masterBackWithoutAnAgent(Scenario s, Map<String, Long> t, boolean jobMasterToo) throws Exception {
        List<String> master = List.of(WINDOW, "--config=granary.master:agentTimeoutSeconds=5");
        Cluster.Proc jm = s.triangle(master, CAPACITY);
        Map<Integer, Long> pids = s.serviceRunning();
        Map<Integer, String> where = serviceNodes(jm.stdout());
        String node = where.get(0);
        String other = node.equals("n1") ? "n2" : "n1";
        Cluster.Proc agent = s.agents.get(node);
        long t0 = System.nanoTime();
        signal("STOP", agent.process().pid());
        try {
            kill9(s.cluster.master().process().toHandle());
            if (jobMasterToo) {
                kill9(jm.process().toHandle());
            }
            s.cluster.restartMaster(jars.runtime(), master.toArray(new String[0]));
            if (jobMasterToo) {
                jm = s.jobMasterAgain();
            }
            // the rebuild lists the nodes that reported; the frozen one stays out past the window
            s.cluster.console("granary:nodes", other + " ");
            t.put("rebuiltMillis", ms(System.nanoTime() - t0));
            Thread.sleep(2000); // the agent stays frozen past the window: the rows play real time, no clock to advance
            s.servicesAlive(pids, "the master's kill -9 while the agent of " + node + " was stopped");
        } finally {
            signal("CONT", agent.process().pid());
            s.lostNodes.put(node, System.currentTimeMillis());
        }
        s.bothLive();
        t.put("liveAgainMillis", ms(System.nanoTime() - t0));
        s.check(agent.process().isAlive(), "the resumed agent of " + node + " exited: " + agent);
        if (jobMasterToo) {
            Cluster.Proc again = jm;
            s.check(again.exit(LONG) == 0, "the restarted job master did not finish the batch: " + again);
            s.keptServices(again.stdout(), pids);
        }
        s.finished(jm, pids);
    }

    /**
     * (docs/recovery.md, "The 17 cases") The job master and the agent of a service's node frozen; the master killed with
     * -9 and started again; its window closes without either; past the job master timeout (5 s) the
     * job master is resumed first, then the agent (17a: the job master's holdings keep the agent's
     * service slot until it returns).
     */
    public Cases.Outcome masterKillWhileTheJobMasterAndAnAgentAreStopped() {
        return run("P17", "M -9 while AM and an A stopped (proc.)", "job master and agent SIGSTOP; master -9, back; AM timeout; SIGCONT AM, then A",
                (s, t) -> {
                    List<String> master = List.of(WINDOW, "--config=granary.master:jobMasterTimeoutSeconds=5,agentTimeoutSeconds=5");
                    Cluster.Proc jm = s.triangle(master, CAPACITY_WITH_ROOM);
                    Map<Integer, Long> pids = s.serviceRunning();
                    String node = serviceNodes(jm.stdout()).get(0);
                    String other = node.equals("n1") ? "n2" : "n1";
                    Cluster.Proc agent = s.agents.get(node);
                    long t0 = System.nanoTime();
                    signal("STOP", agent.process().pid());
                    try {
                        signal("STOP", jm.process().pid());
                        try {
                            kill9(s.cluster.master().process().toHandle());
                            s.cluster.restartMaster(jars.runtime(), master.toArray(new String[0]));
                            s.cluster.console("granary:nodes", other + " ");
                            t.put("rebuiltMillis", ms(System.nanoTime() - t0));
                            // the window closed without either; the job master stays away past its 5 s timeout
                            Thread.sleep(6000);
                            s.servicesAlive(pids, "the master's kill -9 while their job master and the agent of " + node + " were stopped");
                        } finally {
                            signal("CONT", jm.process().pid());
                        }
                        s.cluster.console("granary:jobmasters", "id=jm-" + JOB + " state=live");
                        t.put("jobMasterBackMillis", ms(System.nanoTime() - t0));
                    } finally {
                        signal("CONT", agent.process().pid());
                        s.lostNodes.put(node, System.currentTimeMillis());
                    }
                    s.bothLive();
                    t.put("liveAgainMillis", ms(System.nanoTime() - t0));
                    s.check(agent.process().isAlive(), "the resumed agent of " + node + " exited: " + agent);
                    s.finished(jm, pids);
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
            // absolute: the processes start in it, and get paths into it on their command lines
            s = new Scenario(emptyDirectory(work.toAbsolutePath().normalize().resolve(id)), timings, jars);
        } catch (IOException ex) {
            return new Cases.Outcome(id, title, injected, List.of("cannot create its directory: " + ex), List.of(), timings);
        }
        long t0 = System.nanoTime();
        current = s;
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
            current = null;
        }
        timings.put("millis", ms(System.nanoTime() - t0));
        log.printf("%s %s: %s; load %s; logs in %s%n", id, s.violations.isEmpty() ? "held" : "broken", timings, load(), s.dir);
        return new Cases.Outcome(id, title, injected, List.copyOf(s.violations), List.of(), timings);
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

    /** The job master the master started again (case 3), once an agent started it: its log; {@code startedMillis}. */
    private static Path startedAgain(Scenario s, Map<String, Long> t, long t0) throws InterruptedException {
        // Not the console's state=restarting: on a quiet machine the restart can run the batch
        // to its end between two polls. The agent's log of the process it started is the proof.
        await("an agent started the job master again", () -> s.restartLog() != null, () -> s.dir, LONG);
        t.put("startedMillis", ms(System.nanoTime() - t0));
        return s.restartLog();
    }

    /** The restarted job master (its log {@code restarted}) finished the batch; {@code batchDoneMillis}. */
    private static void batchDone(Path restarted, Map<String, Long> t, long t0) throws InterruptedException {
        await("the restarted job master finished the batch", () -> read(restarted).contains("released job=" + JOB),
                () -> read(restarted), LONG);
        t.put("batchDoneMillis", ms(System.nanoTime() - t0));
    }

    /** The frozen job master {@code old}, resumed, stopped for its successor; the successor kept the services and ended the job cleanly. */
    private static void successorTookOver(Scenario s, Cluster.Proc old, Path restarted, Map<Integer, Long> pids) throws InterruptedException {
        int code = old.exit(LONG);
        s.check(stoppedForItsSuccessor(code, old), "the resumed job master was not fenced (exit " + code + "): " + old);
        s.keptServices(read(restarted), pids);
        s.clean(pids, read(restarted));
    }

    /**
     * A job master resumed after its successor took over stops with code 7: refused by the master
     * as fenced, or first finding that its successor writes its progress (docs: jobmaster README).
     */
    private static boolean stoppedForItsSuccessor(int code, Cluster.Proc jm) {
        String out = jm.stdout();
        return code == 7 && (out.contains("fenced ") || out.contains("superseded "));
    }

    /** Slot → node of each online worker the job master launched or adopted, from its output. */
    private static Map<Integer, String> serviceNodes(String out) {
        Map<Integer, String> m = new TreeMap<>();
        Matcher x = Pattern.compile("(?m)^(?:launched|adopted) service=(\\d+) node=(\\S+)").matcher(out);
        while (x.find()) {
            m.put(Integer.parseInt(x.group(1)), x.group(2));
        }
        return m;
    }

    /** How many tasks the job master launched on {@code node} between being told it was lost and that it was back. */
    private static int launchesWhileLost(String out, String node) {
        int from = out.indexOf("node node=" + node + " state=lost");
        if (from < 0) {
            return 0;
        }
        int to = out.indexOf("node node=" + node + " state=back", from);
        Matcher m = Pattern.compile("(?m)^launched task=\\d+ node=" + Pattern.quote(node) + " slot=")
                .matcher(out.substring(from, to < 0 ? out.length() : to));
        int n = 0;
        while (m.find()) {
            n++;
        }
        return n;
    }

    /** Flips the last byte of {@code file}: a checkpoint torn or changed on disk. */
    private static void flipLastByte(Path file) throws IOException {
        byte[] b = Files.readAllBytes(file);
        if (b.length == 0) {
            throw new ProcessFailure(file + " is empty: there is no checkpoint to tear");
        }
        b[b.length - 1] ^= 0x5a;
        Files.write(file, b);
    }

    private static int count(String text, String what) {
        int n = 0;
        for (int i = text.indexOf(what); i >= 0; i = text.indexOf(what, i + 1)) {
            n++;
        }
        return n;
    }

    private static String read(Path p) {
        try {
            return p == null ? "" : Files.readString(p);
        } catch (IOException ex) {
            return "";
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

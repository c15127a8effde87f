package granary.launcher;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import granary.conformance.Cases;
import granary.conformance.kit.processes.Cluster;
import granary.conformance.kit.processes.ProcessScenarios;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Issues 12 and 21, real processes (docs/recovery.md, "Real processes"): seven of the conformance
 * kit's real-process scenarios ({@code --processes}, rows P1–P7) against this module's runnable jar —
 * a master, two agents and the sample job master with two online workers and a batch of 12 tasks;
 * the master, an agent or the job master is killed with -9 or frozen past its timeout, an agent is
 * started again while no master answers or with a torn checkpoint, and what must hold is checked on
 * the OS: online workers keep their PIDs, no task runs twice, no worker outlives its job. Rows P8–P17
 * run in the kit only (the suite's time). Felix run only: the recovery code is the same bundles in
 * both runtimes, and each scenario takes 15–30 s. The processes' output is kept in
 * target/failover-logs/P1..P7.
 */
class FailoverIT {

    private ProcessScenarios scenarios;

    @BeforeEach
    void felixOnly() throws IOException {
        Assumptions.assumeTrue(It.framework().equals("felix"), "the failover scenarios run once, on the Felix runtime");
        Path logs = Files.createDirectories(It.target().resolve("failover-logs"));
        scenarios = new ProcessScenarios(new ProcessScenarios.Jars(It.runnableJar(), Cluster.AGENT_JAR, Cluster.JOB_MASTER_JAR),
                logs, System.out);
    }

    @Test
    void killingTheMasterKeepsOnlineWorkersRunningAndTheBatchFinishes() {
        held(scenarios.masterKill());
    }

    @Test
    void killingAnAgentLeavesItsWorkersToTheOsAndItsReturnWithTheCheckpoint() {
        held(scenarios.agentKill());
    }

    @Test
    void killingTheJobMasterKeepsItsOnlineWorkersAndARestartFinishesTheBatch() {
        held(scenarios.jobMasterKill());
    }

    /** Spec case 3: a restartable job master frozen past its timeout is started again by the master; the old one is fenced. */
    @Test
    void aRestartableJobMasterStoppedPastItsTimeoutIsStartedAgainByTheMasterAndTheOldOneIsFenced() {
        held(scenarios.jobMasterTimeout());
    }

    /** Spec case 5: an agent frozen past the agent timeout is declared lost, resumes, registers again; its service keeps its PID. */
    @Test
    void anAgentStoppedPastItsTimeoutIsDeclaredLostAndRegistersAgainWithItsServiceRunning() {
        held(scenarios.agentStoppedPastItsTimeout());
    }

    /** Spec cases 12 and 14: an agent started again while no master answers neither exits nor stops a worker. */
    @Test
    void anAgentStartedAgainWhileTheMasterIsDownRidesItOutWithItsWorkers() {
        held(scenarios.agentRestartedWhileTheMasterIsDown());
    }

    /** Spec case 12 with a torn checkpoint: the agent rebuilds its caps from its run records; the new master keeps the service there. */
    @Test
    void anAgentWithATornCheckpointRebuildsItsCapsAndKeepsItsService() {
        held(scenarios.tornAgentCheckpoint());
    }

    private static void held(Cases.Outcome o) {
        System.out.println("FAILOVER " + o.id() + " " + o.title() + ": " + o.counters());
        assertTrue(o.passed(), o.id() + " " + o.title() + ":\n" + String.join("\n", o.violations()));
    }
}

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
 * Issue 12, real processes (docs/recovery.md, "Real processes"): the conformance kit's four
 * real-process scenarios ({@code --processes}, rows P1–P4) against this module's runnable jar — a
 * master, two agents and the sample job master with two online workers and a batch; the master, an
 * agent or the job master is killed with -9 and started again, and online workers are checked by
 * their OS PIDs. Felix run only: the recovery code is the same bundles in both runtimes, and each
 * scenario takes about a minute on a loaded machine. The processes' output is kept in
 * target/failover-logs/P1..P3.
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

    private static void held(Cases.Outcome o) {
        System.out.println("FAILOVER " + o.id() + " " + o.title() + ": " + o.counters());
        assertTrue(o.passed(), o.id() + " " + o.title() + ":\n" + String.join("\n", o.violations()));
    }
}

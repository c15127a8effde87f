package granary.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;
import granary.conformance.kit.processes.Cluster;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Master high availability with real processes (docs/ha.md): a ZooKeeper server in this JVM, two
 * master processes of cluster "it" and one agent process given both masters. Three times: kill -9
 * the leader, the standby takes over with a larger epoch, the agent registers with it; the killed
 * master is started again as the new standby. Prints each takeover time (kill to a registration
 * the new leader accepted) and their median. Waits are bounded; nothing is timed in an assertion.
 */
class MasterFailoverIT {


    @TempDir
    Path dir;
    private Cluster cluster;
    private TestingServer zk;

    @AfterEach
    void stop() throws IOException {
        if (cluster != null) {
            cluster.close(); // every master and agent, by PID
        }
        if (zk != null) {
            zk.close();
        }
    }

    @Test
    void whenTheLeaderIsKilledTheStandbyLeadsAndTheAgentRegistersWithIt() throws Exception {
        // ticks of 200 ms: ZooKeeper grants the 2 s sessions the masters ask for
        zk = new TestingServer(new InstanceSpec(dir.resolve("zk").toFile(), -1, -1, -1, true, -1, 200, -1, Map.of(), "127.0.0.1"), true);
        cluster = new Cluster(dir);
        java.nio.file.Path agentToken = cluster.token("agent/n1"); // also creates the secret both masters share
        int[] ports = {HaMasters.freePort(), HaMasters.freePort()};
        String[] urls = {"http://127.0.0.1:" + ports[0], "http://127.0.0.1:" + ports[1]};
        Cluster.Proc[] masters = {HaMasters.start(cluster, dir, zk.getConnectString(), 0, ports, urls), null};
        int leader = 0;
        long epoch = HaMasters.awaitEpoch(masters[0], 0);
        masters[1] = HaMasters.start(cluster, dir, zk.getConnectString(), 1, ports, urls);
        HaMasters.awaitStandby("master 1 serves as a standby", masters[1]);
        // the standby first in the list: the agent follows its pointer to the leader
        Cluster.Proc agent = cluster.start("agent n1", Cluster.AGENT_JAR, List.of("--master=" + urls[1] + "," + urls[0],
                "--node=n1", "--room=r1", "--capacity=cpu=400,mem=4096", "--token-file=" + agentToken,
                "--work-dir=" + dir.resolve("n1"), "--work-roots=" + dir, "--heartbeat=200ms"));
        HaMasters.await("the agent registers with the leader", () -> registrations(agent, urls[0]) == 1, agent);
        // load through the failovers: the sample job master runs a batch on the agent, given both masters
        Cluster.Proc jm = cluster.start("job master ha", Cluster.JOB_MASTER_JAR, List.of("--master=" + urls[1] + "," + urls[0],
                "--token-file=" + cluster.token("job-master/jm-ha"), "--job=ha", "--tasks=60", "--slot=cpu=100,mem=256",
                "--command=sleep 1", "--patience=120", "--timeout=240", "--workdir=" + dir));
        HaMasters.await("the job master's batch runs", () -> jm.stdout().contains("finished task="), jm);

        List<Long> takeovers = new ArrayList<>();
        List<Long> recoveries = new ArrayList<>();
        for (int round = 1; round <= 3; round++) {
            int standby = 1 - leader;
            int before = registrations(agent, urls[standby]);
            long killed = System.nanoTime();
            masters[leader].process().destroyForcibly(); // SIGKILL: no step-down, the session just expires
            masters[leader].process().waitFor();
            Cluster.Proc next = masters[standby];
            HaMasters.await("the agent registers with the new leader " + urls[standby],
                    () -> registrations(agent, urls[standby]) > before, agent);
            long ms = (System.nanoTime() - killed) / 1_000_000;
            long newEpoch = HaMasters.awaitEpoch(next, epoch);
            assertTrue(newEpoch > epoch, "epoch " + newEpoch + " after " + epoch);
            // full recovery: the new leader's window closed and it rebuilt (its recovery state metric says serving)
            HaMasters.await("the new leader " + urls[standby] + " serves (recovery window closed, rebuilt)", () -> HaMasters.serving(urls[standby]), next);
            long full = (System.nanoTime() - killed) / 1_000_000;
            System.out.println("granary-ha takeover round " + round + ": " + ms + " ms (leader killed -> new leader "
                    + urls[standby] + " accepted the agent's registration; epoch " + epoch + " -> " + newEpoch + "), "
                    + full + " ms to full recovery (its window closed, rebuilt)");
            takeovers.add(ms);
            recoveries.add(full);
            epoch = newEpoch;
            masters[leader] = HaMasters.start(cluster, dir, zk.getConnectString(), leader, ports, urls); // back as the standby, with empty memory
            Cluster.Proc restarted = masters[leader];
            HaMasters.awaitStandby("the killed master comes back as a standby", restarted);
            leader = standby;
        }
        List<Long> sorted = new ArrayList<>(takeovers);
        sorted.sort(null);
        System.out.println("granary-ha takeover times " + takeovers + " ms; median " + sorted.get(sorted.size() / 2)
                + " ms (ZooKeeper session timeout 2000 ms)");
        List<Long> fullSorted = new ArrayList<>(recoveries);
        fullSorted.sort(null);
        System.out.println("granary-ha full recovery times " + recoveries + " ms; median " + fullSorted.get(fullSorted.size() / 2)
                + " ms (default window: closes once every peer reported and 2 s passed; a batch running throughout)");
        assertTrue(agent.process().isAlive(), "the agent kept running through every failover: " + agent);
        assertEquals(0, jm.exit(Duration.ofSeconds(180)), "the batch finished through three failovers of the leader: " + jm);
    }

    /**
     * The step-down as a process (docs/ha.md, "Step-down"): a leader that loses ZooKeeper stops
     * serving and halts with exit code 75, so that a supervisor starts a fresh standby.
     */
    @Test
    void aLeaderThatLosesZooKeeperHaltsWithExitCode75() throws Exception {
        zk = new TestingServer(new InstanceSpec(dir.resolve("zk").toFile(), -1, -1, -1, true, -1, 200, -1, Map.of(), "127.0.0.1"), true);
        cluster = new Cluster(dir);
        cluster.token("agent/n1"); // creates the secret
        int[] ports = {HaMasters.freePort()};
        String[] urls = {"http://127.0.0.1:" + ports[0]};
        Cluster.Proc master = HaMasters.start(cluster, dir, zk.getConnectString(), 0, ports, urls);
        HaMasters.awaitEpoch(master, 0);
        zk.stop();   // the ensemble goes away: the leader's connection is suspended, then lost
        assertTrue(master.process().waitFor(HaMasters.BOUND.toSeconds(), java.util.concurrent.TimeUnit.SECONDS),
                "the leader halted after losing ZooKeeper: " + master);
        assertEquals(75, master.process().exitValue(), master.toString());
        assertTrue(master.stderr().contains("stepped down as leader of cluster it") && master.stderr().contains("exiting with code 75"),
                master.stderr());
    }

    private static int registrations(Cluster.Proc agent, String url) {
        String out = agent.stdout();
        int n = 0;
        for (int at = out.indexOf("registered node=n1 master=" + url + " "); at >= 0;
             at = out.indexOf("registered node=n1 master=" + url + " ", at + 1)) {
            n++;
        }
        return n;
    }
}

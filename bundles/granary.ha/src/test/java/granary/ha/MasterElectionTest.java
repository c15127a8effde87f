package granary.ha;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Elections against a real ZooKeeper server in this JVM (Curator's TestingServer on loopback). */
class MasterElectionTest {

    private static final Duration BOUND = Duration.ofSeconds(30);

    private TestingServer zk;
    private final List<MasterElection> elections = new ArrayList<>();

    /** The server's data (and the configuration file it writes) stay in here, not in java.io.tmpdir. */
    @TempDir
    Path dir;

    @BeforeEach
    void startZooKeeper() throws Exception {
        zk = ZooKeeperFixture.start(dir.resolve("zk").toFile());
    }

    @AfterEach
    void stop() throws Exception {
        for (MasterElection e : elections) {
            e.close();
        }
        zk.close();
    }

    private MasterElection election(String cluster, int port, ZooKeeperFixture.Recorder r, long clock) throws Exception {
        MasterElection e = new MasterElection(ZooKeeperFixture.settings(zk, cluster, port), r, () -> clock);
        elections.add(e);
        e.start();
        return e;
    }

    @Test
    void oneOfTwoMastersLeadsAndPublishesItsUrlAndEpoch() throws Exception {
        ZooKeeperFixture.Recorder ra = new ZooKeeperFixture.Recorder();
        ZooKeeperFixture.Recorder rb = new ZooKeeperFixture.Recorder();
        MasterElection a = election("c1", 7001, ra, 1_000);
        String first = ra.next(BOUND);
        MasterElection b = election("c1", 7002, rb, 1_000);
        assertEquals("elected 1000", first, "the first master to enter leads, with epoch max(now, 1)");
        assertNull(rb.next(Duration.ofMillis(500)), "the second master stays a standby");
        assertTrue(a.isLeader());
        assertFalse(b.isLeader());
        Optional<LeaderInfo> seen = waitForLeader(b, 1_000);
        assertEquals(new LeaderInfo(URI.create("http://127.0.0.1:7001"), 1_000), seen.orElseThrow(),
                "the standby sees the leader's URL and epoch");
    }

    @Test
    void everyNewLeaderHasALargerEpochThanEveryEarlierOne() throws Exception {
        // a clock that stands still: epochs must still grow (last + 1) ...
        long previous = 0;
        for (int i = 0; i < 3; i++) {
            ZooKeeperFixture.Recorder r = new ZooKeeperFixture.Recorder();
            MasterElection e = election("c2", 7100 + i, r, 50);
            String ev = r.next(BOUND);
            assertNotNull(ev, "master " + i + " was not elected within " + BOUND);
            long epoch = Long.parseLong(ev.substring("elected ".length()));
            assertTrue(epoch > previous, "epoch " + epoch + " after " + previous);
            previous = epoch;
            e.close();
        }
        assertEquals(52, previous, "50, 51, 52: one more each time the clock does not move");
        // ... and a clock ahead of the counter wins: the epoch is at least the wall clock
        ZooKeeperFixture.Recorder r = new ZooKeeperFixture.Recorder();
        election("c2", 7199, r, 1_700_000_000_000L);
        assertEquals("elected 1700000000000", r.next(BOUND));
    }

    @Test
    void theStandbyTakesOverWithALargerEpochWhenTheLeaderLeaves() throws Exception {
        ZooKeeperFixture.Recorder ra = new ZooKeeperFixture.Recorder();
        ZooKeeperFixture.Recorder rb = new ZooKeeperFixture.Recorder();
        AtomicLong clock = new AtomicLong(10);
        MasterElection a = new MasterElection(ZooKeeperFixture.settings(zk, "c3", 7201), ra, clock::get);
        elections.add(a);
        a.start();
        assertEquals("elected 10", ra.next(BOUND));
        MasterElection b = new MasterElection(ZooKeeperFixture.settings(zk, "c3", 7202), rb, clock::get);
        elections.add(b);
        b.start();
        a.close(); // the leader's session ends: its latch node and leader znode go
        assertEquals("elected 11", rb.next(BOUND), "the standby leads with the next epoch");
        assertEquals(new LeaderInfo(URI.create("http://127.0.0.1:7202"), 11), waitForLeader(b, 11).orElseThrow());
    }

    @Test
    void losingTheZooKeeperConnectionDeposesTheLeaderOnceAndAStandbyLeadsWithALargerEpoch() throws Exception {
        ZooKeeperFixture.Recorder ra = new ZooKeeperFixture.Recorder();
        MasterElection a = election("c4", 7301, ra, 5);
        assertEquals("elected 5", ra.next(BOUND));
        assertTrue(waitForLeader(a, 5).isPresent(), "the leader published itself");
        zk.stop(); // the ensemble is gone: the connection is SUSPENDED at once
        String ev = ra.next(BOUND);
        assertNotNull(ev, "the leader was not deposed within " + BOUND);
        assertTrue(ev.startsWith("deposed ZooKeeper at " + zk.getConnectString() + " has not answered for "),
                "a ZooKeeper outage is named as such, not as another master's leadership: " + ev);
        assertFalse(a.lease().held(), "the deposed leader's lease is revoked");
        assertFalse(a.isLeader(), "a deposed master no longer leads");
        zk.restart();
        assertNull(ra.next(Duration.ofSeconds(3)), "a deposed master is never elected again by the same election");
        ZooKeeperFixture.Recorder rb = new ZooKeeperFixture.Recorder();
        MasterElection b = election("c4", 7302, rb, 5);
        assertEquals("elected 6", rb.next(BOUND), "the next leader's epoch is larger than the deposed one's");
        assertEquals(6, b.currentEpoch());
        assertTrue(a.epoch() < b.currentEpoch(), "fencing: the deposed leader's epoch is below the current one");
    }

    @Test
    void clustersAreSeparate() throws Exception {
        ZooKeeperFixture.Recorder ra = new ZooKeeperFixture.Recorder();
        ZooKeeperFixture.Recorder rb = new ZooKeeperFixture.Recorder();
        election("east", 7401, ra, 100);
        election("west", 7402, rb, 100);
        assertEquals("elected 100", ra.next(BOUND));
        assertEquals("elected 100", rb.next(BOUND), "each cluster has its own leader and its own epoch counter");
    }

    @Test
    void badSettingsSayWhatIsWrong() {
        URI url = URI.create("http://127.0.0.1:7070");
        assertEquals("ZooKeeper connect string 'zk1': 'zk1' is not host:port",
                assertThrows(IllegalArgumentException.class, () -> HaSettings.of("zk1", "c", url)).getMessage());
        assertTrue(assertThrows(IllegalArgumentException.class, () -> HaSettings.of("zk1:2181", "a/b", url))
                .getMessage().startsWith("HA cluster name 'a/b': expected"));
        assertTrue(assertThrows(IllegalArgumentException.class,
                () -> HaSettings.of("zk1:2181", "c", URI.create("http://host"))).getMessage()
                .startsWith("advertised URL 'http://host': expected http://HOST:PORT"));
    }

    private static Optional<LeaderInfo> waitForLeader(MasterElection e, long epoch) throws InterruptedException {
        long end = System.nanoTime() + BOUND.toNanos();
        while (System.nanoTime() < end) {
            Optional<LeaderInfo> l = e.leader();
            if (l.isPresent() && l.get().epoch() == epoch) {
                return l;
            }
            Thread.sleep(20); // the leader znode reaches the watched cache asynchronously
        }
        return e.leader();
    }
}

package granary.ha;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The lease against a real ZooKeeper server in this JVM (docs/ha.md, "The lease"). The leader
 * reaches the server through a {@link SilentProxy}; the standby reaches it directly. When the
 * proxy falls silent the server keeps running and expires the leader's session one session
 * timeout after the last of its requests arrived: the leader's lease must be gone before then,
 * and its step-down must name ZooKeeper.
 */
class LeaseOnZooKeeperTest {

    private static final Duration BOUND = Duration.ofSeconds(30);
    private static final Duration SESSION = Duration.ofSeconds(2);

    @TempDir
    Path dir;
    private TestingServer zk;
    private SilentProxy proxy;
    private final List<MasterElection> elections = new ArrayList<>();

    @AfterEach
    void stop() throws Exception {
        for (MasterElection e : elections) {
            e.close();
        }
        if (proxy != null) {
            proxy.close();
        }
        if (zk != null) {
            zk.close();
        }
    }

    private MasterElection election(String connect, int port, ZooKeeperFixture.Recorder r) throws Exception {
        HaSettings s = new HaSettings(connect, "lease", URI.create("http://127.0.0.1:" + port), SESSION, Duration.ofSeconds(1));
        MasterElection e = new MasterElection(s, r, () -> 100);
        elections.add(e);
        e.start();
        return e;
    }

    @Test
    void aLeaderCutOffFromZooKeeperLosesItsLeaseBeforeItsSessionCanExpireAndNamesZooKeeper() throws Exception {
        zk = ZooKeeperFixture.start(dir.resolve("zk").toFile());
        proxy = new SilentProxy(zk.getPort());
        ZooKeeperFixture.Recorder ra = new ZooKeeperFixture.Recorder();
        ZooKeeperFixture.Recorder rb = new ZooKeeperFixture.Recorder();
        MasterElection a = election(proxy.connectString(), 7501, ra);
        assertEquals("elected 100", ra.next(BOUND));
        assertTrue(a.lease().held(), "the leader holds its lease once elected: " + a.lease().why());
        MasterElection b = election(zk.getConnectString(), 7502, rb);
        // longer than a lease lasts unrenewed (2000 - 500 ms): still held only because round trips renew it
        Thread.sleep(SESSION.toMillis());
        assertTrue(a.lease().held(), "renewed while ZooKeeper answers: " + a.lease().why());
        assertFalse(b.lease().held(), "a standby holds no lease");

        proxy.fallSilent();
        long last = proxy.lastForwardedToServer();
        // No request of the leader reaches the server after 'last', so the server cannot expire its
        // session before last + session timeout. Check the lease between the two, at last + 7/8 of it.
        long checkAt = last + SESSION.toNanos() - a.settings().leaseMargin().toNanos() / 2;
        while (System.nanoTime() - checkAt < 0) {
            Thread.sleep(Math.max(1, (checkAt - System.nanoTime()) / 1_000_000));
        }
        long checked = System.nanoTime();
        boolean held = a.lease().held();
        String why = a.lease().why();
        assertFalse(held, "the lease still held " + (checked - last) / 1_000_000 + " ms after the leader's last request reached"
                + " ZooKeeper, with a session timeout of " + SESSION.toMillis() + " ms");
        assertTrue(why.contains("ZooKeeper at " + proxy.connectString() + " has not answered for"), why);

        String deposed = ra.next(BOUND);
        assertNotNull(deposed, "the leader was not deposed within " + BOUND);
        assertTrue(deposed.startsWith("deposed ZooKeeper at " + proxy.connectString() + " has not answered for"), deposed);
        assertFalse(deposed.contains("another master"), deposed);
        String elected = rb.next(BOUND);
        long takeover = System.nanoTime();
        assertEquals("elected 101", elected, "the standby leads once the server expired the cut-off leader's session");
        System.out.println("granary-ha lease: checked " + (checked - last) / 1_000_000 + " ms after the leader's last request"
                + " reached ZooKeeper: not held (" + why + "); the standby was elected "
                + (takeover - last) / 1_000_000 + " ms after it; the leader's step-down: " + deposed);
    }
}

package granary.ha;

import java.net.URI;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;

/** An in-process ZooKeeper on a free loopback port, and a recording {@link Leadership}. */
final class ZooKeeperFixture {

    private ZooKeeperFixture() {
    }

    /**
     * A ZooKeeper server on 127.0.0.1, a free port, tick 200 ms (sessions of 1 s and up are allowed),
     * its data in {@code dir}: a test's temporary directory (without one the server leaves a
     * configuration file in java.io.tmpdir).
     */
    static TestingServer start(java.io.File dir) throws Exception {
        InstanceSpec spec = new InstanceSpec(dir, -1, -1, -1, true, -1, 200, -1, Map.of(), "127.0.0.1");
        return new TestingServer(spec, true);
    }

    static HaSettings settings(TestingServer zk, String cluster, int port) {
        return HaSettings.of(zk.getConnectString(), cluster, URI.create("http://127.0.0.1:" + port))
                .withSessionTimeout(Duration.ofSeconds(2));
    }

    /** Records what an election told its master, in order: {@code elected <epoch>} or {@code deposed <reason>}. */
    static final class Recorder implements Leadership {
        final BlockingQueue<String> events = new LinkedBlockingQueue<>();

        @Override
        public void elected(long epoch) {
            events.add("elected " + epoch);
        }

        @Override
        public void deposed(String reason) {
            events.add("deposed " + reason);
        }

        /** The next event within a generous bound, or null. */
        String next(Duration within) throws InterruptedException {
            return events.poll(within.toMillis(), TimeUnit.MILLISECONDS);
        }
    }
}

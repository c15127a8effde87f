package granary.ha;

import java.nio.charset.StandardCharsets;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.cache.ChildData;
import org.apache.curator.framework.recipes.cache.CuratorCache;
import org.apache.curator.framework.recipes.leader.LeaderLatch;
import org.apache.curator.framework.recipes.leader.LeaderLatchListener;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;

/**
 * One master's part in the election of its cluster's leader, for one life of that master.
 *
 * <p>Znodes under {@code /granary/<cluster>}: {@code latch/} (Curator's LeaderLatch: one ephemeral
 * sequential node per master; the lowest leads), {@code epoch} (persistent: the last leadership
 * epoch, advanced by compare-and-set) and {@code leader} (ephemeral: {@code <epoch> <url>} of the
 * master that leads and serves now).
 *
 * <p>On winning the latch the master takes the next epoch, {@link Leadership#elected} is called
 * with it, then {@code leader} is written. When the ZooKeeper connection is SUSPENDED or LOST, or
 * the latch is lost, {@link Leadership#deposed} is called once and the election ends (the latch is
 * left, so another master can lead): a deposed master must not serve again from the same memory.
 *
 * <p>{@link #leader()} is what a standby tells peers: the published leader, from a watched cache.
 */
public final class MasterElection implements AutoCloseable {

    private final HaSettings settings;
    private final Leadership leadership;
    private final LongSupplier clock;
    private final CuratorFramework zk;
    private final LeaderLatch latch;
    private final CuratorCache leaderCache;
    private final Epochs epochs;
    private final ExecutorService events;
    private final Object lock = new Object();
    private boolean started;
    private boolean over;
    private long epoch;

    /**
     * @param clock the wall clock in ms (an epoch is at least its value)
     */
    public MasterElection(HaSettings settings, Leadership leadership, LongSupplier clock) {
        this.settings = Objects.requireNonNull(settings, "settings");
        this.leadership = Objects.requireNonNull(leadership, "leadership");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.zk = CuratorFrameworkFactory.builder().connectString(settings.connectString())
                .sessionTimeoutMs((int) settings.sessionTimeout().toMillis())
                .connectionTimeoutMs((int) settings.connectionTimeout().toMillis())
                .retryPolicy(new ExponentialBackoffRetry(100, 5, 1_000)).build();
        this.latch = new LeaderLatch(zk, settings.root() + "/latch", settings.advertise().toString());
        this.leaderCache = CuratorCache.build(zk, leaderPath(), CuratorCache.Options.SINGLE_NODE_CACHE);
        this.epochs = new Epochs(zk, settings.root() + "/epoch");
        this.events = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "granary-ha election " + settings.cluster());
            t.setDaemon(true);
            return t;
        });
    }

    public HaSettings settings() {
        return settings;
    }

    /**
     * Connects to the ensemble and enters the election; returns at once (the outcome comes to the
     * {@link Leadership}). A master that cannot reach ZooKeeper stays a standby and keeps trying.
     */
    public void start() throws Exception {
        synchronized (lock) {
            if (started) {
                throw new IllegalStateException("the election of " + settings.advertise() + " in cluster "
                        + settings.cluster() + " was started already; a deposed master needs a new one");
            }
            started = true;
        }
        zk.getConnectionStateListenable().addListener((client, state) -> {
            if (state == ConnectionState.SUSPENDED || state == ConnectionState.LOST) {
                events.execute(() -> depose("the ZooKeeper connection to " + settings.connectString() + " is " + state));
            }
        }, events);
        latch.addListener(new LeaderLatchListener() {
            @Override
            public void isLeader() {
                lead();
            }

            @Override
            public void notLeader() {
                depose("another master holds the leadership of cluster " + settings.cluster());
            }
        }, events);
        zk.start();
        leaderCache.start();
        latch.start();
    }

    /** True while this master leads (elected, not deposed). */
    public boolean isLeader() {
        synchronized (lock) {
            return epoch > 0 && !over;
        }
    }

    /** This master's epoch while it leads or led, 0 before. */
    public long epoch() {
        synchronized (lock) {
            return epoch;
        }
    }

    /** The leader as published in ZooKeeper (possibly this master), if one is. */
    public Optional<LeaderInfo> leader() {
        Optional<ChildData> d = leaderCache.get(leaderPath());
        if (d.isEmpty() || d.get().getData() == null) {
            return Optional.empty();
        }
        try {
            return Optional.of(LeaderInfo.decode(d.get().getData()));
        } catch (IllegalArgumentException ex) {
            return Optional.empty();
        }
    }

    /** The last epoch given out in this cluster, read from ZooKeeper now (0 if none yet). */
    public long currentEpoch() throws Exception {
        return epochs.current();
    }

    private String leaderPath() {
        return settings.root() + "/leader";
    }

    /** On the events thread: the latch was won. */
    private void lead() {
        synchronized (lock) {
            if (over || epoch > 0) {
                return;
            }
        }
        long e;
        try {
            e = epochs.next(clock.getAsLong());
        } catch (Exception ex) {
            depose("could not take a leadership epoch from " + settings.root() + "/epoch: " + ex);
            return;
        }
        synchronized (lock) {
            if (over) {
                return;
            }
            epoch = e;
        }
        leadership.elected(e);
        try {
            publish(new LeaderInfo(settings.advertise(), e));
        } catch (Exception ex) {
            depose("could not publish the leader's URL at " + leaderPath() + ": " + ex);
        }
    }

    private void publish(LeaderInfo me) throws Exception {
        byte[] data = me.encode().getBytes(StandardCharsets.UTF_8);
        while (true) {
            try {
                zk.create().creatingParentsIfNeeded().withMode(CreateMode.EPHEMERAL).forPath(leaderPath(), data);
                return;
            } catch (KeeperException.NodeExistsException ex) {
                // the deposed leader's, whose session has not expired yet: ours replaces it
                try {
                    zk.delete().forPath(leaderPath());
                } catch (KeeperException.NoNodeException gone) {
                    // expired meanwhile
                }
            }
        }
    }

    /** On the events thread: ends the election; tells the master if it led. */
    private void depose(String reason) {
        boolean led;
        synchronized (lock) {
            if (over) {
                return;
            }
            led = epoch > 0;
            if (!led) {
                return; // a standby that lost its connection stays in the election; Curator reconnects
            }
            over = true;
        }
        leadership.deposed(reason);
        events.execute(this::leave);
    }

    private void leave() {
        try {
            latch.close();
        } catch (Exception | Error ex) {
            // closing a latch on a lost connection may fail; the session's expiry removes the node
        }
    }

    /** Leaves the election and closes the ZooKeeper session (the leader's znodes go with it). */
    @Override
    public void close() {
        synchronized (lock) {
            over = true;
        }
        leave();
        leaderCache.close();
        zk.close();
        events.shutdown();
        try {
            events.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }
}

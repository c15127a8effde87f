package granary.ha;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
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
import org.apache.zookeeper.ZooKeeper;

/**
 * One master's part in the election of its cluster's leader, for one life of that master.
 *
 * <p>Znodes under {@code /granary/<cluster>}: {@code latch/} (Curator's LeaderLatch: one ephemeral
 * sequential node per master; the lowest leads), {@code epoch} (persistent: the last leadership
 * epoch, advanced by compare-and-set) and {@code leader} (ephemeral: {@code <epoch> <url>} of the
 * master that leads and serves now).
 *
 * <p>On winning the latch the master takes the next epoch and its {@link Lease} (one round trip in
 * its session), {@link Leadership#elected} is called with the epoch, then {@code leader} is written.
 * While it leads, a round trip every {@link HaSettings#leaseRenewal()} renews the lease
 * (docs/ha.md, "The lease"). When the lease lapses, the ZooKeeper connection is SUSPENDED or LOST,
 * or the latch is lost, the lease is revoked, {@link Leadership#deposed} is called once and the
 * election ends (the latch is left, so another master can lead): a deposed master must not serve
 * again from the same memory.
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
    private final LongSupplier nanos;
    private final Lease lease;
    private final ScheduledExecutorService renewals;
    private final Object lock = new Object();
    private boolean started;
    private boolean over;
    private long epoch;
    /** The ZooKeeper handle of the session the leadership was won in, and its latch node; set when elected. */
    private volatile ZooKeeper session;
    private volatile String latchNode;

    /**
     * @param clock the wall clock in ms (an epoch is at least its value)
     */
    public MasterElection(HaSettings settings, Leadership leadership, LongSupplier clock) {
        this(settings, leadership, clock, System::nanoTime);
    }

    /**
     * @param clock the wall clock in ms (an epoch is at least its value)
     * @param nanos the monotonic clock of the lease, in ns
     */
    public MasterElection(HaSettings settings, Leadership leadership, LongSupplier clock, LongSupplier nanos) {
        this.settings = Objects.requireNonNull(settings, "settings");
        this.leadership = Objects.requireNonNull(leadership, "leadership");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.nanos = Objects.requireNonNull(nanos, "nanos");
        this.lease = new Lease(settings.connectString(), settings.sessionTimeout(), settings.leaseMargin(), nanos);
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
        this.renewals = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "granary-ha lease " + settings.cluster());
            t.setDaemon(true);
            return t;
        });
    }

    public HaSettings settings() {
        return settings;
    }

    /**
     * This master's leadership lease: held from the election until it lapses or the master is
     * deposed; never before it is elected. Check it before every decision and every answer that
     * acts as the leader (docs/ha.md, "The lease").
     */
    public Lease lease() {
        return lease;
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
                events.execute(() -> depose(lease.silence() + "; the connection is " + state));
            }
        }, events);
        latch.addListener(new LeaderLatchListener() {
            @Override
            public void isLeader() {
                lead();
            }

            @Override
            public void notLeader() {
                // the latch lets go on SUSPENDED and LOST too: name a ZooKeeper outage as such
                boolean outage = !zk.getZookeeperClient().isConnected() || !lease.held();
                depose(outage ? lease.silence() + "; the leader's latch was reset"
                        : "another master holds the leadership of cluster " + settings.cluster());
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
        try {
            takeLease();
        } catch (Exception ex) {
            depose("could not take the leadership lease: " + lease.silence() + ": " + ex);
            return;
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

    // ---- the lease (docs/ha.md, "The lease") ---------------------------------------------------

    /**
     * On the events thread, once elected: binds the lease to the session the latch was won in (a
     * later session, after an expiry, never renews it), asks for the session timeout the server
     * granted, takes the lease with one round trip and starts renewing it.
     */
    private void takeLease() throws Exception {
        ZooKeeper zooKeeper = zk.getZookeeperClient().getZooKeeper();
        String node = latch.getOurPath();
        if (node == null) {
            throw new IllegalStateException("the latch has no node of this master");
        }
        session = zooKeeper;
        latchNode = node;
        if (zooKeeper.getSessionTimeout() > 0) {
            lease.sessionTimeout(Duration.ofMillis(zooKeeper.getSessionTimeout()));
        }
        renew().get(settings.sessionTimeout().toMillis(), TimeUnit.MILLISECONDS);
        if (!lease.held()) {
            throw new IllegalStateException("the first round trip took longer than the lease lasts, " + lease.validity().toMillis() + " ms");
        }
        long period = settings.leaseRenewal().toMillis();
        renewals.scheduleAtFixedRate(this::renewOrStepDown, period, period, TimeUnit.MILLISECONDS);
    }

    /** On the lease thread: steps down once the lease is not held, else renews it. */
    private void renewOrStepDown() {
        if (!lease.held()) {
            events.execute(() -> depose(lease.why()));
            renewals.shutdown();
            return;
        }
        renew();
    }

    /**
     * One cheap round trip in the leader's session: {@code exists} of its own latch node. The send
     * time is read before the request leaves; an answer renews the lease from it. Completes when
     * the answer renewed the lease; a failure (no connection, a slow server) leaves it to lapse.
     */
    private CompletableFuture<Void> renew() {
        CompletableFuture<Void> done = new CompletableFuture<>();
        ZooKeeper zooKeeper = session;
        String node = latchNode;
        long sent = nanos.getAsLong();
        try {
            zooKeeper.exists(node, false, (rc, path, ctx, stat) -> {
                if (rc == KeeperException.Code.OK.intValue() && stat != null) {
                    lease.renewed(sent);
                    done.complete(null);
                    return;
                }
                if (rc == KeeperException.Code.OK.intValue() || rc == KeeperException.Code.SESSIONEXPIRED.intValue()) {
                    lease.revoke(rc == KeeperException.Code.OK.intValue()
                            ? "the leader's latch node " + node + " is gone from ZooKeeper at " + settings.connectString()
                            : "the ZooKeeper session of the leader expired at " + settings.connectString());
                }
                done.completeExceptionally(KeeperException.create(KeeperException.Code.get(rc), path));
            }, null);
        } catch (RuntimeException ex) {
            done.completeExceptionally(ex); // a closed handle: the lease lapses
        }
        return done;
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
        lease.revoke(reason); // first: every gate that checks the lease is closed before the master hears of it
        renewals.shutdown();
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
        lease.revoke("the election of " + settings.advertise() + " in cluster " + settings.cluster() + " was closed");
        renewals.shutdownNow();
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

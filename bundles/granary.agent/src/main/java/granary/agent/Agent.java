package granary.agent;

import granary.api.model.Clock;
import granary.protocol.Ack;
import granary.protocol.Cap;
import granary.protocol.Envelope;
import granary.protocol.Heartbeat;
import granary.protocol.Register;
import granary.protocol.Role;
import granary.protocol.Sender;
import granary.protocol.link.JdkHttpServer;
import granary.protocol.link.LinkException;
import granary.protocol.link.PeerLink;
import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * One agent incarnation: loads the checkpoint, serves the plan endpoint, registers with the master,
 * then runs two threads until {@link #close}: the heartbeat thread (every period, at once when a
 * worker exited; it registers again when the master restarted) and the poll thread (takes caps from
 * the master's inbox and checkpoints each one before the next poll acknowledges it).
 */
public final class Agent implements AutoCloseable {

    /** Checkpoint file name in the work dir. */
    public static final String CHECKPOINT = "caps.checkpoint";

    private final AgentConfig config;
    private final Clock clock;
    private final Consumer<String> events;
    private final ScheduledExecutorService timer;
    private final Object beat = new Object();
    private final Object registering = new Object();
    private Node node;
    private Checkpoint checkpoint;
    private JdkHttpServer server;
    private PeerLink link;
    private long incarnation;
    private URI endpoint;
    private boolean beatDue;
    private long registrations;
    private volatile boolean running;
    private Thread heartbeats;
    private Thread polls;

    /**
     * @param events receives one line per event ({@code registered ...}, {@code cap ...}, {@code launched ...}, …)
     */
    public Agent(AgentConfig config, Clock clock, Consumer<String> events) {
        this.config = config;
        this.clock = clock;
        this.events = events;
        this.timer = Executors.newSingleThreadScheduledExecutor(r -> daemon(r, "granary-agent timer"));
    }

    /**
     * Loads the checkpoint, starts the plan endpoint and registers.
     *
     * @throws LinkException the master refused the token (UNAUTHORIZED), cannot be reached after the
     *                       retries (UNREACHABLE), or answered something unexpected (PROTOCOL)
     * @throws RegistrationRefused the master read the registration and refused it
     * @throws IOException   the work dir or the listening address cannot be used
     */
    public void start() throws IOException {
        checkpoint = new Checkpoint(config.workDir().resolve(CHECKPOINT));
        Checkpoint.Recovery rec = checkpoint.recover(clock.millis());
        if (rec.corrupt() != null) {
            events.accept("checkpoint-corrupt file=" + rec.corrupt().file() + " problem=" + rec.corrupt().problem()
                    + " moved-to=" + rec.movedTo() + " (starting without caps; the master resends them)");
        }
        Checkpoint.State loaded = rec.state() != null && rec.state().node().equals(config.node()) ? rec.state() : null;
        incarnation = Math.max(clock.millis(), loaded == null ? 0 : loaded.incarnation() + 1);
        Sender self = new Sender(Role.AGENT, config.node());
        Workers workers = new Workers(config.workDir(), config.node(), timer, config.stopGrace());
        node = new Node(config, clock, workers, events, this::heartbeatNow);
        if (loaded != null) {
            node.load(loaded.caps());
            events.accept("checkpoint-loaded file=" + checkpoint.file() + " caps=" + loaded.caps().size());
        }
        node.adoptOrphans(); // workers a previous life left running, and those that ended meanwhile
        checkpoint.write(new Checkpoint.State(config.node(), incarnation, node.caps()));
        server = JdkHttpServer.start(config.listen(), new PlanDesk(self, incarnation, node), null);
        endpoint = config.advertise() != null ? config.advertise() : server.url();
        link = new PeerLink(config.masters(), self, incarnation, config.token(),
                PeerLink.Options.defaults().withRetries(config.registerRetries()));
        register();
        running = true;
        heartbeats = daemon(this::heartbeatLoop, "granary-agent heartbeats");
        polls = daemon(this::pollLoop, "granary-agent polls");
        heartbeats.start();
        polls.start();
    }

    /** The plan endpoint's base URL as registered. */
    public URI endpoint() {
        return endpoint;
    }

    public long incarnation() {
        return incarnation;
    }

    /** The caps held now. */
    public List<Cap.Grant> caps() {
        return node.caps();
    }

    Node node() {
        return node;
    }

    private void register() {
        // Every cap held goes with the registration: a master that restarted rebuilds from them (docs/recovery.md).
        Register r = new Register(config.node(), config.room(), config.labels(), config.capacity(), endpoint.toString(),
                node.caps());
        Ack ack = link.send(r);
        if (ack.isRefusal()) {
            throw new RegistrationRefused(link.base() + " refused the registration of node " + config.node()
                    + ": " + ack.problems());
        }
        synchronized (registering) {
            registrations++;
        }
        node.registered();
        events.accept("registered node=" + config.node() + " master=" + link.base() + " endpoint=" + endpoint
                + " master-incarnation=" + link.serverIncarnation());
    }

    /** Registers again after the master restarted, unless another thread did since {@code seen}. */
    private void reregister(long seen) {
        synchronized (registering) {
            while (running && registrations == seen) {
                try {
                    register();
                } catch (LinkException | RegistrationRefused ex) {
                    events.accept("register-failed master=" + link.base() + " error=" + ex.getMessage());
                    pause(1_000);
                }
            }
        }
    }

    private long registrations() {
        synchronized (registering) {
            return registrations;
        }
    }

    private void heartbeatNow() {
        synchronized (beat) {
            beatDue = true;
            beat.notifyAll();
        }
    }

    private void heartbeatLoop() {
        long period = config.heartbeat().toMillis();
        while (running) {
            synchronized (beat) {
                if (!beatDue) {
                    try {
                        beat.wait(period);
                    } catch (InterruptedException ex) {
                        return;
                    }
                }
                beatDue = false;
            }
            if (!running) {
                return;
            }
            node.expire();
            Heartbeat h = node.drain(true);
            long seen = registrations();
            try {
                Ack ack = link.send(h);
                if (ack.isRefusal()) {
                    events.accept("heartbeat-refused problems=" + ack.problems());
                    node.unsent(h);
                }
            } catch (LinkException ex) {
                if (ex.kind() == LinkException.Kind.RESTARTED) {
                    node.unsent(h); // the link dropped it with the old master; other failures keep it pending
                }
                onLinkFailure("heartbeat", ex, seen);
            }
        }
    }

    private void pollLoop() {
        long wait = config.pollWait().toMillis();
        while (running) {
            long seen = registrations();
            Optional<Envelope> got;
            try {
                got = link.poll(wait);
            } catch (LinkException ex) {
                onLinkFailure("poll", ex, seen);
                continue;
            }
            if (got.isEmpty()) {
                continue;
            }
            if (!(got.get().message() instanceof Cap cap)) {
                events.accept("ignored type=" + got.get().message().type() + " from=" + got.get().sender());
                continue;
            }
            List<Cap.Grant> table = node.apply(cap);
            save(table);
        }
    }

    /** Writes the checkpoint; until it is on disk the next poll (which acknowledges the cap) must wait. */
    private void save(List<Cap.Grant> table) {
        while (running) {
            try {
                checkpoint.write(new Checkpoint.State(config.node(), incarnation, table));
                return;
            } catch (IOException ex) {
                events.accept("checkpoint-failed file=" + checkpoint.file() + " error=" + ex + " (retrying in 1s)");
                pause(1_000);
            }
        }
    }

    private void onLinkFailure(String what, LinkException ex, long seen) {
        if (!running) {
            return;
        }
        if (ex.kind() == LinkException.Kind.RESTARTED) {
            events.accept("master-restarted master=" + link.base() + " incarnation=" + link.serverIncarnation());
            reregister(seen);
            return;
        }
        events.accept(what + "-failed kind=" + ex.kind() + " error=" + ex.getMessage());
        pause(ex.kind() == LinkException.Kind.UNREACHABLE ? 500 : 1_000);
    }

    /** Backoff after a failed heartbeat or poll: the master is unreachable or refusing, retrying hot would not help. */
    private void pause(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }

    /** Stops the threads and the endpoint; stops the workers unless {@link AgentConfig#keepWorkersOnExit()}. */
    @Override
    public void close() {
        running = false;
        for (Thread t : new Thread[] {heartbeats, polls}) {
            if (t != null) {
                t.interrupt();
            }
        }
        if (server != null) {
            server.close();
        }
        if (node != null && !config.keepWorkersOnExit()) {
            stopWorkers();
        }
        timer.shutdownNow();
        for (Thread t : new Thread[] {heartbeats, polls}) {
            join(t);
        }
    }

    private void stopWorkers() {
        List<Worker> all = node.stopAll();
        long deadline = System.nanoTime() + config.stopGrace().toNanos();
        for (Worker w : all) {
            try {
                long left = Math.max(0, deadline - System.nanoTime());
                if (!w.waitFor(left)) {
                    w.destroyForcibly();
                    w.waitFor(TimeUnit.SECONDS.toNanos(2));
                }
            } catch (InterruptedException ex) {
                w.destroyForcibly();
                Thread.currentThread().interrupt();
            }
        }
    }

    private static void join(Thread t) {
        if (t == null) {
            return;
        }
        try {
            t.join(Duration.ofSeconds(2).toMillis());
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }

    private static Thread daemon(Runnable r, String name) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        return t;
    }
}

package granary.agent;

import granary.protocol.Cap;
import granary.protocol.Envelope;
import granary.protocol.Heartbeat;
import granary.protocol.Register;
import granary.protocol.Role;
import granary.protocol.Sender;
import granary.protocol.disk.Disk;
import granary.protocol.link.Endpoint;
import granary.protocol.link.Link;
import granary.protocol.link.LinkException;
import granary.protocol.link.Loop;
import granary.protocol.link.Tokens;
import granary.protocol.link.Transport;
import java.io.IOException;
import java.net.URI;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * One agent incarnation as a state machine on its {@link Loop} (docs/recovery.md, "One agent, one
 * job master client"): the same class runs in the agent process ({@link Agent}: a thread, HTTP, the
 * file system, operating system processes) and in the conformance kit (the world's manual clock,
 * its faulty wire, disk and processes). No lock, no blocking call: every answer is a task on the loop.
 *
 * <p>What it does: loads its checkpoint and adopts the workers its previous life left
 * ({@link #load}); registers with every cap it holds; then heartbeats (every period, at once when a
 * worker ended) and polls the master's inbox for caps, each checkpointed before the next poll
 * acknowledges it.
 *
 * <p>What it never does (docs/recovery.md, "The agent rides out its master"): stop a worker because
 * it cannot reach a master or is refused. It keeps its workers running and tries again, with a
 * growing pause and a log line saying so; only a withdrawal from a master it is registered with stops
 * a worker. Told it was declared lost (or not registered), it registers again at once. It gives up
 * ({@link Owner#gaveUp}) only on a first start with no worker: a refused token (exit 3), a master
 * unreachable past the retries (4), a refused registration (5) — and then leaves its workers alone.
 */
public final class AgentRole {

    /** The exit code for a refused token on a first start. */
    public static final int UNAUTHORIZED = 3;
    /** The exit code for a master unreachable past the retries on a first start. */
    public static final int UNREACHABLE = 4;
    /** The exit code for a registration the master refused on a first start. */
    public static final int REFUSED = 5;

    /** Checkpoint file name in the work dir. */
    public static final String CHECKPOINT = "caps.checkpoint";

    /** What the role tells the process that runs it. */
    public interface Owner {
        /**
         * The agent cannot go on: its process exits with {@code code}, saying {@code why}. Its workers
         * are left running (there are none, or the master will want them back).
         */
        void gaveUp(int code, String why);
    }

    /** Trouble is logged when it starts and then at most this often. */
    static final long TROUBLE_LOG_MILLIS = 10_000;

    private final AgentConfig config;
    private final Loop loop;
    private final Transport transport;
    private final Disk disk;
    private final Launcher launcher;
    private final Consumer<String> events;
    private final Owner owner;
    private final CompletableFuture<Void> started = new CompletableFuture<>();
    private Node node;
    private Checkpoint checkpoint;
    private PlanDesk desk;
    private Link link;
    private long incarnation;
    private URI endpoint;
    private boolean registering;
    private boolean registered;
    private boolean everRegistered;
    private int failedAttempts;
    private boolean beating;
    private boolean beatAgain;
    private Loop.Timer beatTimer = Loop.NONE;
    private boolean polling;
    private boolean saving;
    private long troubleLogged = -1;
    private boolean closed;

    public AgentRole(AgentConfig config, Loop loop, Transport transport, Disk disk, Launcher launcher,
                     Consumer<String> events, Owner owner) {
        this.config = config;
        this.loop = loop;
        this.transport = transport;
        this.disk = disk;
        this.launcher = launcher;
        this.events = events;
        this.owner = owner;
    }

    /**
     * Loads the checkpoint (a damaged one is moved aside and reported), adopts the workers a previous
     * life left and reports those that ended, rebuilds the caps of adopted workers if there was no
     * checkpoint to load (lost or torn), and writes the checkpoint. Returns the plan endpoint to serve.
     *
     * @throws IOException if the work dir cannot be used
     */
    public Endpoint load() throws IOException {
        checkpoint = new Checkpoint(disk, CHECKPOINT);
        Checkpoint.Recovery rec = checkpoint.recover(loop.now());
        if (rec.corrupt() != null) {
            events.accept("checkpoint-corrupt file=" + rec.corrupt().file() + " problem=" + rec.corrupt().problem()
                    + " moved-to=" + rec.movedTo() + " (starting from the workers found running; the master resends the rest)");
        }
        Checkpoint.State loaded = rec.state() != null && rec.state().node().equals(config.node()) ? rec.state() : null;
        incarnation = Math.max(loop.now(), loaded == null ? 0 : loaded.incarnation() + 1);
        node = new Node(config, loop, new Workers(launcher, loop, config.stopGrace()), events, this::beatNow);
        node.epoch(loaded == null ? 0 : loaded.epoch());
        if (loaded != null) {
            node.load(loaded.caps());
            events.accept("checkpoint-loaded file=" + checkpoint.file() + " caps=" + loaded.caps().size());
        }
        node.adopt(launcher.left(p -> events.accept("run-record-dropped " + p)));
        if (loaded == null) {
            // No checkpoint (lost or torn): the caps of the workers found running are rebuilt from their
            // run records. With one, a worker it holds no cap for is reported, and the master decides
            // (docs/recovery.md, "Workers without a cap").
            node.rebuildCaps();
        }
        try {
            checkpoint.write(new Checkpoint.State(config.node(), incarnation, node.caps(), node.epoch()));
        } catch (IOException ex) {
            // It starts all the same (its workers need it): the checkpoint is written again before any cap is acknowledged.
            events.accept("checkpoint-failed file=" + checkpoint.file() + " error=" + ex + " (written again with the next cap)");
        }
        byte[] key = Tokens.keyOf(config.token());
        desk = new PlanDesk(new Sender(Role.AGENT, config.node()), incarnation, node, key == null ? new byte[1] : key, loop::now);
        return desk;
    }

    /**
     * Registers with the master, the plan endpoint at {@code endpoint}; from then on heartbeats and
     * polls. The future completes once registered, or once the agent decided to ride out a master it
     * cannot reach because it runs workers; exceptionally if it gave up.
     */
    public CompletableFuture<Void> start(URI endpoint) {
        this.endpoint = endpoint;
        link = new Link(config.masters(), new Sender(Role.AGENT, config.node()), incarnation, config.token(),
                link(), transport, loop).watch(new Link.Watcher() {
                    @Override
                    public void restarted(long masterIncarnation) {
                        masterRestarted(masterIncarnation);
                    }

                    @Override
                    public void trouble(LinkException why, long failingFor) {
                        AgentRole.this.trouble(why, failingFor);
                    }

                    @Override
                    public void restored() {
                        troubleLogged = -1;
                        events.accept("master-answers master=" + link.base());
                    }
                });
        register();
        return started;
    }

    private Link.Options link() {
        return Link.Options.defaults().withRequestTimeout(config.requestTimeout());
    }

    // ---- registration ---------------------------------------------------------------------------

    private void register() {
        if (registering || closed) {
            return;
        }
        registering = true;
        registered = false;
        node.nextEpoch();
        // Every cap held goes with the registration: a master that restarted rebuilds from them (docs/recovery.md).
        Register r = new Register(config.node(), config.room(), config.labels(), config.capacity(), endpoint.toString(),
                node.caps(), node.epoch());
        long sentAt = loop.now();
        link.send(r, o -> registrationAnswered(sentAt, o));
    }

    private void registrationAnswered(long sentAt, Link.Outcome o) {
        registering = false;
        if (!o.answered()) {
            return; // RESTARTED: the watcher registers again; CLOSED: nothing more
        }
        if (o.ack().isRefusal()) {
            String why = link.base() + " refused the registration of node " + config.node() + ": " + o.ack().problems();
            events.accept("register-refused master=" + link.base() + " problems=" + o.ack().problems());
            if (mayGiveUp()) {
                giveUp(REFUSED, why);
            } else {
                loop.schedule(1_000, this::register);
            }
            return;
        }
        registered = true;
        everRegistered = true;
        failedAttempts = 0;
        node.registered();
        node.confirmed(true, sentAt);
        events.accept("registered node=" + config.node() + " master=" + link.base() + " endpoint=" + endpoint
                + " master-incarnation=" + link.serverIncarnation());
        started.complete(null);
        beatNow();
        poll();
    }

    private void masterRestarted(long masterIncarnation) {
        events.accept("master-restarted master=" + link.base() + " incarnation=" + masterIncarnation);
        registered = false;
        node.confirmed(false);
        register();
    }

    /** A post failed; the link tries again. Said once, then every {@value #TROUBLE_LOG_MILLIS} ms; a first start may give up. */
    private void trouble(LinkException why, long failingFor) {
        node.confirmed(false); // plans wait until the master answers again
        if (registering && !everRegistered) {
            failedAttempts++;
        }
        long now = loop.now();
        if (troubleLogged < 0 || now - troubleLogged >= TROUBLE_LOG_MILLIS) {
            troubleLogged = now;
            int running = node.workers().size();
            events.accept("master-trouble master=" + link.base() + " kind=" + why.kind() + " for=" + failingFor / 1000 + "s"
                    + (running > 0 ? " (keeping its " + running + " workers running; trying again)" : " (trying again)")
                    + " error=" + why.getMessage());
        }
        if (!mayGiveUp()) {
            if (!started.isDone() && node.hasWorkers()) {
                started.complete(null); // rides it out: the process stays up
            }
            return;
        }
        if (why.kind() == LinkException.Kind.UNAUTHORIZED) {
            giveUp(UNAUTHORIZED, "the master at " + link.base() + " refused the token of node " + config.node()
                    + " (agent/" + config.node() + "): " + why.getMessage());
        } else if (failedAttempts > config.registerRetries()) {
            giveUp(UNREACHABLE, "cannot register node " + config.node() + ": the master at " + link.base()
                    + " is unreachable after " + failedAttempts + " attempts (--register-retries=" + config.registerRetries()
                    + "): " + why.getMessage());
        }
    }

    /** Only a first start with nothing running gives up: an agent with workers, or registered once, keeps trying. */
    private boolean mayGiveUp() {
        return !everRegistered && !node.hasWorkers();
    }

    private void giveUp(int code, String why) {
        events.accept("giving-up code=" + code + " " + why);
        close();
        started.completeExceptionally(new GaveUp(code, why));
        owner.gaveUp(code, why);
    }

    /** The agent gave up: the exit code and why. */
    public static final class GaveUp extends RuntimeException {
        private static final long serialVersionUID = 1L;
        private final int code;

        GaveUp(int code, String message) {
            super(message);
            this.code = code;
        }

        public int code() {
            return code;
        }
    }

    // ---- heartbeats -----------------------------------------------------------------------------

    /** Heartbeats at once (a worker ended), or as soon as the one in flight is answered. */
    private void beatNow() {
        if (beating) {
            beatAgain = true;
        } else if (registered && !closed) {
            beat();
        }
    }

    private void beat() {
        beatTimer.cancel();
        beatAgain = false;
        node.expire();
        Heartbeat h = node.drain(true);
        beating = true;
        long sentAt = loop.now();
        link.send(h, o -> beatAnswered(h, sentAt, o));
    }

    /**
     * The answer to the heartbeat first sent at {@code sentAt}. An acknowledgement says the master
     * counted this agent alive at some moment after {@code sentAt} — not now: a heartbeat posted
     * again after a long pause may get the answer its first post got, before the master declared
     * the node lost (docs/recovery.md, "A silent node").
     */
    private void beatAnswered(Heartbeat h, long sentAt, Link.Outcome o) {
        beating = false;
        if (!o.answered()) {
            node.unsent(h); // dropped with a master that restarted: reported again after the registration
            return;
        }
        if (o.ack().isRefusal()) {
            node.confirmed(false);
            // Declared lost, or a master that does not count this incarnation as registered: register again at once.
            events.accept("heartbeat-refused problems=" + o.ack().problems() + " (registering again)");
            node.unsent(h);
            if (o.ack().problems().stream().anyMatch(p -> p.message() != null && p.message().contains(Register.DECLARED_LOST))) {
                node.declaredLost(); // the registration below begins a new epoch
            }
            registered = false;
            register();
            return;
        }
        node.acknowledged(h);
        node.confirmed(true, sentAt);
        if (beatAgain || node.changed()) {
            beat();
        } else {
            beatTimer = loop.schedule(config.heartbeat().toMillis(), this::beatNow);
        }
    }

    // ---- the inbox ------------------------------------------------------------------------------

    private void poll() {
        if (polling || closed) {
            return;
        }
        polling = true;
        link.poll(config.pollWait().toMillis(), this::polled);
    }

    private void polled(Link.Polled p) {
        polling = false;
        if (closed) {
            return;
        }
        if (p.failure() != null) {
            switch (p.failure().kind()) {
                case CLOSED -> {
                    return;
                }
                case RESTARTED -> loop.schedule(0, this::poll);
                case FORGOTTEN -> {
                    // the master holds no inbox for this incarnation: it lost or never had its registration
                    registered = false;
                    register();
                    loop.schedule(config.pollPause().toMillis() + 100, this::poll);
                }
                default -> loop.schedule(link.pollPause(), this::poll);
            }
            return;
        }
        Envelope e = p.envelope();
        if (e == null) {
            loop.schedule(config.pollPause().toMillis(), this::poll);
            return;
        }
        if (!(e.message() instanceof Cap cap)) {
            events.accept("ignored type=" + e.message().type() + " from=" + e.sender());
            poll();
            return;
        }
        List<Cap.Grant> table = node.apply(cap);
        save(table, this::poll); // on disk before the next poll acknowledges the cap
    }

    /** Writes the checkpoint, then runs {@code then}; until it is on disk, tried again every second. */
    private void save(List<Cap.Grant> table, Runnable then) {
        try {
            checkpoint.write(new Checkpoint.State(config.node(), incarnation, table, node.epoch()));
            saving = false;
            then.run();
        } catch (IOException ex) {
            if (!saving) {
                events.accept("checkpoint-failed file=" + checkpoint.file() + " error=" + ex + " (retrying every 1s)");
            }
            saving = true;
            loop.schedule(1_000, () -> {
                if (!closed) {
                    save(node.caps(), then);
                }
            });
        }
    }

    // ---- status and end -------------------------------------------------------------------------

    public long incarnation() {
        return incarnation;
    }

    public URI endpoint() {
        return endpoint;
    }

    /** The caps held now (none before {@link #load}). */
    public List<Cap.Grant> caps() {
        return node == null ? List.of() : node.caps();
    }

    /** True while registered with a master. */
    public boolean registered() {
        return registered;
    }

    /** The workers running now: unit, slot and pid of each. */
    public List<Launcher.Record> workers() {
        return node == null ? List.of() : node.workers().stream().map(Workers.Worker::record).toList();
    }

    Node node() {
        return node;
    }

    /** Stops talking to the master; workers are not touched. */
    public void close() {
        closed = true;
        beatTimer.cancel();
        if (link != null) {
            link.close();
        }
    }

    /** Stops every worker (an agent that is stopped and does not keep them); returns their processes. */
    public List<Launcher.Running> stopWorkers() {
        return node == null ? List.of() : node.stopAll().stream().map(Workers.Worker::process).toList();
    }
}

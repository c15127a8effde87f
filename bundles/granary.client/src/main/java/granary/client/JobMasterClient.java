package granary.client;

import granary.api.model.InvalidRequestException;
import granary.api.model.JobSpec;
import granary.api.model.UnitId;
import granary.protocol.Ack;
import granary.protocol.Envelope;
import granary.protocol.Hint;
import granary.protocol.Plan;
import granary.protocol.Request;
import granary.protocol.Role;
import granary.protocol.Sender;
import granary.protocol.link.LinkException;
import granary.protocol.link.PeerLink;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * A job master's connection to Granary: to the master (requests out, hints in) and to the agents
 * (plans out). See bundles/granary.client/README.md.
 *
 * <p><b>Its own view.</b> The client keeps every job it submitted with each unit's current desired
 * count, and where its units hold slots. A worker's exit (from a hint) lowers the unit's desired
 * count by one and its slots on that node by one, as the master did when it released the slot.
 * When the master restarted the client sends that view as a full request by itself, reports every
 * placement as 0 and then {@link Listener#resynced}; the master's next hints bring the placements.
 *
 * <p><b>Threads.</b> All methods are thread-safe; requests to the master are sent one at a time in
 * the order of the calls. One thread polls the master's inbox; listener callbacks run on one
 * separate event thread in order. {@link #close()} stops both.
 *
 * <p><b>Failures.</b> A refused request throws {@link InvalidRequestException} with the master's
 * problems and changes nothing. {@link LinkException} when the master cannot be reached after the
 * link's retries (the change is kept and goes with the next message, as the link keeps it) or the
 * token was refused.
 */
public final class JobMasterClient implements AutoCloseable {

    /**
     * @param link     retries, timeouts and TLS of every link (master and agents)
     * @param pollWait how long one poll of the master's inbox waits for a hint (at most 30 s count)
     * @param maxPause longest pause between polls after failures
     */
    public record Options(PeerLink.Options link, Duration pollWait, Duration maxPause, Request.Restart restart) {
        public Options {
            Objects.requireNonNull(link, "link");
            Objects.requireNonNull(pollWait, "pollWait");
            Objects.requireNonNull(maxPause, "maxPause");
        }

        /** Options without a restart spec. */
        public Options(PeerLink.Options link, Duration pollWait, Duration maxPause) {
            this(link, pollWait, maxPause, null);
        }

        public static Options defaults() {
            return new Options(PeerLink.Options.defaults(), Duration.ofSeconds(25), Duration.ofSeconds(5));
        }

        public Options withLink(PeerLink.Options l) {
            return new Options(l, pollWait, maxPause, restart);
        }

        public Options withPollWait(Duration d) {
            return new Options(link, d, maxPause, restart);
        }

        /**
         * Every full request carries {@code spec}: when this job master is declared lost, the master
         * starts it again as the spec says (docs/recovery.md, "Restarting a lost job master").
         */
        public Options withRestart(Request.Restart spec) {
            return new Options(link, pollWait, maxPause, spec);
        }

        public Options withMaxPause(Duration d) {
            return new Options(link, pollWait, d, restart);
        }
    }

    private static final int RESYNC_ATTEMPTS = 3;

    private final Sender self;
    private final String token;
    private final long incarnation;
    private final Options options;
    private final Listener listener;
    private final PeerLink master;
    private final Map<URI, PeerLink> agents = new ConcurrentHashMap<>();
    private final ExecutorService events;
    private final Thread poller;
    private final Object lock = new Object();
    private JobBook book = new JobBook();           // guarded by lock
    private final Holdings holdings = new Holdings(); // guarded by lock
    private Long syncedWith;                         // guarded by lock: master incarnation of the last applied full request
    private volatile boolean closed;

    private JobMasterClient(java.util.List<URI> masterUrls, String id, String token, long incarnation, Options options, Listener listener) {
        this.self = new Sender(Role.JOB_MASTER, Objects.requireNonNull(id, "id"));
        this.token = Objects.requireNonNull(token, "token");
        this.incarnation = incarnation;
        this.options = Objects.requireNonNull(options, "options");
        this.listener = Objects.requireNonNull(listener, "listener");
        this.master = new PeerLink(masterUrls, self, incarnation, token, options.link());
        this.events = Executors.newSingleThreadExecutor(r -> daemon(r, "granary-client " + id + " events"));
        this.poller = daemon(this::pollLoop, "granary-client " + id + " inbox");
    }

    /**
     * Connects job master {@code id} to the master at {@code masterUrl}: sends the first, full
     * request of this incarnation (no jobs yet) and starts polling the master's inbox.
     *
     * @param token       the job master's token ({@code job-master/<id>.…}), also shown to agents
     * @param incarnation this life of the job master; larger after every restart (e.g. the start time in ms)
     * @throws LinkException          the master is unreachable or refused the token
     * @throws InvalidRequestException the master refused the request
     */
    public static JobMasterClient connect(URI masterUrl, String id, String token, long incarnation, Options options,
                                          Listener listener) {
        return connect(java.util.List.of(masterUrl), id, token, incarnation, options, listener);
    }

    /**
     * As {@link #connect(URI, String, String, long, Options, Listener)}, with every master of a
     * highly available cluster (docs/ha.md): the client talks to whichever leads.
     */
    public static JobMasterClient connect(java.util.List<URI> masterUrls, String id, String token, long incarnation,
                                          Options options, Listener listener) {
        return connect(masterUrls, id, token, incarnation, options, listener, List.of());
    }

    /**
     * As {@link #connect(java.util.List, String, String, long, Options, Listener)}, with the jobs this
     * job master runs already in its first full request. A job master that restarts must say what it
     * runs at once: a first request without its jobs tells the master it runs none, and the master
     * drops them — online work included (docs/recovery.md, "Real processes").
     */
    public static JobMasterClient connect(java.util.List<URI> masterUrls, String id, String token, long incarnation,
                                          Options options, Listener listener, List<JobSpec> jobs) {
        JobMasterClient c = new JobMasterClient(masterUrls, id, token, incarnation, options, listener);
        try {
            synchronized (c.lock) {
                jobs.forEach(c.book::submit);
                Ack ack = c.resync(c.book);
                if (ack.isRefusal()) {
                    throw new InvalidRequestException(ack.problems());
                }
            }
        } catch (RuntimeException ex) {
            c.close();
            throw ex;
        }
        c.poller.start();
        return c;
    }

    /** Who this client speaks as: {@code job-master <id>}. */
    public Sender self() {
        return self;
    }

    /** Submits {@code job} (or replaces the job of that id) with its units' desired counts. */
    public void submit(JobSpec job) {
        change(b -> b.submit(job), new Request(false, List.of(job), List.of(), List.of(), List.of()));
    }

    /** Sets the desired slot count of {@code unit}, a unit of a job submitted here. */
    public void desire(UnitId unit, int desired) {
        change(b -> b.desire(unit, desired),
                new Request(false, List.of(), List.of(new Request.Desire(unit, desired)), List.of(), List.of()));
    }

    /** Drops the job {@code jobId} with every slot it holds. */
    public void cancel(String jobId) {
        change(b -> {
            if (!b.has(jobId)) {
                throw new InvalidRequestException("job " + jobId, "id", "is not a job this client submitted");
            }
            b.cancel(jobId);
        }, new Request(false, List.of(), List.of(), List.of(jobId), List.of()));
    }

    /**
     * Gives back {@code slots} slots of {@code unit} on {@code node} that the job master does not use.
     * As with a worker's exit, the unit then holds and wants that many fewer (raise the desire to get
     * them elsewhere); the placement change is reported at once.
     */
    public void release(UnitId unit, String node, int slots) {
        synchronized (lock) {
            int held = holdings.slots(unit, node);
            if (slots <= 0 || slots > held) {
                throw new InvalidRequestException(granary.api.model.Problem.of("unit " + unit, "slots",
                        "holds " + held + " slots on node " + node + ", cannot release " + slots, held, slots));
            }
            change(b -> {
                for (int i = 0; i < slots; i++) {
                    b.exited(unit);
                }
            }, new Request(false, List.of(), List.of(), List.of(), List.of(new Request.Release(unit, node, slots))));
            Holdings.Change c = null;
            for (int i = 0; i < slots; i++) {
                c = merge(c, holdings.release(unit, node));
            }
            firePlacement(c);
        }
    }

    /**
     * Sends the agent at {@code endpoint} (from a placement) a plan with {@code launches}, under this
     * job master's token. Each launch's {@code slot} is the job master's number for that worker,
     * unique within the unit on that node; its exit comes back as {@link Listener#workerExited}.
     *
     * @throws InvalidRequestException the agent refused the plan
     * @throws LinkException           the agent cannot be reached or refused the token
     */
    public void launch(String endpoint, List<Plan.Launch> launches) {
        ensureOpen();
        PeerLink link = agents.computeIfAbsent(URI.create(endpoint),
                u -> new PeerLink(u, self, incarnation, token, options.link()));
        Plan plan = new Plan(launches);
        Ack ack;
        try {
            ack = link.send(plan);
        } catch (LinkException ex) {
            if (ex.kind() != LinkException.Kind.RESTARTED) {
                throw ex;
            }
            ack = link.send(plan); // the agent restarted and forgot this sender: numbering starts again
        }
        if (ack.isRefusal()) {
            throw new InvalidRequestException(ack.problems());
        }
    }

    /** The desired count of {@code unit} as this client knows it (after exits), or -1 for a unit it did not submit. */
    public int desired(UnitId unit) {
        synchronized (lock) {
            return book.desired(unit);
        }
    }

    /** The slots {@code unit} holds on {@code node} as the hints said. */
    public int slots(UnitId unit, String node) {
        synchronized (lock) {
            return holdings.slots(unit, node);
        }
    }

    /** Stops polling and the event thread (waiting briefly for both); the master keeps the jobs. */
    @Override
    public void close() {
        closed = true;
        poller.interrupt();
        events.shutdown();
        if (Thread.currentThread() != poller) {
            join(poller);
        }
        try {
            if (!events.awaitTermination(2, TimeUnit.SECONDS)) {
                events.shutdownNow();
            }
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }

    // --- requests to the master -------------------------------------------------------------

    /** Applies {@code edit} to a copy of the book, tells the master, keeps the copy once applied. */
    private void change(Consumer<JobBook> edit, Request delta) {
        synchronized (lock) {
            ensureOpen();
            JobBook next = book.copy();
            edit.accept(next);
            Ack ack;
            try {
                ack = transmit(next, delta);
            } catch (LinkException ex) {
                if (ex.kind() == LinkException.Kind.UNREACHABLE) {
                    book = next; // the link keeps the envelope and posts it before the next one
                }
                throw ex;
            }
            if (ack.isRefusal()) {
                if (syncedWith == null) {
                    restoreQuietly();
                }
                throw new InvalidRequestException(ack.problems());
            }
            book = next;
        }
    }

    /** Sends the delta, or the whole of {@code next} if the master restarted. Caller holds the lock. */
    private Ack transmit(JobBook next, Request delta) {
        if (!inSync()) {
            return resync(next);
        }
        Ack ack;
        try {
            ack = master.send(delta);
        } catch (LinkException ex) {
            if (ex.kind() != LinkException.Kind.RESTARTED) {
                throw ex;
            }
            return resync(next);
        }
        // the poll thread may have seen the restart while this delta was on its way
        return inSync() ? ack : resync(next);
    }

    private boolean inSync() {
        return syncedWith != null && syncedWith.equals(master.serverIncarnation());
    }

    /** Sends {@code view} as a full request; on success reports the re-sync (not for the first one). Caller holds the lock. */
    private Ack resync(JobBook view) {
        boolean again = master.serverIncarnation() != null || syncedWith != null;
        syncedWith = null;
        for (int attempt = 1; ; attempt++) {
            Ack ack;
            try {
                // What the hints gave it goes along: a master that restarted uses it for agents that
                // do not report (docs/recovery.md); it answers with a full hint and a 0 for every
                // pair it does not confirm.
                ack = master.send(new Request(true, view.jobs(), List.of(), List.of(), List.of(), holdings.all(), options.restart()));
            } catch (LinkException ex) {
                if (ex.kind() == LinkException.Kind.RESTARTED && attempt < RESYNC_ATTEMPTS) {
                    continue;
                }
                throw ex;
            }
            if (!ack.isRefusal()) {
                syncedWith = master.serverIncarnation();
                if (again) {
                    long inc = syncedWith;
                    fire(() -> listener.resynced(inc));
                }
            }
            return ack;
        }
    }

    /** After a refused full request: the master holds nothing of this job master; give it the accepted book again. */
    private void restoreQuietly() {
        try {
            resync(book);
        } catch (RuntimeException ex) {
            // the poll thread tries again
        }
    }

    // --- the inbox ----------------------------------------------------------------------------

    private void pollLoop() {
        long pause = 0;
        while (!closed) {
            try {
                syncIfNeeded();
                Optional<Envelope> e = master.poll(options.pollWait().toMillis());
                if (e.isPresent() && e.get().message() instanceof Hint h) {
                    apply(h);
                }
                if (pause != 0) {
                    fire(listener::linkRestored);
                }
                pause = 0;
            } catch (LinkException ex) {
                if (closed) {
                    return;
                }
                if (ex.kind() == LinkException.Kind.RESTARTED) {
                    continue; // syncIfNeeded sends the full request
                }
                if (ex.kind() == LinkException.Kind.FENCED) {
                    // the master started this job master again elsewhere: nothing from this life counts
                    fire(() -> listener.fenced(ex));
                    return;
                }
                if (ex.kind() == LinkException.Kind.FORGOTTEN) {
                    // declared lost after a timeout: its offline jobs were dropped; send everything again
                    synchronized (lock) {
                        syncedWith = null;
                    }
                    continue;
                }
                fire(() -> listener.linkFailed(ex));
                if (ex.kind() == LinkException.Kind.UNAUTHORIZED) {
                    return;
                }
                pause = pause == 0 ? Math.max(10, options.link().backoff().toMillis())
                        : Math.min(pause * 2, options.maxPause().toMillis());
                if (!sleep(pause)) {
                    return;
                }
            } catch (RuntimeException ex) {
                // a hint the codec could not read, or a bug: report it and keep polling
                fire(() -> listener.linkFailed(new LinkException(LinkException.Kind.PROTOCOL,
                        "polling the master failed: " + ex, List.of(), ex)));
                pause = options.maxPause().toMillis();
                if (!sleep(pause)) {
                    return;
                }
            }
        }
    }

    private void syncIfNeeded() {
        synchronized (lock) {
            if (inSync()) {
                return;
            }
            Ack ack = resync(book);
            if (ack.isRefusal()) {
                throw new LinkException(LinkException.Kind.PROTOCOL, "the master refused the full request of "
                        + self + ": " + ack.problems(), ack.problems(), null);
            }
        }
    }

    /** Exits first (each frees one slot the master released already), then the absolute placements. */
    private void apply(Hint h) {
        synchronized (lock) {
            for (Hint.Exit x : h.exits()) {
                book.exited(x.unit());
                firePlacement(holdings.release(x.unit(), x.node()));
                fire(() -> listener.workerExited(x.unit(), x.node(), x.slot(), x.exitCode()));
            }
            for (Hint.Placement p : h.placements()) {
                firePlacement(holdings.set(p.unit(), p.node(), p.slots(), p.endpoint()));
            }
        }
    }

    // --- helpers --------------------------------------------------------------------------------

    private static Holdings.Change merge(Holdings.Change first, Holdings.Change last) {
        if (first == null || last == null) {
            return first == null ? last : first;
        }
        return new Holdings.Change(last.unit(), last.node(), last.endpoint(), first.oldSlots(), last.newSlots());
    }

    private void firePlacement(Holdings.Change c) {
        if (c != null) {
            fire(() -> listener.placementChanged(c.unit(), c.node(), c.endpoint(), c.oldSlots(), c.newSlots()));
        }
    }

    private void fire(Runnable callback) {
        try {
            events.execute(() -> {
                try {
                    callback.run();
                } catch (RuntimeException ex) {
                    System.err.println("granary-client " + self.id() + ": a listener callback failed: " + ex);
                }
            });
        } catch (RejectedExecutionException ex) {
            // closed: nobody listens any more
        }
    }

    private void ensureOpen() {
        if (closed) {
            throw new IllegalStateException("the client of " + self + " is closed");
        }
    }

    /** Backoff between failed polls: the master is down or refusing, and polling it hot would not help. */
    private static boolean sleep(long millis) {
        try {
            Thread.sleep(millis);
            return true;
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private static void join(Thread t) {
        try {
            t.join(5_000);
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

package granary.client;

import granary.api.model.Clock;
import granary.api.model.InvalidRequestException;
import granary.api.model.JobSpec;
import granary.api.model.Problem;
import granary.api.model.UnitId;
import granary.protocol.Envelope;
import granary.protocol.Heartbeat;
import granary.protocol.Hint;
import granary.protocol.Plan;
import granary.protocol.Request;
import granary.protocol.Role;
import granary.protocol.Sender;
import granary.protocol.disk.Disk;
import granary.protocol.link.HttpTransport;
import granary.protocol.link.Link;
import granary.protocol.link.LinkException;
import granary.protocol.link.Loop;
import granary.protocol.link.ThreadLoop;
import granary.protocol.link.Transport;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * A job master's connection to Granary: to the master (requests out, hints in) and to the agents
 * (plans out). See bundles/granary.client/README.md.
 *
 * <p><b>One loop.</b> The client is a state machine on a {@link Loop}: in a process a thread of its
 * own ({@link #connect}), in the conformance kit the simulated world's ({@link #start}); the same
 * class runs in both (docs/recovery.md, "One agent, one job master client"). Every request returns
 * a future that completes on the loop; listener callbacks run on the loop, in order, and may call
 * the client — but must never wait for one of its futures there. A method called from another
 * thread is handed to the loop.
 *
 * <p><b>Its own view.</b> The client keeps every job it submitted with each unit's current desired
 * count, and where its units hold slots. A worker's exit (from a hint) lowers the unit's desired
 * count by one and its slots on that node by one, as the master did when it released the slot —
 * except a worker its agent stopped because its cap went down ({@link Heartbeat#STOPPED}): that
 * slot was taken back by the lower cap, and the desire stays. When the master restarted the client
 * sends that view as a full request by itself, changes still on their way included, with the slots
 * its hints gave it; then {@link Listener#resynced}.
 *
 * <p><b>Failures.</b> A refused request completes its future with {@link InvalidRequestException}
 * and changes nothing. A master that cannot be reached, or answers 401 or 503 while it restarts or
 * a standby takes over, is tried again with a growing pause, for as long as it takes; each failure
 * goes to {@link Listener#linkFailed} and the framework decides when to give up. Only the first
 * connection fails fast: a refused token, or no master within {@link Options#connectPatience}.
 *
 * <p><b>Hints on disk</b> (case 15 of docs/recovery.md): with {@link Options#withHints} the client
 * keeps the slots its hints gave it in a sealed file (forced to disk, renamed, checksummed), and a
 * client started again on the same disk reports them in its first full request: a master that
 * restarted meanwhile keeps the online slots of an agent that has not come back for it.
 */
public final class JobMasterClient implements AutoCloseable {

    /**
     * @param link            timeouts and pauses of the link to the master (plans to agents use them too)
     * @param pollWait        how long one poll of the master's inbox waits for a hint (at most 30 s count)
     * @param maxPause        longest pause between polls after failures
     * @param restart         the restart spec every full request carries, or null (docs/recovery.md, "Restarting a lost job master")
     * @param pollPause       the pause after a poll that brought nothing (0 with long polls)
     * @param hints           where the hints are kept across a restart, or null: in memory only
     * @param launchPatience  how long a plan may go unanswered before its future fails "in doubt"
     *                        (the plan is still being sent and may yet start)
     * @param connectPatience how long the first connection may find no master before it fails
     */
    public record Options(Link.Options link, Duration pollWait, Duration maxPause, Request.Restart restart,
                          Duration pollPause, Disk hints, Duration launchPatience, Duration connectPatience) {
        public Options {
            Objects.requireNonNull(link, "link");
            Objects.requireNonNull(pollWait, "pollWait");
            Objects.requireNonNull(maxPause, "maxPause");
            Objects.requireNonNull(pollPause, "pollPause");
            Objects.requireNonNull(launchPatience, "launchPatience");
            Objects.requireNonNull(connectPatience, "connectPatience");
        }

        public static Options defaults() {
            return new Options(Link.Options.defaults(), Duration.ofSeconds(25), Duration.ofSeconds(5), null, Duration.ZERO,
                    null, Duration.ofSeconds(30), Duration.ofSeconds(30));
        }

        public Options withLink(Link.Options l) {
            return new Options(l, pollWait, maxPause, restart, pollPause, hints, launchPatience, connectPatience);
        }

        public Options withPollWait(Duration d) {
            return new Options(link, d, maxPause, restart, pollPause, hints, launchPatience, connectPatience);
        }

        /**
         * Every full request carries {@code spec}: when this job master is declared lost, the master
         * starts it again as the spec says (docs/recovery.md, "Restarting a lost job master").
         */
        public Options withRestart(Request.Restart spec) {
            return new Options(link, pollWait, maxPause, spec, pollPause, hints, launchPatience, connectPatience);
        }

        public Options withMaxPause(Duration d) {
            return new Options(link, pollWait, d, restart, pollPause, hints, launchPatience, connectPatience);
        }

        public Options withPollPause(Duration d) {
            return new Options(link, pollWait, maxPause, restart, d, hints, launchPatience, connectPatience);
        }

        /** Keeps the hints on {@code disk} (file {@value HintFile#NAME}). */
        public Options withHints(Disk disk) {
            return new Options(link, pollWait, maxPause, restart, pollPause, disk, launchPatience, connectPatience);
        }

        public Options withLaunchPatience(Duration d) {
            return new Options(link, pollWait, maxPause, restart, pollPause, hints, d, connectPatience);
        }

        public Options withConnectPatience(Duration d) {
            return new Options(link, pollWait, maxPause, restart, pollPause, hints, launchPatience, d);
        }
    }

    /** A change sent and not answered yet: replayed on the confirmed book to give the client's view. */
    private record Change(Consumer<JobBook> edit, Request delta, CompletableFuture<Void> done) {
    }

    private final Sender self;
    private final String token;
    private final long incarnation;
    private final Options options;
    private final Listener listener;
    private final Loop loop;
    private final Transport transport;
    private final Link master;
    /** The agents it plans to: endpoints, epochs, passes, links. */
    private final AgentDirectory agents;
    private final CompletableFuture<Void> connected = new CompletableFuture<>();
    private final HintFile hintFile;
    private JobBook confirmed = new JobBook();
    private final List<Change> pending = new ArrayList<>();
    private final Holdings holdings = new Holdings();
    /** The mark of the last request sent (docs/protocol.md, "Marks"). */
    private long marks;
    private Long syncedWith;
    private boolean resyncing;
    private boolean resyncAgain;
    private boolean polling;
    private long pollPause;
    /** True from a failed request or poll of the master until one is answered again. */
    private boolean masterFailing;
    private boolean closed;
    private LinkException fencedBy;
    private ThreadLoop ownLoop;

    private JobMasterClient(List<URI> masterUrls, String id, String token, long incarnation, Options options,
                            Listener listener, Loop loop, Transport transport) {
        this.self = new Sender(Role.JOB_MASTER, Objects.requireNonNull(id, "id"));
        this.token = Objects.requireNonNull(token, "token");
        this.incarnation = incarnation;
        this.options = Objects.requireNonNull(options, "options");
        this.listener = Objects.requireNonNull(listener, "listener");
        this.loop = loop;
        this.transport = transport;
        this.hintFile = options.hints() == null ? null : new HintFile(options.hints());
        this.agents = new AgentDirectory(self, incarnation, options.link(), transport, loop);
        this.master = new Link(masterUrls, self, incarnation, token, options.link(), transport, loop).watch(new Link.Watcher() {
            @Override
            public void restarted(long masterIncarnation) {
                syncedWith = null;
                resync();
            }

            @Override
            public void trouble(LinkException why, long failingFor) {
                masterTrouble(why, failingFor);
            }

            @Override
            public void restored() {
                masterFailing = false;
                tell(listener::linkRestored);
            }
        });
    }

    // ---- starting ---------------------------------------------------------------------------------

    /**
     * Connects job master {@code id} to the master at {@code masterUrl} with no job yet, on a thread
     * of its own, and waits for the first full request to be applied.
     *
     * @throws LinkException           the master refused the token, or none answered within the connect patience
     * @throws InvalidRequestException the master refused the request
     */
    public static JobMasterClient connect(URI masterUrl, String id, String token, long incarnation, Options options,
                                          Listener listener) {
        return connect(List.of(masterUrl), id, token, incarnation, options, listener, List.of());
    }

    /** As {@link #connect(URI, String, String, long, Options, Listener)}, with every master of a highly available cluster (docs/ha.md). */
    public static JobMasterClient connect(List<URI> masterUrls, String id, String token, long incarnation,
                                          Options options, Listener listener) {
        return connect(masterUrls, id, token, incarnation, options, listener, List.of());
    }

    /**
     * As above, with the jobs this job master runs already in its first full request. A job master
     * that restarts must say what it runs at once: a first request without its jobs tells the
     * master it runs none, and the master drops them — online work included (docs/recovery.md).
     */
    public static JobMasterClient connect(List<URI> masterUrls, String id, String token, long incarnation,
                                          Options options, Listener listener, List<JobSpec> jobs) {
        ThreadLoop loop = new ThreadLoop("granary-client " + id, Clock.system(),
                ex -> System.err.println("granary-client " + id + ": " + ex));
        JobMasterClient c;
        try {
            c = loop.call(() -> start(masterUrls, id, token, incarnation, options, listener, jobs, loop,
                    new HttpTransport(options.link().requestTimeout(), null)), Duration.ofSeconds(30));
        } catch (TimeoutException ex) {
            loop.close();
            throw new LinkException(LinkException.Kind.UNREACHABLE, "the client's loop did not start", List.of(), ex);
        }
        c.ownLoop = loop;
        try {
            c.connected.get();
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            c.close();
            throw new LinkException(LinkException.Kind.UNREACHABLE, "interrupted while connecting", List.of(), ex);
        } catch (ExecutionException ex) {
            c.close();
            if (ex.getCause() instanceof RuntimeException r) {
                throw r;
            }
            throw new IllegalStateException(ex.getCause());
        }
        return c;
    }

    /**
     * Starts a client on {@code loop} (call it there) and returns at once; {@link #connected()}
     * completes when the first full request, with {@code jobs}, was applied — exceptionally if the
     * token was refused, the request refused, or no master answered within the connect patience.
     */
    public static JobMasterClient start(List<URI> masterUrls, String id, String token, long incarnation, Options options,
                                        Listener listener, List<JobSpec> jobs, Loop loop, Transport transport) {
        JobMasterClient c = new JobMasterClient(masterUrls, id, token, incarnation, options, listener, loop, transport);
        c.loadHints();
        jobs.forEach(c.confirmed::submit);
        c.resync();
        loop.schedule(options.connectPatience().toMillis(), () -> {
            if (!c.connected.isDone()) {
                c.connected.completeExceptionally(new LinkException(LinkException.Kind.UNREACHABLE, "no master at "
                        + masterUrls + " answered within " + options.connectPatience().toSeconds() + " s", List.of(), null));
                c.close();
            }
        });
        return c;
    }

    /** Completes once the first full request was applied (see {@link #start}). */
    public CompletableFuture<Void> connected() {
        return connected;
    }

    /** Who this client speaks as: {@code job-master <id>}. */
    public Sender self() {
        return self;
    }

    public long incarnation() {
        return incarnation;
    }

    // ---- requests ---------------------------------------------------------------------------------

    /** Submits {@code job} (or replaces the job of that id) with its units' desired counts. */
    public CompletableFuture<Void> submit(JobSpec job) {
        return onLoop(() -> change(b -> b.submit(job), new Request(false, List.of(job), List.of(), List.of(), List.of())));
    }

    /** Sets the desired slot count of {@code unit}, a unit of a job submitted here. */
    public CompletableFuture<Void> desire(UnitId unit, int desired) {
        return onLoop(() -> change(b -> b.desire(unit, desired),
                new Request(false, List.of(), List.of(new Request.Desire(unit, desired)), List.of(), List.of())));
    }

    /**
     * Keeps {@code unit} off {@code nodes} from now on, instead of the nodes before (empty: none): the
     * master grants it no new slot there; what it holds there stays until released. A job master's
     * own judgement of nodes, as after repeated failures of its tasks there ({@link NodeBlacklist};
     * docs/agent.md, "Blacklisting a node for one job"). Needs a master of protocol version 7.
     */
    public CompletableFuture<Void> avoid(UnitId unit, Set<String> nodes) {
        return onLoop(() -> {
            int desired = view().desired(unit);
            return change(b -> b.avoid(unit, nodes), new Request(false, List.of(), List.of(new Request.Desire(unit,
                    Math.max(0, desired), nodes)), List.of(), List.of()));
        });
    }

    /** Drops the job {@code jobId} with every slot it holds. */
    public CompletableFuture<Void> cancel(String jobId) {
        return onLoop(() -> change(b -> {
            if (!b.has(jobId)) {
                throw new InvalidRequestException("job " + jobId, "id", "is not a job this client submitted");
            }
            b.cancel(jobId);
        }, new Request(false, List.of(), List.of(), List.of(jobId), List.of())));
    }

    /**
     * Gives back {@code slots} slots of {@code unit} on {@code node} that the job master does not use.
     * As with a worker's exit, the unit then holds and wants that many fewer (raise the desire to get
     * them elsewhere); the placement change is reported at once.
     */
    public CompletableFuture<Void> release(UnitId unit, String node, int slots) {
        return onLoop(() -> {
            int held = holdings.slots(unit, node);
            if (slots <= 0 || slots > held) {
                return CompletableFuture.failedFuture(new InvalidRequestException(Problem.of("unit " + unit, "slots",
                        "holds " + held + " slots on node " + node + ", cannot release " + slots, held, slots)));
            }
            long mark = ++marks;
            CompletableFuture<Void> f = change(b -> {
                for (int i = 0; i < slots; i++) {
                    b.exited(unit);
                }
            }, new Request(false, List.of(), List.of(), List.of(), List.of(new Request.Release(unit, node, slots))).withMark(mark));
            firePlacement(holdings.releasing(mark, unit, node, slots));
            storeHints();
            return f;
        });
    }

    private CompletableFuture<Void> change(Consumer<JobBook> edit, Request delta) {
        if (closed) {
            return CompletableFuture.failedFuture(fencedBy != null ? fencedBy
                    : new IllegalStateException("the client of " + self + " is closed"));
        }
        try {
            edit.accept(view());
        } catch (InvalidRequestException ex) {
            return CompletableFuture.failedFuture(ex);
        }
        Request marked = delta.mark() > 0 ? delta : delta.withMark(++marks);
        Change c = new Change(edit, marked, new CompletableFuture<>());
        pending.add(c);
        if (!inSync() && !resyncing) {
            resync(); // the full request carries the change
        } else {
            master.send(marked, o -> answered(c, o));
        }
        return c.done();
    }

    /** The client's view: the book the master confirmed, with the changes on their way. */
    private JobBook view() {
        JobBook b = confirmed.copy();
        pending.forEach(c -> c.edit().accept(b));
        return b;
    }

    private void answered(Change c, Link.Outcome o) {
        if (!pending.contains(c)) {
            return; // settled by a full request that carried it
        }
        if (!o.answered()) {
            if (o.failure().kind() != LinkException.Kind.RESTARTED) {
                pending.remove(c);
                c.done().completeExceptionally(o.failure());
            }
            if (o.failure().kind() == LinkException.Kind.FENCED) {
                fence(o.failure()); // a later incarnation runs its jobs: this one stops
            }
            return; // RESTARTED: the full request that follows carries it
        }
        if (o.ack().isRefusal() && (o.status() == 409
                || o.ack().problems().stream().anyMatch(p -> "$.message.full".equals(p.field())))) {
            // The master no longer knows this job master's jobs (declared lost, or it restarted):
            // say everything again; the full request carries this change, which stays pending.
            syncedWith = null;
            resync();
            return;
        }
        pending.remove(c);
        if (o.ack().isRefusal() && !cancelOfJobsTheMasterDoesNotRun(c.delta(), o.ack().problems())) {
            c.done().completeExceptionally(new InvalidRequestException(o.ack().problems()));
            // its releases took nothing (an exit released some of those slots meanwhile)
            holdings.refused(c.delta().mark()).forEach(this::firePlacement);
            return;
        }
        c.edit().accept(confirmed);
        c.done().complete(null);
    }

    /**
     * A cancel the master refuses only because it runs none of those jobs (they ended there, or a
     * master that restarted never heard of them) has its effect: the jobs are not run. The book
     * drops them, so that no full request names them again and a later master does not start them
     * anew; the caller goes on as after a cancel (its workers' ends still come from their agents).
     */
    private static boolean cancelOfJobsTheMasterDoesNotRun(Request delta, List<Problem> problems) {
        return !delta.cancels().isEmpty() && delta.jobs().isEmpty() && delta.desires().isEmpty() && delta.releases().isEmpty()
                && !problems.isEmpty() && problems.stream().allMatch(p -> p.message().endsWith("is not known to this master"));
    }

    private boolean inSync() {
        return syncedWith != null && syncedWith.equals(master.serverIncarnation());
    }

    /** True while the master this client talks to has its full request. */
    public boolean synced() {
        return onLoopValue(this::inSync);
    }

    /**
     * True while a master answers: it has this job master's full request and its last request or
     * poll was answered. A job master launches nothing again on a guess while this is false
     * (docs/recovery.md, "Exits that never arrive").
     */
    public boolean masterAnswers() {
        return onLoopValue(() -> inSync() && !masterFailing);
    }

    /** Sends the client's whole view as a full request (with what its hints gave it); one at a time. */
    private void resync() {
        if (closed) {
            return;
        }
        if (resyncing) {
            resyncAgain = true;
            return;
        }
        resyncing = true;
        resyncAgain = false;
        syncedWith = null;
        JobBook v = view();
        List<Change> carried = new ArrayList<>(pending);
        // What the hints gave it goes along: a master that restarted uses it for agents that do not
        // report (docs/recovery.md); it answers with a full hint and a 0 for every pair it does not confirm.
        Request full = new Request(true, v.jobs(), List.of(), List.of(), List.of(), holdings.all(), options.restart(), ++marks);
        master.send(full, o -> resynced(v, carried, o));
    }

    private void resynced(JobBook v, List<Change> carried, Link.Outcome o) {
        resyncing = false;
        if (!o.answered()) {
            if (o.failure().kind() == LinkException.Kind.FENCED) {
                fence(o.failure());
            } else if (o.failure().kind() == LinkException.Kind.RESTARTED && syncedWith == null) {
                resync(); // the watcher may have asked already: resync() runs one at a time
            }
            return;
        }
        if (o.ack().isRefusal()) {
            InvalidRequestException refused = new InvalidRequestException(o.ack().problems());
            if (!connected.isDone()) {
                connected.completeExceptionally(refused);
                return;
            }
            tell(() -> listener.linkFailed(new LinkException(LinkException.Kind.PROTOCOL, "the master refused the full"
                    + " request of " + self + ": " + o.ack().problems(), o.ack().problems(), null)));
            loop.schedule(options.maxPause().toMillis(), this::resync);
            return;
        }
        syncedWith = master.serverIncarnation();
        confirmed = v;
        for (Change c : carried) {
            if (pending.remove(c)) {
                c.done().complete(null);
            }
        }
        if (!connected.isDone()) {
            connected.complete(null);
        } else {
            long inc = syncedWith;
            tell(() -> listener.resynced(inc));
        }
        if (resyncAgain) {
            resync();
        }
        poll();
    }

    private void masterTrouble(LinkException why, long failingFor) {
        masterFailing = true;
        if (!connected.isDone()) {
            if (why.kind() == LinkException.Kind.UNAUTHORIZED) {
                // A first connection with a refused token: a wrong token, not a master restarting.
                connected.completeExceptionally(why);
                close();
            }
            return; // the first connection is told by its future
        }
        tell(() -> listener.linkFailed(why));
    }

    private void fence(LinkException why) {
        if (closed) {
            return;
        }
        fencedBy = why;
        if (!connected.isDone()) {
            connected.completeExceptionally(why);
        }
        tell(() -> listener.fenced(why));
        close();
    }

    // ---- plans to agents --------------------------------------------------------------------------

    /**
     * Sends the agent at {@code endpoint} (from a placement) a plan with {@code launches}, under this
     * job master's token. Each launch's {@code slot} is the job master's number for that worker,
     * unique within the unit on that node: a run again takes a new slot. Its exit comes back as
     * {@link Listener#workerExited}.
     *
     * <p>The future completes when the agent applied the plan; with {@link InvalidRequestException}
     * when it refused it ({@link granary.protocol.LaunchAnswers} reads "already running" and "already
     * ended" from its problems); with a {@link LinkException} of kind UNAUTHORIZED when it refused the
     * token, or UNREACHABLE when it did not answer within the launch patience — the plan is then in
     * doubt: it is still being sent and may yet start.
     */
    public CompletableFuture<Void> launch(String endpoint, List<Plan.Launch> launches) {
        return onLoop(() -> {
            if (closed) {
                return CompletableFuture.failedFuture(new IllegalStateException("the client of " + self + " is closed"));
            }
            URI uri;
            try {
                uri = URI.create(endpoint);
            } catch (IllegalArgumentException ex) {
                uri = null;
            }
            if (uri == null || uri.getHost() == null || !("http".equals(uri.getScheme()) || "https".equals(uri.getScheme()))) {
                return CompletableFuture.failedFuture(new LinkException(LinkException.Kind.UNREACHABLE, "no agent endpoint to send"
                        + " the plan to ('" + endpoint + "'): the node's agent has not registered with this master yet", List.of(), null));
            }
            String pass = agents.pass(endpoint);
            if (pass == null) {
                // nothing sent: the job master's own token never goes to an agent
                return CompletableFuture.failedFuture(new LinkException(LinkException.Kind.UNREACHABLE, "no plan pass for the"
                        + " agent at " + endpoint + " yet: the master gives one with the hint that places slots there", List.of(), null));
            }
            Link link = agents.link(uri, pass);
            CompletableFuture<Void> f = new CompletableFuture<>();
            long epoch = agents.epoch(endpoint);
            // planned against the node's epoch the hints named: an agent declared lost since does not start it
            Plan plan = new Plan(launches.stream().map(l -> l.epoch() == 0 && epoch > 0 ? l.withEpoch(epoch) : l).toList());
            sendPlan(link, plan, f, false);
            loop.schedule(options.launchPatience().toMillis(), () -> f.completeExceptionally(new LinkException(
                    LinkException.Kind.UNREACHABLE, "the agent at " + endpoint + " did not answer within "
                    + options.launchPatience().toSeconds() + " s; the plan is still being sent and may yet start",
                    List.of(), null)));
            return f;
        });
    }

    private void sendPlan(Link link, Plan plan, CompletableFuture<Void> f, boolean again) {
        link.send(plan, o -> {
            if (o.answered()) {
                if (o.ack().isRefusal()) {
                    f.completeExceptionally(new InvalidRequestException(o.ack().problems()));
                } else {
                    f.complete(null);
                }
            } else if (o.failure().kind() == LinkException.Kind.RESTARTED && !again) {
                sendPlan(link, plan, f, true); // the agent restarted and forgot this sender: numbering starts again
            } else {
                f.completeExceptionally(o.failure());
            }
        });
    }

    // ---- the inbox ----------------------------------------------------------------------------------

    private void poll() {
        if (polling || closed || !inSync()) {
            return;
        }
        polling = true;
        master.poll(options.pollWait().toMillis(), this::polled);
    }

    private void polled(Link.Polled p) {
        polling = false;
        if (closed) {
            return;
        }
        LinkException f = p.failure();
        if (f != null) {
            switch (f.kind()) {
                case CLOSED -> {
                    // nothing more
                }
                case RESTARTED -> poll(); // in sync already (the full request was answered first): poll the new master; else its answer polls
                case FENCED -> fence(f);
                case FORGOTTEN -> {
                    // declared lost after a timeout: its offline jobs were dropped; say everything again
                    syncedWith = null;
                    resync();
                }
                default -> {
                    masterFailing = true;
                    tell(() -> listener.linkFailed(f));
                    pollPause = pollPause == 0 ? Math.max(10, options.link().backoff().toMillis())
                            : Math.min(pollPause * 2, options.maxPause().toMillis());
                    loop.schedule(master.spread(pollPause), this::poll);
                }
            }
            return;
        }
        masterFailing = false;
        if (pollPause != 0) {
            pollPause = 0;
            tell(listener::linkRestored);
        }
        Envelope e = p.envelope();
        if (e != null && e.message() instanceof Hint h) {
            apply(h);
            poll();
        } else {
            loop.schedule(options.pollPause().toMillis(), this::poll);
        }
    }

    /**
     * Exits first (each frees one slot the master released already); a node that is back before the
     * placements (one hint may bring both: the grants its return made, docs/protocol.md "Transport"),
     * then the absolute placements, then a node that is lost (its slots there are gone in the
     * placements already).
     */
    private void apply(Hint h) {
        for (Hint.Exit x : h.exits()) {
            if (!x.stopped()) {
                // a stop by the agent gave its slot back with the lower cap: the placement below says so, and the desire stays
                confirmed.exited(x.unit());
                firePlacement(holdings.release(x.unit(), x.node()));
            }
            if (x.oom() != null) {
                tell(() -> listener.workerOutOfMemory(x.unit(), x.node(), x.slot(), x.oom().limitMiB(), x.oom().peakMiB()));
            }
            tell(() -> listener.workerExited(x.unit(), x.node(), x.slot(), x.exitCode()));
        }
        agents.learn(h);
        for (Hint.NodeState n : h.nodes()) {
            if (!Hint.NodeState.LOST.equals(n.state())) {
                tell(() -> listener.nodeChanged(n.node(), n.state()));
            }
        }
        for (Hint.Placement p : h.placements()) {
            firePlacement(holdings.set(p.unit(), p.node(), p.slots(), p.endpoint(), p.epoch(), h.through()));
        }
        for (Hint.NodeState n : h.nodes()) {
            if (Hint.NodeState.LOST.equals(n.state())) {
                tell(() -> listener.nodeChanged(n.node(), n.state()));
            }
        }
        storeHints();
    }

    // ---- hints on disk ------------------------------------------------------------------------------

    private void loadHints() {
        if (hintFile == null) {
            return;
        }
        HintFile.Loaded l = hintFile.load(loop.now());
        if (l.damage() != null) {
            System.err.println("granary-client " + self.id() + ": the hints in " + l.where() + " are damaged (" + l.damage()
                    + "); moved to " + l.movedTo() + ", starting without them");
        }
        l.held().forEach(x -> {
            holdings.set(x.unit(), x.node(), x.slots(), x.endpoint(), x.epoch());
            agents.located(x.node(), x.endpoint(), x.epoch());
        });
    }

    private void storeHints() {
        if (hintFile != null) {
            hintFile.store(holdings.entries(), problem -> System.err.println("granary-client " + self.id() + ": " + problem));
        }
    }

    // ---- reading the view ---------------------------------------------------------------------------

    /** The desired count of {@code unit} as this client knows it (after exits), or -1 for a unit it did not submit. */
    public int desired(UnitId unit) {
        return onLoopValue(() -> view().desired(unit));
    }

    /** The slots {@code unit} holds on {@code node} as the hints said. */
    public int slots(UnitId unit, String node) {
        return onLoopValue(() -> holdings.slots(unit, node));
    }

    /** Every (unit, node) pair holding slots, as the hints said: unit → node → slots. */
    public Map<UnitId, Map<String, Integer>> holdings() {
        return onLoopValue(holdings::byUnit);
    }

    /** Where {@code unit} holds slots now, as the hints said: node → slots (the client's view, current even inside a callback). */
    public Map<String, Integer> placements(UnitId unit) {
        return onLoopValue(() -> holdings.byUnit().getOrDefault(unit, Map.of()));
    }

    /** The plan endpoint of {@code node}'s agent as the hints last named it, or null. */
    public String endpoint(String node) {
        return onLoopValue(() -> agents.endpoint(node));
    }

    // ---- helpers ------------------------------------------------------------------------------------

    private void firePlacement(Holdings.Change c) {
        if (c != null) {
            tell(() -> listener.placementChanged(c.unit(), c.node(), c.endpoint(), c.oldSlots(), c.newSlots()));
        }
    }

    /**
     * Runs a listener callback as a task of its own on the loop, after the one running now: never
     * from inside a call the listener made (a callback that calls the client would otherwise see the
     * client half way through a change, and itself again). In order; one that throws is reported and
     * the client goes on.
     */
    private void tell(Runnable callback) {
        loop.execute(() -> {
            try {
                callback.run();
            } catch (RuntimeException ex) {
                System.err.println("granary-client " + self.id() + ": a listener callback failed: " + ex);
            }
        });
    }

    /** Runs {@code task} on the loop (at once if on it) and returns its future. */
    private <T> CompletableFuture<T> onLoop(Supplier<CompletableFuture<T>> task) {
        if (loop.inLoop()) {
            return task.get();
        }
        CompletableFuture<T> out = new CompletableFuture<>();
        loop.execute(() -> task.get().whenComplete((v, ex) -> {
            if (ex != null) {
                out.completeExceptionally(ex instanceof CompletionException && ex.getCause() != null ? ex.getCause() : ex);
            } else {
                out.complete(v);
            }
        }));
        return out;
    }

    private <T> T onLoopValue(Supplier<T> task) {
        if (loop.inLoop() || !(loop instanceof ThreadLoop t)) {
            return task.get();
        }
        try {
            return t.call(task, Duration.ofSeconds(30));
        } catch (TimeoutException ex) {
            throw new IllegalStateException("the client's loop did not answer within 30 s", ex);
        }
    }

    /** Stops polling and sending; the master keeps the jobs. Its own thread, if it has one, ends. */
    @Override
    public void close() {
        Runnable stop = () -> {
            if (closed) {
                return;
            }
            closed = true;
            master.close();
            agents.close();
            for (Change c : pending) {
                // fenced: each change says so (a later incarnation runs the jobs), not merely "closed"
                c.done().completeExceptionally(fencedBy != null ? fencedBy : new IllegalStateException("the client of " + self + " is closed"));
            }
            pending.clear();
        };
        if (loop.inLoop()) {
            stop.run();
        } else {
            loop.execute(stop);
        }
        if (ownLoop != null && !ownLoop.inLoop()) {
            try {
                ownLoop.call(() -> null, Duration.ofSeconds(5));
            } catch (TimeoutException | RuntimeException ex) {
                // closing anyway
            }
            ownLoop.close();
        }
    }

    boolean isClosed() {
        return closed;
    }
}

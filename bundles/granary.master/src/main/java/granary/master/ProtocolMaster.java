package granary.master;

import granary.api.event.EngineAccess;
import granary.api.event.GrantAdopted;
import granary.api.event.GrantReleased;
import granary.api.event.Granted;
import granary.api.event.InputEvent;
import granary.api.event.JobCancelled;
import granary.api.event.JobsAdopted;
import granary.api.event.JobsSubmitted;
import granary.api.event.NodeAdded;
import granary.api.event.NodeBlacklisted;
import granary.api.event.NodeCapacityChanged;
import granary.api.event.NodeRemoved;
import granary.api.event.OutputEvent;
import granary.api.event.Revoked;
import granary.api.event.Scheduler;
import granary.api.event.UnitCancelled;
import granary.api.event.UnitDesireChanged;
import granary.api.event.UnitRequested;
import granary.api.model.Clock;
import granary.api.model.InvalidRequestException;
import granary.api.model.JobSpec;
import granary.api.model.NodeSpec;
import granary.api.model.Problem;
import granary.api.model.UnitId;
import granary.api.model.UnitKind;
import granary.api.model.UnitSpec;
import granary.api.spi.EngineView;
import granary.api.spi.JobView;
import granary.api.spi.NodeView;
import granary.api.spi.UnitView;
import granary.protocol.Ack;
import granary.protocol.Envelope;
import granary.protocol.Heartbeat;
import granary.protocol.Hint;
import granary.protocol.Message;
import granary.protocol.ProtocolException;
import granary.protocol.Register;
import granary.protocol.Request;
import granary.protocol.Role;
import granary.protocol.Sender;
import granary.protocol.Session;
import granary.protocol.WireCodec;
import granary.protocol.link.Endpoint;
import granary.protocol.link.Paths;
import granary.protocol.link.Reply;
import granary.protocol.link.PlanPass;
import granary.protocol.link.Tokens;
import granary.recovery.Adoption;
import granary.recovery.AgentReport;
import granary.recovery.JobMasterReport;
import granary.recovery.Rebuild;
import granary.recovery.Recovered;
import granary.recovery.Recovery;
import granary.recovery.RecoveryOptions;
import granary.recovery.RecoveryWindow;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;

/**
 * The master's side of the protocol (docs/protocol.md), over any {@link Scheduler}.
 *
 * <ul>
 * <li>Every message needs a valid token ({@link Tokens}); the token's identity must be the
 *     envelope's sender: an agent speaks for its own node, a job master for its own jobs.
 * <li>Each peer has a {@link Session}: a message takes effect once, in order, and only from the
 *     living incarnation.
 * <li>An agent's {@code register} adds its node (or takes over the node it had before a restart);
 *     its heartbeats report exited workers, whose slots are released. A job master's
 *     {@code request} submits, changes and cancels its jobs and releases slots.
 * <li>The engine's grants and revocations are mirrored per agent (slots per unit on its node) and
 *     per job master (slots per unit and node); what changed is sent as one cap / one hint per
 *     inbox poll, coalesced, the first one after a (re)connect complete.
 * <li>Peers silent longer than their timeout are declared lost ({@link MasterOptions}).
 * <li>A master starts empty and first listens: during its recovery window ({@link Recovery},
 *     docs/recovery.md) registrations and full requests are recorded, not applied, and grant
 *     nothing; heartbeats and delta requests are acknowledged and applied after the rebuild. When
 *     the window closes the grants are rebuilt from agents' caps (over job masters' holdings), and
 *     every peer gets the whole truth. Peers that return later are handled by {@link Recovered}.
 * </ul>
 * Counts are set from the engine's own state whenever an input changes them without an output
 * event (a release, a cancel, a registration), so the mirror never drifts.
 *
 * <p>The master is a single-threaded state machine that shares the engine's thread: every message,
 * poll, tick and monitor's question is one turn ({@link Scheduler#onEngine}), applied whole, with
 * the engine at hand; no lock, no wait for another thread. The edge — token, size, decoding —
 * runs on the caller's thread first ({@link #postAsync}); docs/architecture.md, "The master's loop".
 */
public final class ProtocolMaster implements Endpoint, MasterMonitor, AutoCloseable {

    private final Scheduler scheduler;
    private final Tokens tokens;
    private final MasterOptions options;
    private final Clock clock;
    private final WireCodec codec = new WireCodec(Role.MASTER);
    private final Sender self;
    private final Map<String, AgentPeer> agents = new HashMap<>();
    private final Map<String, JobMasterPeer> jobMasters = new HashMap<>();
    /** Job id → the job master that runs it. */
    private final Map<String, String> owners = new HashMap<>();
    /**
     * Jobs cancelled or dropped lately → the job master that ran them: the exits of their workers,
     * stopped by the withdrawals, still go to it (a job master is done once its workers are gone).
     * The most recent {@value #FORMER_OWNERS}.
     */
    private final Map<String, String> formerOwners = new java.util.LinkedHashMap<>() {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, String> eldest) {
            return size() > FORMER_OWNERS;
        }
    };
    private static final int FORMER_OWNERS = 4096;
    /** How long the master waits, after the process it started for a job master died, for another incarnation to speak. */
    private static final long RESTART_GRACE_MILLIS = 3_000;
    private final Map<String, String> keys = new HashMap<>();
    private final Latencies latencies = new Latencies();
    private final ScheduledExecutorService timer;
    private final ScheduledExecutorService expiry;
    private final AutoCloseable subscription;
    private volatile boolean closed;
    /**
     * The engine while a turn of the master's loop runs on its thread (docs/architecture.md, "The
     * master's loop"); every field below is read and written there only.
     */
    private EngineAccess engine;
    /** Peers with a parked poll and news from this turn: answered once, when it ends ({@link #sendDue}). */
    private final Set<Peer> sendAfterTurn = new LinkedHashSet<>();
    /** Open while the master listens after starting empty; null once it rebuilt (docs/recovery.md). Read by monitors. */
    private volatile RecoveryWindow window;
    /** True while the window's rebuild is applied: peers are asked to send again. Read by monitors. */
    private volatile boolean rebuilding;
    /** What the master still owes peers that return after the window. In a turn of the loop. */
    private Recovered recovered = Recovered.none();
    /** Heartbeats and delta requests acknowledged during the window, applied after the rebuild in arrival order. */
    private final List<Runnable> deferred = new ArrayList<>();
    /** Every unit of a job run by a job master, as requested: a cap carries its slot size and kind. In a turn of the loop. */
    private final Map<UnitId, UnitSpec> unitSpecs = new HashMap<>();
    /** Lost job masters being started again (docs/recovery.md, "Restarting a lost job master"). In a turn of the loop. */
    private final Restarts restarts = new Restarts();
    /** Where a fault of the master's own logic goes (a turn that threw): its operators' log. */
    private final java.util.function.BiConsumer<String, Throwable> faults = (subject, fault) -> {
        System.err.println("granary master: a turn for " + subject + " failed:");
        fault.printStackTrace();
    };

    /** A master with nothing to recover (no recovery window). */
    public ProtocolMaster(Scheduler scheduler, Tokens tokens, MasterOptions options, Clock clock) {
        this(scheduler, tokens, options, clock, Recovery.of(RecoveryOptions.none()));
    }

    /** A master that starts empty and opens {@code recovery}'s window at once (docs/recovery.md). */
    public ProtocolMaster(Scheduler scheduler, Tokens tokens, MasterOptions options, Clock clock, Recovery recovery) {
        this.window = recovery.options().window().isZero() ? null : recovery.open(clock.millis());
        this.scheduler = scheduler;
        this.tokens = tokens;
        this.options = options;
        this.clock = clock;
        this.self = new Sender(Role.MASTER, options.name());
        this.timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "granary-master-timer");
            t.setDaemon(true);
            return t;
        });
        this.expiry = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "granary-master-timeouts");
            t.setDaemon(true);
            return t;
        });
        this.subscription = scheduler.subscribe(this::onOutput);
        long period = Math.max(100, Math.min(options.agentTimeout().toMillis(), options.jobMasterTimeout().toMillis()) / 4);
        if (!options.manualTicks()) {
            expiry.scheduleWithFixedDelay(() -> {
                try {
                    tick();
                } catch (RuntimeException ex) {
                    // keep the timer alive; the next round tries again
                }
            }, Math.min(period, 250), Math.min(period, 250), TimeUnit.MILLISECONDS);
        }
    }

    /**
     * Closes the recovery window if it is due (and rebuilds), then declares silent peers lost. The
     * master's timer calls it every 250 ms at most; with {@link MasterOptions#manualTicks()} only the
     * caller does.
     */
    public void tick() {
        if (!options.lease().held()) {
            return; // HA: no decision without the leader's lease (docs/ha.md, "The lease")
        }
        onLoop(() -> {
            recoverIfDue();
            expireNow();
            return null;
        });
    }

    /** True while the master listens after starting empty, or rebuilds from what it heard. */
    public boolean recovering() {
        return window != null || rebuilding;
    }

    @Override
    public RecoveryState recoveryState() {
        return window != null ? RecoveryState.WINDOW_OPEN : rebuilding ? RecoveryState.REBUILDING : RecoveryState.SERVING;
    }

    public MasterOptions options() {
        return options;
    }

    // ---- inbound ------------------------------------------------------------------------------

    /** How far ahead of this master's clock a peer's incarnation (its start time) may be: clocks differ, not by a day. */
    static final long INCARNATION_AHEAD_MILLIS = 86_400_000L;

    @Override
    public Reply admit(String authorization, String remote) {
        if (!options.lease().held()) {
            return notLeader("connection from " + remote);
        }
        return tokens.verify(Tokens.bearer(authorization)) == null ? unauthorized(authorization, remote) : null;
    }

    private Reply unauthorized(String authorization, String remote) {
        String token = Tokens.bearer(authorization);
        String why = authorization == null || authorization.isBlank() ? "no token: send 'Authorization: Bearer <token>' with a token the master issued"
                : token == null || token.isEmpty() ? "the Authorization header is not 'Bearer <token>'"
                : "the token is " + java.util.Objects.requireNonNullElse(tokens.refusal(token), "not valid for this master");
        return reply(401, 0, Problem.of("connection from " + remote, "Authorization", why));
    }

    @Override
    public Reply post(String authorization, byte[] body, String remote) {
        // a loop that does not answer in time: 503, the peer sends again (the session applies it once)
        return waitFor(postAsync(authorization, body, remote), () -> reply(503, 0, Problem.of("connection from " + remote, "$",
                "the master did not apply the message within " + options.engineTimeout().toMillis() + " ms; send again")), "a message");
    }

    /**
     * Checks a post at the edge, on the caller's thread (lease, token, size, decoding, sender,
     * incarnation), then applies it in one turn of the master's loop: nothing else happens to the
     * master's state in between (docs/architecture.md, "The master's loop").
     */
    @Override
    public CompletableFuture<Reply> postAsync(String authorization, byte[] body, String remote) {
        if (!options.lease().held()) {
            return done(notLeader("connection from " + remote)); // HA: checked first, so nothing changes (docs/ha.md, "The lease")
        }
        Sender who = tokens.verify(Tokens.bearer(authorization));
        if (who == null) {
            return done(unauthorized(authorization, remote));
        }
        if (body.length > WireCodec.MAX_MESSAGE_BYTES) {
            return done(reply(413, 0, Problem.of(who.toString(), "$", "the message is more than " + WireCodec.MAX_MESSAGE_BYTES
                    + " bytes, the limit", WireCodec.MAX_MESSAGE_BYTES, body.length)));
        }
        Envelope e;
        try {
            e = codec.decode(body, who.toString());
        } catch (ProtocolException ex) {
            return done(reply(400, Ack.refused(0, ex.problems())));
        }
        if (!e.sender().equals(who)) {
            return done(reply(403, e.sequence(), Problem.of(who.toString(), "$.sender", "the token of " + who
                    + " cannot speak for " + e.sender())));
        }
        long latest = clock.millis() + INCARNATION_AHEAD_MILLIS;
        if (e.incarnation() > latest) {
            // Incarnations are start times: one far ahead of this master's clock would shut every
            // later start of the peer out as "older" (docs/security.md, "Incarnations").
            return done(reply(400, e.sequence(), Problem.of(who.toString(), "$.incarnation", "incarnation " + e.incarnation()
                    + " is more than a day ahead of this master's clock: a peer's incarnation is the time it started, in ms",
                    latest, e.incarnation())));
        }
        if (closed) {
            return done(shuttingDown(who.toString(), e.sequence()));
        }
        byte[] passKey = who.role() == Role.AGENT ? Tokens.keyOf(Tokens.bearer(authorization)) : null;
        return turn(() -> received(who, e, passKey)).exceptionally(ex -> failed(who.toString(), e.sequence(), ex));
    }

    /** One message, checked at the edge, in a turn of the loop. */
    private Reply received(Sender who, Envelope e, byte[] passKey) {
        if (rebuilding) {
            return reply(503, e.sequence(), Problem.of(who.toString(), "$",
                    "the master is rebuilding its grants after a restart; send again"));
        }
        Reply answer = switch (who.role()) {
            case AGENT -> fromAgent(e, passKey);
            case JOB_MASTER -> fromJobMaster(e);
            case MASTER -> reply(403, e.sequence(), Problem.of(who.toString(), "$.sender", "a master does not send to a master"));
        };
        if (!options.manualTicks()) {
            recoverIfDue(); // a report that completes the window closes it without waiting for the timer
        }
        if (!options.lease().held()) {
            // HA: the lease lapsed while the message was applied (a pause): this master steps down and
            // forgets it, so it must not be acknowledged; the peer sends it to the next master
            return notLeader(who.toString());
        }
        return answer;
    }

    /** @param passKey the key of the token the agent sent: what seals the plan passes for its node */
    private Reply fromAgent(Envelope e, byte[] passKey) {
        String node = e.sender().id();
        if (!(e.message() instanceof Register) && !(e.message() instanceof Heartbeat)) {
            return reply(400, e.sequence(), Problem.of(e.sender().toString(), "$.type", "an agent sends register and heartbeat to the master, not "
                    + e.message().type()));
        }
        AgentPeer peer;
        peer = agents.get(node);
        if (peer == null) {
            if (!(e.message() instanceof Register)) {
                return reply(409, e.sequence(), Problem.of(e.sender().toString(), "$.type",
                        "this master does not know agent " + node + ": register first"));
            }
            peer = new AgentPeer(node);
            agents.put(node, peer);
        }
        peer.lastSeen = clock.millis();
        if (e.message() instanceof Register) {
            peer.passKey = passKey;
        }
        AgentPeer p = peer;
        Session.Result result;
        result = p.session.accept(e, env -> env.message() instanceof Register r ? register(p, env, r) : heartbeat(p, env, (Heartbeat) env.message()));
        if (p.registration == null && agents.get(node) == p) {
            agents.remove(node);
        }
        return answer(result);
    }

    private Reply fromJobMaster(Envelope e) {
        String id = e.sender().id();
        if (!(e.message() instanceof Request)) {
            return reply(400, e.sequence(), Problem.of(e.sender().toString(), "$.type", "a job master sends request to the master, not "
                    + e.message().type() + " (plans go to the agents)"));
        }
        if (id.equals(Restarts.OWNER)) {
            return reply(403, e.sequence(), Problem.of(e.sender().toString(), "$.sender.id", "job master id " + id
                    + " is reserved for the master's own restarts of lost job masters"));
        }
        JobMasterPeer peer;
        boolean created = false;
        peer = jobMasters.get(id);
        if (peer != null && e.incarnation() <= peer.fencedThrough) {
            return reply(409, e.sequence(), fenced(peer, e.incarnation()));
        }
        if (peer != null && calledOff(peer, e)) {
            return reply(409, e.sequence(), Problem.of("job master " + id + " incarnation " + e.incarnation(), "$.incarnation",
                    "incarnation " + e.incarnation() + " is fenced: the master started it on " + peer.calledOffNode
                            + " for job master " + id + ", then called that start off when incarnation "
                            + peer.requestIncarnation + " came back; this process must exit"));
        }
        if (peer == null) {
            if (!((Request) e.message()).full()) {
                return reply(409, e.sequence(), Problem.of(e.sender().toString(), "$.message.full",
                        "this master does not know job master " + id + ": send a full request first"));
            }
            peer = new JobMasterPeer(id);
            jobMasters.put(id, peer);
            created = true;
        }
        peer.lastSeen = clock.millis();
        JobMasterPeer p = peer;
        Session.Result result;
        result = p.session.accept(e, env -> request(p, env, (Request) env.message()));
        // A peer made for this message whose full request was refused is forgotten again; a
        // placeholder the rebuild made for mock jobs (no request yet either) keeps them (case 11).
        if (created && p.requestIncarnation < 0 && jobMasters.get(id) == p) {
            jobMasters.remove(id);
        }
        return answer(result);
    }

    private Reply answer(Session.Result r) {
        int status = r.outcome() == Session.Outcome.REFUSED ? 409 : r.ack().isRefusal() ? 400 : 200;
        return reply(status, r.ack());
    }

    // ---- agents ---------------------------------------------------------------------------------

    /** Longest plan endpoint an agent may register. */
    static final int MAX_ENDPOINT_CHARS = 512;

    /**
     * Why {@code endpoint} is no plan endpoint, or null: it goes to job masters in hints, who send
     * plans there, so it must be a plain http(s) URL of a host and port and nothing else (no user
     * info, query, fragment, control characters), within {@value #MAX_ENDPOINT_CHARS} characters.
     */
    static String endpointProblem(String endpoint) {
        String shown = granary.api.model.Text.quote(endpoint);
        if (endpoint.length() > MAX_ENDPOINT_CHARS) {
            return "an endpoint of at most " + MAX_ENDPOINT_CHARS + " characters, got " + endpoint.length();
        }
        if (endpoint.chars().anyMatch(c -> c <= ' ' || c == 0x7f)) {
            return "an endpoint may not hold blanks or control characters, got " + shown;
        }
        java.net.URI u;
        try {
            u = new java.net.URI(endpoint);
        } catch (java.net.URISyntaxException ex) {
            return "expected an http:// or https:// URL, got " + shown;
        }
        if (!("http".equals(u.getScheme()) || "https".equals(u.getScheme())) || u.getHost() == null) {
            return "expected an http:// or https:// URL of a host, got " + shown;
        }
        if (u.getRawUserInfo() != null || u.getRawQuery() != null || u.getRawFragment() != null) {
            return "an endpoint is scheme, host, port and path only (no user, query or fragment), got " + shown;
        }
        return null;
    }

    private Ack register(AgentPeer p, Envelope e, Register r) {
        String who = e.sender().toString();
        if (!r.node().equals(p.node)) {
            return refuse(e, Problem.of(who, "$.message.node", "agent " + p.node + " registers its own node, not " + r.node()));
        }
        String badEndpoint = endpointProblem(r.endpoint());
        if (badEndpoint != null) {
            return refuse(e, Problem.of(who, "$.message.endpoint", badEndpoint));
        }
        NodeSpec wanted = new NodeSpec(r.node(), r.room(), r.capacity(), r.labels());
        if (window != null) {
            // Recovery: record what the agent holds; nothing reaches the engine before the rebuild.
            window.agent(new AgentReport(wanted, r.caps()), clock.millis());
            CompletableFuture<Reply> wake = null;
            if (p.registeredIncarnation != e.incarnation()) {
                wake = p.outbox.reset();
                p.workers = 0;
            }
            p.registration = r;
            p.epoch = r.epoch();
            p.registeredIncarnation = e.incarnation();
            p.lost = false;
            if (wake != null) {
                CompletableFuture<Reply> w = wake;
                wakeLater(() -> w.complete(Reply.empty()));
            }
            return Ack.applied(e.sequence());
        }
        NodeSpec known = query(v -> spec(v.cluster().node(r.node())));
        if (known == null) {
            if (r.caps().isEmpty() && !keptFor(r.node())) {
                apply(new NodeAdded(wanted));
            } else {
                returned(wanted, r.caps());
            }
            tellNodeState(toldLost(r.node()), Hint.NodeState.BACK); // a node with only offline work left the cluster when lost
            submitDeferred();
        } else {
            if (!known.room().equals(r.room()) || !known.labels().equals(r.labels())) {
                return refuse(e, Problem.of(who, "$.message.room", "node " + r.node() + " is in the cluster in room "
                        + known.room() + " with labels " + known.labels() + "; moving it needs it removed first"));
            }
            if (!known.capacity().equals(r.capacity())) {
                apply(new NodeCapacityChanged(r.node(), r.capacity()));
            }
            if (p.lost) {
                apply(new NodeBlacklisted(r.node(), false));
            }
            tellNodeState(toldLost(r.node()), Hint.NodeState.BACK);
        }
        // The node's caps from the engine, in this turn: no grant slips between.
        List<CompletableFuture<Reply>> wake = new ArrayList<>();
        query(v -> {
            NodeView n = v.cluster().node(r.node());
            long now = clock.millis();
            p.caps.clear();
            if (n != null) {
                p.caps.putAll(n.allocations());
            }
            if (p.registeredIncarnation != e.incarnation()) {
                addIfNotNull(wake, p.outbox.reset()); // a new life: its inbox numbering starts again
                p.workers = 0;
            }
            String before = p.registration == null ? null : p.registration.endpoint();
            long epochBefore = p.epoch;
            p.registration = r;
            p.epoch = r.epoch();
            if (before != null && (!before.equals(r.endpoint()) || epochBefore != r.epoch())) {
                endpointMoved(r.node(), now); // plans must go to its new address, with its new epoch
            }
            p.registeredIncarnation = e.incarnation();
            p.lost = false;
            p.sendFull(now);
            return null;
        });
        wake.forEach(f -> f.complete(Reply.empty()));
        return Ack.applied(e.sequence());
    }

    private Ack heartbeat(AgentPeer p, Envelope e, Heartbeat h) {
        String who = e.sender().toString();
        if (p.registeredIncarnation != e.incarnation()) {
            return refuse(e, Problem.of(who, "$.type", "incarnation " + e.incarnation() + " has not registered: its first message must be register"));
        }
        if (p.lost) {
            return refuse(e, Problem.of(who, "$.type", "agent " + p.node + Register.DECLARED_LOST
                    + options.agentTimeout().toSeconds() + " s of silence: register again"));
        }
        if (window != null) {
            deferred.add(() -> heartbeat(p, e, h));
            return Ack.applied(e.sequence());
        }
        p.workers = Math.max(0, p.workers + h.started().size() - h.exited().size());
        if (h.usage() != null) {
            p.usage = h.usage(); // a picture, not a delta: the latest replaces the one before
        }
        health(p, h.health());
        Map<String, JobSpec> kept = keptJobs(h.exited().stream().map(x -> x.unit().job()).toList());
        if (h.capacity() != null) {
            apply(new NodeCapacityChanged(p.node, h.capacity()));
        }
        Set<UnitId> reconcile = new LinkedHashSet<>();
        Map<UnitId, Integer> gone = new java.util.LinkedHashMap<>();
        List<Heartbeat.Exit> fresh;
        List<Restarts.Run> displaced = new ArrayList<>();
        // An exit reported twice (an agent that restarted before its heartbeat was answered) is taken once.
        p.started(h.started());
        fresh = p.freshExits(h.exited());
        fresh.removeIf(x -> keepsLaunch(x, displaced));
        // One release per unit with all its exits: one engine event (and scheduling cycle) for
        // a heartbeat's exits of a unit, not one per worker.
        Map<UnitId, Integer> exitsPerUnit = new java.util.LinkedHashMap<>();
        // A worker the agent stopped because its cap went down (exit code -15) gave its slot back
        // already: the lower cap was the release (or revocation). Counting it again would take a
        // second slot from the unit: a running worker.
        fresh.stream().filter(x -> !x.stopped())
                .forEach(x -> exitsPerUnit.merge(x.unit(), 1, Integer::sum));
        exitsPerUnit.forEach((unit, n) -> {
            int slots = Math.min(n, p.caps.getOrDefault(unit, 0));
            if (n > slots) {
                gone.put(unit, n - slots); // their slots are gone already (revoked, cancelled): only the desire goes down
            }
            if (slots <= 0) {
                return;
            }
            // Lower the mirror before the engine frees the slots: the grants its cycle may make of
            // them then add to the right count (a release has no output event).
            lower(p.node, unit, slots, false);
            List<Problem> refused = new ArrayList<>();
            collect(refused, () -> apply(new GrantReleased(unit, p.node, slots)));
            if (!refused.isEmpty()) {
                reconcile.add(unit);
            }
        });
        // A release the engine refuses (its slots were taken back meanwhile: a revocation, a cancel)
        // takes the counts from the engine; the agent's next cap says them. The exit itself is taken.
        sync(reconcile, Set.of(p.node), false);
        lowerDesires(gone);
        deferEnded(kept);
        displaced.forEach(this::endRun);
        tellJobMasters(p.node, fresh);
        restartsStarted(h.started());
        restartsExited(fresh);
        uncapped(p, h.uncapped());
        return Ack.applied(e.sequence());
    }

    /**
     * An agent that says its node is not fit for work (launches failing, its health check failing;
     * docs/agent.md, "Node health") gets no new work: its node is blacklisted, its running workers
     * stay. When it says healthy again the node takes work again — unless it is out for being lost.
     * Absent (an older agent): nothing changes.
     */
    private void health(AgentPeer p, Heartbeat.Health health) {
        if (health == null) {
            return;
        }
        String reason = health.healthy() ? null : health.reason().isBlank() ? "unhealthy" : health.reason();
        if (java.util.Objects.equals(reason, p.unhealthy)) {
            return;
        }
        boolean out = p.unhealthy != null;
        p.unhealthy = reason;
        if ((reason != null) != out) {
            collect(new ArrayList<>(), () -> apply(new NodeBlacklisted(p.node, reason != null)));
        }
    }

    /**
     * Exits of workers whose slots were gone already (revoked when their agent was lost, or
     * cancelled): no slot is released, but each still lowers its unit's desired count by one, as any
     * exit does — the job master's own count goes down with every exit it hears of, and the two must
     * not drift (docs/protocol.md, "Exits").
     */
    private void lowerDesires(Map<UnitId, Integer> gone) {
        for (Map.Entry<UnitId, Integer> g : gone.entrySet()) {
            Integer desired = query(v -> v.unit(g.getKey()) == null ? null : v.unit(g.getKey()).desired());
            if (desired != null && desired > 0) {
                collect(new ArrayList<>(), () -> apply(new UnitDesireChanged(g.getKey(), Math.max(0, desired - g.getValue()))));
            }
        }
    }

    /**
     * Workers the agent runs without a cap, found when a full cap arrived (docs/recovery.md,
     * "Workers without a cap"): a worker a torn checkpoint or a lost run record left unaccounted, or
     * one whose withdrawal went into a full cap. The master decides once per worker and registration:
     * if the unit's job runs and the unit wants more slots than it holds, the slot is granted here
     * (the worker keeps running); otherwise the agent is told to stop it, and why.
     */
    private void uncapped(AgentPeer p, List<Heartbeat.Worker> reported) {
        Map<UnitId, Integer> count = new java.util.LinkedHashMap<>();
        Set<String> known = new HashSet<>();
        for (Heartbeat.Worker w : reported) {
            if (p.reconciled.add(w.unit() + "#" + w.slot())) {
                count.merge(w.unit(), 1, Integer::sum);
            }
        }
        count.keySet().forEach(u -> {
            if (jobMasterOf(u.job()) != null) {
                known.add(u.job());
            }
        });
        if (count.isEmpty()) {
            return;
        }
        // per unit: the slots it still wants (-1: its job does not run), the slots it holds
        Map<UnitId, int[]> state = query(v -> {
            Map<UnitId, int[]> out = new HashMap<>();
            count.keySet().forEach(u -> {
                UnitView uv = v.unit(u);
                boolean runs = uv != null && known.contains(u.job());
                out.put(u, new int[] {0, runs ? Math.max(0, uv.desired() - uv.granted()) : -1, uv == null ? 0 : uv.granted()});
            });
            return out;
        });
        Set<UnitId> adoptedUnits = new LinkedHashSet<>();
        for (Map.Entry<UnitId, Integer> c : count.entrySet()) {
            UnitId u = c.getKey();
            int[] st = state.get(u);
            int adopt = st[1] < 0 ? 0 : Math.min(c.getValue(), st[1]);
            String refusal = null;
            if (adopt > 0) {
                int n = adopt;
                List<Problem> refused = new ArrayList<>();
                collect(refused, () -> apply(new GrantAdopted(u, p.node, n)));
                if (refused.isEmpty()) {
                    adoptedUnits.add(u);
                } else {
                    adopt = 0;
                    refusal = refused.get(0).message();
                }
            }
            if (c.getValue() > adopt) {
                String why = st[1] < 0 ? "job " + u.job() + " is not running: it ended, or this master never heard of it"
                        : refusal != null ? "unit " + u + " cannot be granted here: " + refusal
                        : "unit " + u + " holds the " + (st[2] + adopt) + " slots it wants without them";
                p.withdraw(u, why, clock.millis());
                deliver(p);
            }
        }
        sync(adoptedUnits, Set.of(p.node), false);
    }

    // ---- job masters ----------------------------------------------------------------------------

    private Ack request(JobMasterPeer p, Envelope e, Request r) {
        String who = e.sender().toString();
        if (p.requestIncarnation != e.incarnation() && !r.full()) {
            return refuse(e, Problem.of(who, "$.message.full", "the first request of incarnation " + e.incarnation() + " must be full"));
        }
        if (window != null) {
            return requestInWindow(p, e, r);
        }
        if (p.lost && !r.full()) {
            return refuse(e, Problem.of(who, "$.message.full", "job master " + p.id + " was declared lost after "
                    + options.jobMasterTimeout().toSeconds() + " s of silence: send a full request"));
        }
        if (r.full()) {
            p.lost = false;
        }
        List<Problem> problems = new ArrayList<>();
        Set<String> listed = new HashSet<>();
        // Jobs in the engine not run by a job master (a request without jobs asks nothing of the engine).
        Set<String> engineJobs = r.jobs().isEmpty() ? Set.of() : query(v -> {
            Set<String> ids = new HashSet<>();
            r.jobs().forEach(j -> {
                if (v.job(j.id()) != null) {
                    ids.add(j.id());
                }
            });
            return ids;
        });
        // Holdings on nodes the engine does not know: their agents have not come back (yet).
        Set<String> absent = r.holdings().isEmpty() ? Set.of() : query(v -> {
            Set<String> out = new HashSet<>();
            r.holdings().forEach(x -> {
                if (v.cluster().node(x.node()) == null) {
                    out.add(x.node());
                }
            });
            return out;
        });
        for (int i = 0; i < r.jobs().size(); i++) {
            String job = r.jobs().get(i).id();
            listed.add(job);
            String owner = owners.get(job);
            if (Restarts.isRestartJob(job)) {
                problems.add(Problem.of(who, "$.message.jobs[" + i + "].id", "job ids starting with " + Restarts.PREFIX
                        + " are the master's restarts of lost job masters, got " + job));
            } else if (owner != null && !owner.equals(p.id)) {
                problems.add(Problem.of(who, "$.message.jobs[" + i + "].id", "job " + job + " belongs to job master " + owner));
            } else if (owner == null && engineJobs.contains(job)) {
                problems.add(Problem.of(who, "$.message.jobs[" + i + "].id", "job " + job + " is in the cluster and not run by a job master"));
            }
        }
        for (int i = 0; i < r.desires().size(); i++) {
            own(p, r.desires().get(i).unit().job(), "$.message.desires[" + i + "].unit", who, problems, listed);
        }
        for (int i = 0; i < r.cancels().size(); i++) {
            own(p, r.cancels().get(i), "$.message.cancels[" + i + "]", who, problems, listed);
        }
        for (int i = 0; i < r.releases().size(); i++) {
            own(p, r.releases().get(i).unit().job(), "$.message.releases[" + i + "].unit", who, problems, listed);
        }
        if (!problems.isEmpty()) {
            return refuse(e, problems.toArray(new Problem[0]));
        }
        List<String> dropped = new ArrayList<>();
        List<JobSpec> fresh = new ArrayList<>();
        List<Recovered.Conversion> conversions = new ArrayList<>();
        List<JobSpec> known = new ArrayList<>();
        if (r.full()) {
            keepAbsent(p, r, absent);
        }
        if (r.full()) {
            for (String job : p.jobs) {
                if (!listed.contains(job)) {
                    dropped.add(job);
                    recovered.forget(job);
                }
            }
        }
        for (JobSpec j : r.jobs()) {
            if (r.full() && !engineJobs.contains(j.id()) && j.units().stream().allMatch(u -> u.desired() == 0)) {
                // A job that ended while the master was away (or restarting): nothing to run, nothing to refuse.
                owners.remove(j.id());
                p.jobs.remove(j.id());
                continue;
            }
            if (!p.jobs.contains(j.id()) || !engineJobs.contains(j.id())) {
                // New, or gone from the engine meanwhile (a mock whose work all ended): submit it,
                // without the slots kept for agents that have not come back — or, if that is all
                // it wants, keep it out of the engine until one of them returns.
                JobSpec rest = withoutKept(j);
                if (rest.units().stream().allMatch(u -> u.desired() == 0)) {
                    recovered.defer(j);
                } else {
                    recovered.undefer(j.id());
                    fresh.add(rest);
                }
                owners.put(j.id(), p.id);
                p.jobs.add(j.id());
                j.units().forEach(u -> unitSpecs.put(new UnitId(j.id(), u.name()), u));
                recovered.forget(j.id());
            } else if (recovered.isMock(j.id())) {
                // The job master of a mock job returned (case 11): its real request replaces the mock.
                conversions.add(recovered.convert(j));
                j.units().forEach(u -> unitSpecs.put(new UnitId(j.id(), u.name()), u));
            } else if (r.full()) {
                known.add(j);
            }
        }
        if (!known.isEmpty()) {
            // A full request is the whole truth of what the job master wants: a job it lists that the
            // master knows takes the listed desired counts (a job master that restarted and missed
            // exits asks for those tasks again: offline work runs at least once).
            conversions.addAll(query(v -> reconcile(known, v)));
        }
        for (Recovered.Conversion c : conversions) {
            for (UnitSpec u : c.added()) {
                collect(problems, () -> apply(new UnitRequested(c.job(), u)));
            }
            for (UnitId u : c.cancelled()) {
                collect(problems, () -> apply(new UnitCancelled(u)));
            }
            c.desires().forEach((u, n) -> collect(problems, () -> apply(new UnitDesireChanged(u, n))));
        }
        if (!fresh.isEmpty()) {
            try {
                apply(new JobsSubmitted(fresh));
            } catch (InvalidRequestException ex) {
                if (tooFewNodes(ex) && query(v -> v.cluster().nodes().isEmpty())) {
                    // No agent has registered yet (a master that just started, its window closed before
                    // they did): the jobs wait out of the engine until a node joins, instead of being
                    // refused (docs/recovery.md, "Rebuilding").
                    fresh.forEach(recovered::defer);
                } else {
                    fresh.forEach(j -> {
                        owners.remove(j.id());
                        p.jobs.remove(j.id());
                    });
                    return refuse(e, ex.problems().toArray(new Problem[0]));
                }
            }
        }
        if (r.full()) {
            boolean reborn = p.requestIncarnation != e.incarnation();
            p.requestIncarnation = e.incarnation();
            back(p, r, reborn);
            List<CompletableFuture<Reply>> wake = new ArrayList<>();
            query(v -> {
                if (reborn) {
                    addIfNotNull(wake, p.outbox.reset()); // its inbox numbering starts again
                    p.applied = 0; // and so do its marks
                }
                fillPlacements(p, v);
                p.sendFull(clock.millis());
                // Holdings the master does not confirm are gone: say so, the job master may hold them still.
                for (Request.Holding x : r.holdings()) {
                    if (p.placements.getOrDefault(x.unit(), Map.of()).getOrDefault(x.node(), 0) == 0) {
                        p.set(x.unit(), x.node(), 0, clock.millis());
                    }
                }
                return null;
            });
            wake.forEach(f -> f.complete(Reply.empty()));
        }
        List<String> touched = new ArrayList<>();
        r.desires().forEach(d -> touched.add(d.unit().job()));
        r.releases().forEach(x -> touched.add(x.unit().job()));
        Map<String, JobSpec> keeping = keptJobs(touched);
        for (Request.Desire d : r.desires()) {
            if (desiredWhileDeferred(d)) {
                continue;
            }
            // Slots kept for an agent that has not returned are not asked for again (docs/recovery.md).
            int kept;
            kept = recovered.reserved(d.unit());
            collect(problems, () -> apply(new UnitDesireChanged(d.unit(), Math.max(0, d.desired() - kept))));
        }
        List<String> cancels = new ArrayList<>(r.cancels());
        cancels.addAll(dropped);
        for (String job : cancels) {
            cancel(p, job, problems);
        }
        Set<UnitId> units = new LinkedHashSet<>();
        Set<String> nodes = new LinkedHashSet<>();
        for (Request.Release x : r.releases()) {
            // Checked before the caps go down: a release of more than the unit holds there (an exit
            // released some of them meanwhile) is refused whole and stops no worker.
            int held = query(v -> v.cluster().node(x.node()) == null ? 0 : v.cluster().node(x.node()).slotsOf(x.unit()));
            if (held < x.slots()) {
                problems.add(Problem.of(who, "$.message.releases[" + r.releases().indexOf(x) + "].slots", "unit " + x.unit() + " holds " + held + " slots on node "
                        + x.node() + ", cannot release " + x.slots(), held, x.slots()));
                continue;
            }
            lower(x.node(), x.unit(), x.slots(), true);
            units.add(x.unit());
            nodes.add(x.node());
            collect(problems, () -> apply(new GrantReleased(x.unit(), x.node(), x.slots())));
        }
        sync(units, nodes, true);
        deferEnded(keeping);
        List<JobMasterPeer.Spot> spots = new ArrayList<>();
        r.releases().forEach(x -> spots.add(new JobMasterPeer.Spot(x.unit(), x.node())));
        p.applied(r.mark(), spots, clock.millis());
        return problems.isEmpty() ? Ack.applied(e.sequence()) : refuse(e, problems.toArray(new Problem[0]));
    }

    private void own(JobMasterPeer p, String job, String path, String who, List<Problem> problems, Set<String> listed) {
        String owner = owners.get(job);
        if (owner == null && listed.contains(job)) {
            return;
        }
        if (owner == null) {
            problems.add(Problem.of(who, path, "job " + job + " is not known to this master"));
        } else if (!owner.equals(p.id)) {
            problems.add(Problem.of(who, path, "job " + job + " belongs to job master " + owner));
        }
    }

    private void cancel(JobMasterPeer p, String job, List<Problem> problems) {
        Set<UnitId> units = new LinkedHashSet<>();
        Set<String> nodes = new LinkedHashSet<>();
        p.placements.forEach((unit, byNode) -> {
            if (unit.job().equals(job)) {
                units.add(unit);
                nodes.addAll(byNode.keySet());
            }
        });
        for (UnitId u : units) {
            for (String node : nodes) {
                lower(node, u, Integer.MAX_VALUE, true);
            }
        }
        recovered.cancelled(job); // nothing of it kept any more for agents that have not returned
        // A job whose slots are all kept for such agents, or whose work ended meanwhile, is not in the
        // engine: its cancel has nothing to take back there (its caps are withdrawn when they return).
        if (query(v -> v.job(job) != null)) {
            collect(problems, () -> apply(new JobCancelled(job)));
        }
        String owner = owners.remove(job);
        if (owner != null) {
            formerOwners.put(job, owner);
        }
        p.jobs.remove(job);
        unitSpecs.keySet().removeIf(u -> u.job().equals(job));
        sync(units, nodes, true);
    }

    /**
     * The slots kept for a returning agent leave the job masters' mirrors before the engine grants
     * what the agent still runs (counted from there on): counting both told a job master twice the
     * slots it held there, and it gave the surplus back — the running services' slots. The pair is
     * in the next hint either way, with its count then (the kept slots forgotten: fewer). In a turn of the loop.
     */
    private void unkept(List<Adoption> kept) {
        long now = clock.millis();
        for (Adoption a : kept) {
            JobMasterPeer j = jobMasterOf(a.unit().job());
            if (j != null) {
                j.set(a.unit(), a.node(), j.placements.getOrDefault(a.unit(), Map.of()).getOrDefault(a.node(), 0) - a.slots(), now);
            }
        }
    }

    /** The placements of {@code p}'s units from the engine, plus online slots kept for agents that have not returned. In a turn of the loop. */
    private void fillPlacements(JobMasterPeer p, EngineView v) {
        p.placements.clear();
        for (String job : p.jobs) {
            JobView j = v.job(job);
            if (j != null) {
                for (UnitView u : j.units()) {
                    u.allocations().forEach((node, slots) -> p.placements.computeIfAbsent(u.id(), x -> new HashMap<>()).put(node, slots));
                }
            }
        }
        for (Adoption a : recovered.awaiting()) {
            if (p.jobs.contains(a.unit().job())) {
                p.placements.computeIfAbsent(a.unit(), x -> new HashMap<>()).merge(a.node(), a.slots(), Integer::sum);
            }
        }
    }

    // ---- recovery (docs/recovery.md) ------------------------------------------------------------

    /**
     * What it takes to make the engine's jobs say what {@code listed} says: desired counts (never
     * below what a unit holds, less what is kept for agents that have not returned), units added and
     * units dropped. On the engine thread.
     */
    private List<Recovered.Conversion> reconcile(List<JobSpec> listed, EngineView v) {
        List<Recovered.Conversion> out = new ArrayList<>();
        for (JobSpec j : listed) {
            JobView jv = v.job(j.id());
            if (jv == null) {
                continue;
            }
            Map<UnitId, Integer> desires = new HashMap<>();
            List<UnitSpec> added = new ArrayList<>();
            Set<String> names = new HashSet<>();
            for (UnitSpec u : j.units()) {
                names.add(u.name());
                UnitId id = new UnitId(j.id(), u.name());
                UnitView uv = v.unit(id);
                if (uv == null) {
                    added.add(u);
                    continue;
                }
                int kept;
                kept = recovered.reserved(id);
                int want = Math.max(uv.granted(), Math.max(0, u.desired() - kept));
                if (want != uv.desired()) {
                    desires.put(id, want);
                }
            }
            List<UnitId> cancelled = new ArrayList<>();
            for (UnitView uv : jv.units()) {
                if (!names.contains(uv.id().unit())) {
                    cancelled.add(uv.id());
                }
            }
            if (!desires.isEmpty() || !added.isEmpty() || !cancelled.isEmpty()) {
                out.add(new Recovered.Conversion(j.id(), desires, added, cancelled));
            }
        }
        return out;
    }

    /**
     * After the window: online slots a job master holds on nodes whose agent has not come back are
     * kept for the agent, not granted again elsewhere (case 17, job master back first). In a turn of the loop.
     */
    private void keepAbsent(JobMasterPeer p, Request r, Set<String> absent) {
        if (absent.isEmpty()) {
            return;
        }
        Set<String> kept = new HashSet<>();
        recovered.awaiting().forEach(a -> kept.add(a.unit() + "@" + a.node()));
        Map<UnitId, UnitSpec> specs = new HashMap<>();
        r.jobs().forEach(j -> j.units().forEach(u -> specs.put(new UnitId(j.id(), u.name()), u)));
        for (Request.Holding x : r.holdings()) {
            UnitSpec u = specs.get(x.unit());
            if (absent.contains(x.node()) && x.slots() > 0 && u != null && u.kind() == UnitKind.ONLINE
                    && !kept.contains(x.unit() + "@" + x.node())) {
                recovered.keep(new Adoption(x.unit(), x.node(), x.slots(), true));
            }
        }
    }

    /** {@code j} with each unit's desired count lowered by the slots kept for agents that have not returned. In a turn of the loop. */
    private JobSpec withoutKept(JobSpec j) {
        List<UnitSpec> us = new ArrayList<>();
        for (UnitSpec u : j.units()) {
            int kept = recovered.reserved(new UnitId(j.id(), u.name()));
            us.add(kept == 0 ? u : u.withDesired(Math.max(0, u.desired() - kept)));
        }
        return new JobSpec(j.id(), j.group(), j.user(), j.productionLevel(), j.gang(), us);
    }

    /**
     * The specs, as the engine holds them now, of those of {@code jobs} the master keeps online slots
     * of for agents that have not returned: taken before releases, exits or desires that may end them
     * in the engine ({@link #deferEnded}).
     */
    private Map<String, JobSpec> keptJobs(Collection<String> jobs) {
        Set<String> keeping = new HashSet<>();
        jobs.stream().filter(recovered::keepsAny).forEach(keeping::add);
        if (keeping.isEmpty()) {
            return Map.of();
        }
        return query(v -> {
            Map<String, JobSpec> out = new HashMap<>();
            for (String job : keeping) {
                JobView j = v.job(job);
                if (j != null) {
                    out.put(job, j.spec());
                }
            }
            return out;
        });
    }

    /**
     * The engine ends a job that wants and holds nothing. One of {@code before} whose last wanted slot
     * went (a release, an exit, a lower desire) while the master keeps online slots of it for agents
     * that have not returned is not over: it is deferred, as the rebuild defers a job all of whose
     * slots are kept (docs/recovery.md, "Peers that return late"), so that the agent's return takes
     * its slots back on and its job master's next desire submits it again. Ended and forgotten, the
     * returning agent's services were stopped as work of a job the master did not run, and every
     * desire of its job master was refused (kit seed 5254).
     */
    private void deferEnded(Map<String, JobSpec> before) {
        if (before.isEmpty()) {
            return;
        }
        Set<String> ended = query(v -> {
            Set<String> out = new HashSet<>();
            before.keySet().stream().filter(job -> v.job(job) == null).forEach(out::add);
            return out;
        });
        for (String job : ended) {
            if (owners.containsKey(job) && recovered.keepsAny(job)) {
                List<UnitSpec> us = new ArrayList<>();
                // what it wants now is what is kept (the engine held nothing more of it)
                before.get(job).units().forEach(u -> us.add(u.withDesired(recovered.reserved(new UnitId(job, u.name())))));
                JobSpec j = before.get(job);
                recovered.defer(new JobSpec(job, j.group(), j.user(), j.productionLevel(), j.gang(), us));
            }
        }
    }

    /**
     * A desire of a unit whose job is deferred ({@link #deferEnded}): the job's spec takes it, and the
     * job is submitted again once it wants more than the slots kept for absent agents. True if the
     * job was deferred (the engine, which does not hold it, is not asked).
     */
    private boolean desiredWhileDeferred(Request.Desire d) {
        JobSpec rest;
        JobSpec spec = recovered.deferredJob(d.unit().job());
        if (spec == null) {
            return false;
        }
        List<UnitSpec> us = new ArrayList<>();
        spec.units().forEach(u -> us.add(u.name().equals(d.unit().unit()) ? u.withDesired(d.desired()) : u));
        spec = new JobSpec(spec.id(), spec.group(), spec.user(), spec.productionLevel(), spec.gang(), us);
        recovered.defer(spec);
        rest = withoutKept(spec);
        if (rest.units().stream().allMatch(u -> u.desired() == 0)) {
            return true;
        }
        try {
            apply(new JobsSubmitted(List.of(rest)));
            recovered.undefer(rest.id());
        } catch (InvalidRequestException ex) {
            // no node can hold it yet: submitted when one joins (submitDeferred)
        }
        return true;
    }

    /** A full request during the window is the job master's report; anything else waits for the rebuild. In a turn of the loop. */
    private Ack requestInWindow(JobMasterPeer p, Envelope e, Request r) {
        String who = e.sender().toString();
        if (!r.full()) {
            deferred.add(() -> request(p, e, r));
            return Ack.applied(e.sequence());
        }
        List<Problem> problems = new ArrayList<>();
        for (int i = 0; i < r.jobs().size(); i++) {
            String owner = owners.get(r.jobs().get(i).id());
            if (owner != null && !owner.equals(p.id)) {
                problems.add(Problem.of(who, "$.message.jobs[" + i + "].id", "job " + r.jobs().get(i).id() + " belongs to job master " + owner));
            }
        }
        if (!problems.isEmpty()) {
            return refuse(e, problems.toArray(new Problem[0]));
        }
        p.jobs.forEach(owners::remove);
        p.jobs.clear();
        for (JobSpec j : r.jobs()) {
            owners.put(j.id(), p.id);
            p.jobs.add(j.id());
            j.units().forEach(u -> unitSpecs.put(new UnitId(j.id(), u.name()), u));
        }
        window.jobMaster(new JobMasterReport(p.id, r.jobs(), r.holdings()), clock.millis());
        p.restart = r.restart(); // how to start it again holds from its first full request, window or not
        if (p.requestIncarnation != e.incarnation()) {
            CompletableFuture<Reply> w = p.outbox.reset();
            if (w != null) {
                wakeLater(() -> w.complete(Reply.empty()));
            }
        }
        if (p.requestIncarnation != e.incarnation()) {
            p.applied = 0;
        }
        p.requestIncarnation = e.incarnation();
        p.applied(r.mark(), List.of(), clock.millis()); // the rebuild's full hint counts what it held
        if (!r.desires().isEmpty() || !r.cancels().isEmpty() || !r.releases().isEmpty()) {
            Request rest = new Request(false, List.of(), r.desires(), r.cancels(), r.releases(), List.of(), null, r.mark());
            deferred.add(() -> request(p, e, rest));
        }
        return Ack.applied(e.sequence());
    }

    /** Runs {@code r} on the master's timer thread, off the loop (answers to parked polls). */
    private void wakeLater(Runnable r) {
        if (!closed) {
            timer.execute(r);
        }
    }

    /** Closes the recovery window if it is due, rebuilds, then applies what was deferred. */
    private void recoverIfDue() {
        RecoveryWindow w;
        if (window == null || rebuilding || closed || !window.due(clock.millis())) {
            return;
        }
        w = window;
        window = null;
        rebuilding = true;
        try {
            rebuild(w.close());
        } finally {
            while (true) {
                List<Runnable> batch;
                if (deferred.isEmpty()) {
                    rebuilding = false;
                    break;
                }
                batch = new ArrayList<>(deferred);
                deferred.clear();
                for (Runnable r : batch) {
                    try {
                        r.run();
                    } catch (RuntimeException ex) {
                        // a deferred message the engine refused now: its peer resends its state on the next full sync
                    }
                }
            }
        }
    }

    /**
     * Applies a rebuild: the nodes (blacklisted, so that no cycle grants anything before the
     * adoptions), the jobs, the adoptions; then the mirrors of every peer from the engine and a full
     * cap / hint to each; then the nodes are opened for new grants.
     */
    private void rebuild(Rebuild b) {
        long now = clock.millis();
        List<String> nodes = new ArrayList<>();
        for (NodeSpec n : b.nodes()) {
            try {
                apply(new NodeAdded(n, true));
                nodes.add(n.name());
            } catch (InvalidRequestException ex) {
                // a node the engine refuses (duplicate, bad capacity): its agent is told when it sends again
            }
        }
        owners.putAll(b.owners());
        // caps dropped by the rebuild are withdrawn: their workers' exits go to the job master they named
        b.dropped().forEach(d -> {
            if (!owners.containsKey(d.unit().job()) && d.jobMaster() != null) {
                formerOwners.put(d.unit().job(), d.jobMaster());
            }
        });
        recoverRestarts(b, now);
        for (JobSpec j : b.jobs()) {
            j.units().forEach(u -> unitSpecs.putIfAbsent(new UnitId(j.id(), u.name()), u));
            if (restarts.of(j.id()) != null) {
                continue; // a restart of a lost job master: the master's own, no placeholder holds it
            }
            if (b.mocks().contains(j.id())) {
                // A job master that has not returned: a placeholder holds its mock jobs until it does.
                JobMasterPeer jm = jobMasters.computeIfAbsent(b.owners().get(j.id()), JobMasterPeer::new);
                jm.jobs.add(j.id());
                jm.lastSeen = now;
            }
        }
        List<JobSpec> noRoomYet = new ArrayList<>();
        try {
            apply(new JobsSubmitted(b.jobs()));
        } catch (InvalidRequestException all) {
            for (JobSpec j : b.jobs()) {
                try {
                    apply(new JobsSubmitted(List.of(j)));
                } catch (InvalidRequestException one) {
                    if (tooFewNodes(one)) {
                        // No node that could hold it has reported yet (the window closed without them):
                        // kept out of the engine until one registers (docs/recovery.md, "Rebuilding").
                        noRoomYet.add(j);
                        continue;
                    }
                    String owner = owners.remove(j.id());
                    JobMasterPeer jm = owner == null ? null : jobMasters.get(owner);
                    if (jm != null) {
                        jm.jobs.remove(j.id());
                    }
                }
            }
        }
        for (Adoption a : b.adoptions()) {
            try {
                apply(new GrantAdopted(a.unit(), a.node(), a.slots()));
            } catch (InvalidRequestException ex) {
                // not taken on: the full cap below withdraws it, the full hint says where the unit holds slots
            }
        }
        query(v -> {
            recovered = new Recovered(b);
            noRoomYet.forEach(recovered::defer);
            for (AgentPeer a : agents.values()) {
                if (a.registration != null) {
                    NodeView n = v.cluster().node(a.node);
                    a.caps.clear();
                    if (n != null) {
                        a.caps.putAll(n.allocations());
                    }
                    a.sendFull(now);
                    deliver(a);
                }
            }
            for (JobMasterPeer j : jobMasters.values()) {
                fillPlacements(j, v);
                j.sendFull(now);
            }
            // Every pair a job master reported that the rebuild does not confirm is gone: say so.
            b.holdings().forEach((id, held) -> {
                JobMasterPeer j = jobMasters.get(id);
                if (j != null) {
                    for (Request.Holding x : held) {
                        if (j.placements.getOrDefault(x.unit(), Map.of()).getOrDefault(x.node(), 0) == 0) {
                            j.set(x.unit(), x.node(), 0, now);
                        }
                    }
                }
            });
            jobMasters.values().forEach(j -> deliver(j));
            return null;
        });
        for (String n : nodes) {
            collect(new ArrayList<>(), () -> apply(new NodeBlacklisted(n, false)));
        }
    }

    /** True if every problem of {@code ex} is a slot no node of the cluster can hold (too few nodes have reported). */
    private static boolean tooFewNodes(InvalidRequestException ex) {
        return !ex.problems().isEmpty() && ex.problems().stream().allMatch(p -> p.message() != null
                && p.message().contains("is larger than every node"));
    }

    /**
     * Deferred jobs that want slots beyond those kept for absent agents are submitted once a node
     * joined: those a rebuild kept out because no node that could hold them had reported yet.
     */
    private void submitDeferred() {
        List<JobSpec> ready = new ArrayList<>();
        for (JobSpec j : recovered.deferredJobs()) {
            JobSpec rest = withoutKept(j);
            if (rest.units().stream().anyMatch(u -> u.desired() > 0)) {
                ready.add(rest);
            }
        }
        for (JobSpec j : ready) {
            try {
                apply(new JobsSubmitted(List.of(j)));
                recovered.undefer(j.id());
            } catch (InvalidRequestException ex) {
                // still no node that can hold it: tried again when the next one joins
            }
        }
    }

    /** Whether the recovery keeps slots for {@code node}: its job masters held them when its agent had not come back. */
    private boolean keptFor(String node) {
        return recovered.awaiting().stream().anyMatch(a -> a.node().equals(node));
    }

    /**
     * An agent the engine does not know registers with caps, or without any where slots were kept
     * for it (a torn checkpoint: they are forgotten, and asked for again): it did not report within the window
     * (or the master had none). Its online caps are taken on, offline ones withdrawn (docs/recovery.md,
     * "Peers that return late").
     */
    private void returned(NodeSpec node, List<granary.protocol.Cap.Grant> caps) {
        Set<String> knownJobs = new HashSet<>();
        Map<UnitId, UnitKind> kinds = query(v -> {
            Map<UnitId, UnitKind> out = new HashMap<>();
            for (granary.protocol.Cap.Grant g : caps) {
                UnitView u = v.unit(g.unit());
                if (u != null) {
                    out.put(g.unit(), u.kind());
                }
                if (v.job(g.unit().job()) != null) {
                    knownJobs.add(g.unit().job());
                }
            }
            return out;
        });
        Recovered.AgentReturn back;
        List<Adoption> keptHere = recovered.awaiting().stream().filter(a -> a.node().equals(node.name())).toList();
        back = recovered.agentReturned(node.name(), caps, kinds::get, jm -> {
            JobMasterPeer j = jobMasters.get(jm);
            return j != null && j.requestIncarnation >= 0;
        }, knownJobs::contains);
        unkept(keptHere);
        for (JobSpec m : back.mocks()) {
            // Case 17, agent first: its online caps of a job master that has not come back hold as a mock.
            // (A deferred job coming back has its owner already.)
            String owner = back.mockOwners().get(m.id());
            if (owner == null) {
                continue;
            }
            if (Restarts.OWNER.equals(owner) && restartOf(m.id(), node.name(), caps, clock.millis())) {
                // a restarted job master's process, on an agent that came back late: still the master's restart
                m.units().forEach(u -> unitSpecs.put(new UnitId(m.id(), u.name()), u));
                continue;
            }
            owners.put(m.id(), owner);
            m.units().forEach(u -> unitSpecs.put(new UnitId(m.id(), u.name()), u));
            JobMasterPeer jm = jobMasters.computeIfAbsent(owner, JobMasterPeer::new);
            jm.jobs.add(m.id());
            jm.lastSeen = clock.millis();
        }
        apply(new NodeAdded(node, true));
        try {
            if (!back.mocks().isEmpty()) {
                // Submitted and adopted in one step: no cycle can place these slots elsewhere in between.
                List<GrantAdopted> grants = new ArrayList<>();
                back.mockGrants().forEach(a -> grants.add(new GrantAdopted(a.unit(), a.node(), a.slots())));
                collect(new ArrayList<>(), () -> apply(new JobsAdopted(back.mocks(), grants)));
            }
            for (Adoption a : back.adopt()) {
                // Raising the desired count in the same step: nothing is granted elsewhere in between.
                collect(new ArrayList<>(), () -> apply(new GrantAdopted(a.unit(), a.node(), a.slots(), true)));
            }
            for (Map.Entry<UnitId, Integer> raise : back.raise().entrySet()) {
                Integer desired = query(v -> {
                    UnitView u = v.unit(raise.getKey());
                    return u == null ? null : u.desired();
                });
                if (desired != null) {
                    collect(new ArrayList<>(), () -> apply(new UnitDesireChanged(raise.getKey(), desired + raise.getValue())));
                }
            }
        } finally {
            apply(new NodeBlacklisted(node.name(), false));
        }
        Set<UnitId> units = new LinkedHashSet<>();
        back.adopt().forEach(a -> units.add(a.unit()));
        back.forgotten().forEach(d -> units.add(d.unit()));
        back.mockGrants().forEach(a -> units.add(a.unit()));
        sync(units, Set.of(node.name()), false);
    }

    // ---- engine output --------------------------------------------------------------------------

    private void onOutput(OutputEvent event) {
        if (event instanceof Granted g) {
            move(g.unit(), g.node(), g.slots(), false);
        } else if (event instanceof Revoked r) {
            move(r.unit(), r.node(), -r.slots(), true);
        }
        if (engine == null) {
            sendDue(); // not in a turn: an event another component submitted (the HTTP API, a policy's timer)
        }
    }

    private void move(UnitId unit, String node, int delta, boolean withdrawal) {
        long now = clock.millis();
        AgentPeer a = agents.get(node);
        if (a != null) {
            a.set(unit, a.caps.getOrDefault(unit, 0) + delta, withdrawal, now);
            deliver(a);
        }
        placed(unit, node, delta);
        JobMasterPeer j = jobMasterOf(unit.job());
        if (j != null) {
            int held = j.placements.getOrDefault(unit, Map.of()).getOrDefault(node, 0);
            j.set(unit, node, held + delta, now);
            deliver(j);
        }
    }

    /**
     * Sets the counts of {@code units} on {@code nodes} from the engine's state, on the engine
     * thread, after an input that changed them without an output event.
     */
    private void sync(Set<UnitId> units, Set<String> nodes, boolean withdrawal) {
        if (units.isEmpty()) {
            return;
        }
        query(v -> {
            long now = clock.millis();
            for (String node : nodes) {
                NodeView n = v.cluster().node(node);
                AgentPeer a = agents.get(node);
                for (UnitId u : units) {
                    int slots = n == null ? 0 : n.slotsOf(u);
                    if (a != null && a.caps.getOrDefault(u, 0) != slots) {
                        a.set(u, slots, withdrawal, now);
                    }
                    JobMasterPeer j = jobMasterOf(u.job());
                    if (j != null && j.placements.getOrDefault(u, Map.of()).getOrDefault(node, 0) != slots) {
                        j.set(u, node, slots, now);
                    }
                }
                if (a != null) {
                    deliver(a);
                }
            }
            for (JobMasterPeer j : jobMasters.values()) {
                deliver(j);
            }
            return null;
        });
    }

    /**
     * An agent came back at another address (a restart on a new port): every job master holding slots
     * on its node is sent those placements again, unchanged but for the endpoint, or it would go on
     * sending plans to the old address (docs/recovery.md, "Exits that never arrive").
     */
    private void endpointMoved(String node, long now) {
        for (JobMasterPeer j : jobMasters.values()) {
            boolean holds = false;
            for (Map.Entry<UnitId, Map<String, Integer>> u : new ArrayList<>(j.placements.entrySet())) {
                Integer slots = u.getValue().get(node);
                if (slots != null && slots > 0) {
                    j.set(u.getKey(), node, slots, now);
                    holds = true;
                }
            }
            if (holds) {
                j.forgetPass(node); // its agent registered again, perhaps with another token: a new pass with the placements
                deliver(j);
            }
        }
    }

    /**
     * Queues the exits of workers on {@code node} for their job masters' next hint, each with its
     * pair's current count (so that "last count − exits" is never taken for the truth when a
     * re-grant kept the count unchanged), and answers their parked polls.
     */
    private void tellJobMasters(String node, List<Heartbeat.Exit> exited) {
        if (exited.isEmpty()) {
            return;
        }
        long now = clock.millis();
        Set<JobMasterPeer> told = new LinkedHashSet<>();
        for (Heartbeat.Exit x : exited) {
            JobMasterPeer j = jobMasterOf(x.unit().job());
            if (j != null) {
                j.exited(new Hint.Exit(x.unit(), node, x.slot(), x.exitCode(), x.stopped(), x.oom()), now);
                j.set(x.unit(), node, j.placements.getOrDefault(x.unit(), Map.of()).getOrDefault(node, 0), now);
                told.add(j);
            } else if (formerOwners.containsKey(x.unit().job()) && jobMasters.get(formerOwners.get(x.unit().job())) != null) {
                j = jobMasters.get(formerOwners.get(x.unit().job()));
                j.exited(new Hint.Exit(x.unit(), node, x.slot(), x.exitCode(), x.stopped(), x.oom()), now); // a worker of a job it cancelled: gone
                told.add(j);
            }
        }
        told.forEach(j -> deliver(j));
    }

    /** The job masters holding slots on each of {@code nodes} now: those to tell of a change of it In a turn of the loop. */
    private Map<String, List<JobMasterPeer>> holdersOn(List<String> nodes) {
        Map<String, List<JobMasterPeer>> out = new java.util.LinkedHashMap<>();
        for (String node : nodes) {
            for (JobMasterPeer j : jobMasters.values()) {
                if (j.holdsOn(node)) {
                    out.computeIfAbsent(node, n -> new ArrayList<>()).add(j);
                }
            }
        }
        return out;
    }

    /**
     * Tells each job master in {@code toTell} that the agent of the node is {@code state}
     * (docs/recovery.md, "A silent node"): the master keeps online slots there and takes the offline
     * ones back; the job master decides what to do about its work. A job master told a node is lost
     * is told when it is back, whether it still holds slots there or not.
     */
    private void tellNodeState(Map<String, List<JobMasterPeer>> toTell, String state) {
        if (toTell.isEmpty()) {
            return;
        }
        long now = clock.millis();
        Set<JobMasterPeer> told = new LinkedHashSet<>();
        toTell.forEach((node, jms) -> jms.forEach(j -> {
            j.nodeState(node, state, now);
            if (Hint.NodeState.LOST.equals(state)) {
                j.toldLost.add(node);
            } else {
                j.toldLost.remove(node);
            }
            told.add(j);
        }));
        told.forEach(j -> deliver(j));
    }

    /** The job masters told that {@code node} was lost: to be told it is back. */
    private Map<String, List<JobMasterPeer>> toldLost(String node) {
        Map<String, List<JobMasterPeer>> out = new java.util.LinkedHashMap<>();
        for (JobMasterPeer j : jobMasters.values()) {
            if (j.toldLost.contains(node)) {
                out.computeIfAbsent(node, n -> new ArrayList<>()).add(j);
            }
        }
        return out;
    }

    /** Takes {@code slots} off the mirror of {@code unit} on {@code node} (agent and job master). In a turn of the loop. */
    private void lower(String node, UnitId unit, int slots, boolean withdrawal) {
        long now = clock.millis();
        AgentPeer a = agents.get(node);
        if (a != null) {
            a.set(unit, Math.max(0, a.caps.getOrDefault(unit, 0) - slots), withdrawal, now);
        }
        JobMasterPeer j = jobMasterOf(unit.job());
        if (j != null) {
            j.set(unit, node, Math.max(0, j.placements.getOrDefault(unit, Map.of()).getOrDefault(node, 0) - slots), now);
        }
    }

    private JobMasterPeer jobMasterOf(String job) {
        String owner = owners.get(job);
        return owner == null ? null : jobMasters.get(owner);
    }

    // ---- inbox ----------------------------------------------------------------------------------

    @Override
    public CompletableFuture<Reply> poll(String authorization, long after, long waitMillis, String remote) {
        return poll(authorization, after, waitMillis, 0, remote);
    }

    @Override
    public CompletableFuture<Reply> poll(String authorization, long after, long waitMillis, long incarnation, String remote) {
        if (!options.lease().held()) {
            return done(notLeader("connection from " + remote)); // HA: checked first
        }
        Sender who = tokens.verify(Tokens.bearer(authorization));
        if (who == null) {
            return done(reply(401, 0, Problem.of("connection from " + remote, "Authorization",
                    "no valid token: send 'Authorization: Bearer <token>' with a token the master issued")));
        }
        return turn(() -> polled(who, after, waitMillis, incarnation)).thenCompose(f -> f)
                .exceptionally(ex -> failed(who.toString(), 0, ex));
    }

    /** A poll, in a turn of the loop: answered at once, or parked until something is due or its wait is over. */
    private CompletableFuture<Reply> polled(Sender who, long after, long waitMillis, long incarnation) {
        Peer peer = peer(who);
        if (peer instanceof JobMasterPeer j && incarnation != 0 && incarnation <= j.fencedThrough) {
            return done(reply(409, 0, fenced(j, incarnation)));
        }
        if (peer == null || !peer.ready()) {
            return done(reply(409, 0, Problem.of(who.toString(), "after",
                    "this master has no inbox for " + who + ": " + (who.role() == Role.AGENT ? "register" : "send a full request") + " first")));
        }
        if (peer instanceof JobMasterPeer j && j.lost) {
            // Its offline jobs were dropped when it was declared lost: it must say what it runs again.
            return done(reply(409, 0, Problem.of(who.toString(), "after", "job master " + j.id
                    + " was declared lost after " + options.jobMasterTimeout().toSeconds() + " s of silence: send a full request")));
        }
        long living = peer instanceof AgentPeer a ? a.registeredIncarnation : ((JobMasterPeer) peer).requestIncarnation;
        if (incarnation != 0 && incarnation != living) {
            // A late poll of an ended life must not acknowledge what was sent to the living one.
            return done(reply(409, 0, Problem.of(who.toString(), "incarnation",
                    "a poll from incarnation " + incarnation + "; the living one is " + living)));
        }
        peer.lastSeen = clock.millis();
        Envelope due = due(peer, after);
        if (due != null) {
            return done(leased(new Reply(200, codec.encode(due))));
        }
        if (waitMillis <= 0 || closed) {
            return done(Reply.empty());
        }
        CompletableFuture<Reply> poll = new CompletableFuture<>();
        CompletableFuture<Reply> displaced = peer.outbox.park(poll, after);
        if (displaced != null) {
            displaced.complete(Reply.empty());
        }
        timer.schedule(() -> turn(() -> {
            if (peer.outbox.isParked(poll)) {
                peer.outbox.unpark();
            }
            return null;
        }).whenComplete((x, failure) -> poll.complete(Reply.empty())), Math.min(waitMillis, longestWait(peer)), TimeUnit.MILLISECONDS);
        return poll;
    }

    /**
     * How long a poll of {@code peer} may wait: at most half its timeout. A peer is seen when it
     * polls, so a poll parked longer than the timeout would have a live job master with nothing to
     * hear declared lost (a job master started again, waiting for one task's end, was taken for
     * lost and started again every 5 s).
     */
    private long longestWait(Peer peer) {
        java.time.Duration timeout = peer instanceof AgentPeer ? options.agentTimeout() : options.jobMasterTimeout();
        return Math.min(Paths.MAX_WAIT_MILLIS, Math.max(500, timeout.toMillis() / 2));
    }

    /** The agent or job master {@code who} is, or null. In a turn of the loop. */
    private Peer peer(Sender who) {
        return who.role() == Role.AGENT ? agents.get(who.id()) : who.role() == Role.JOB_MASTER ? jobMasters.get(who.id()) : null;
    }

    /** The envelope due for {@code peer} after its sequence {@code after}, or null. In a turn of the loop. */
    private Envelope due(Peer peer, long after) {
        return peer.outbox.due(after, () -> {
            long since = peer.dirtySince;
            Message m = peer instanceof AgentPeer a ? a.nextCap(this::capOwner, this::key, unitSpecs::get, restarts::launch, options.maxPlacements())
                    : ((JobMasterPeer) peer).nextHint(this::endpoint, this::epoch, options.maxPlacements(),
                            node -> pass((JobMasterPeer) peer, node), clock.millis(), PASS_MILLIS);
            peer.dirtySince = delivered(since, peer.hasNews());
            return m;
        }, self, options.incarnation());
    }

    /** Notes the delivery latency of news that waited since {@code since}; the new dirty mark. */
    private long delivered(long since, boolean more) {
        long now = clock.millis();
        if (since >= 0) {
            latencies.add(now - since);
        }
        return more ? now : -1;
    }

    /** {@code peer}'s parked poll is answered at the end of this turn if something is due then. */
    private void deliver(Peer peer) {
        if (peer.outbox.hasParked()) {
            sendAfterTurn.add(peer);
        }
    }

    /**
     * Answers the parked polls of the peers whose news came in this turn, each with one message of
     * all of it (docs/protocol.md, "Transport"): a turn that revokes, grants and tells a node's state
     * sends a job master one hint of the three, never the grant before the state. Outside a turn (an
     * output of an event another component submitted) at once.
     */
    private void sendDue() {
        if (sendAfterTurn.isEmpty()) {
            return;
        }
        List<Peer> peers = new ArrayList<>(sendAfterTurn);
        sendAfterTurn.clear();
        for (Peer peer : peers) {
            Outbox box = peer.outbox;
            try {
                Envelope e = box.hasParked() ? due(peer, box.parkedAfter()) : null;
                if (e != null) {
                    box.unpark().complete(leased(new Reply(200, codec.encode(e))));
                }
            } catch (RuntimeException fault) {
                // one peer's message that cannot be built must not keep the others' from leaving
                String who = peer instanceof AgentPeer a ? "agent " + a.node : "job master " + ((JobMasterPeer) peer).id;
                CompletableFuture<Reply> poll = box.unpark();
                if (poll != null) {
                    poll.complete(failed(who, 0, fault));
                }
            }
        }
    }

    // ---- the leader's lease (docs/ha.md, "The lease") -------------------------------------------

    /**
     * {@code capOrHint} if the lease holds now, read after it was built and right before it leaves
     * (a pause in between is caught); else a 503 in its place: nothing decided without the lease
     * reaches a peer.
     */
    private Reply leased(Reply capOrHint) {
        return options.lease().held() ? capOrHint : notLeader(self.toString());
    }

    /** 503 while this master does not hold the leader's lease: the peer tries its next master. */
    private Reply notLeader(String subject) {
        return reply(503, 0, Problem.of(subject, "$", self + " incarnation " + options.incarnation()
                + " is not the leader (it does not hold the leadership lease: " + options.lease().why() + "); send to another master"));
    }

    /**
     * How long a plan pass is good for; the master renews each halfway through (docs/security.md,
     * "Plan passes"). Short enough that a pass copied off the wire is soon worth nothing, long
     * enough that a master outage within the recovery window does not stop plans.
     */
    static final long PASS_MILLIS = 10 * 60_000L;

    /**
     * A plan pass for the living incarnation of {@code jobMaster} (the one whose requests it applies)
     * at the agent of {@code node}, sealed with the key of
     * the token that agent registered with (it knows no other); null if it has not registered.
     */
    private String pass(JobMasterPeer jobMaster, String node) {
        AgentPeer a = agents.get(node);
        if (a == null || a.passKey == null || a.registration == null) {
            return null; // its agent has not registered with this master: no plan could go there yet
        }
        return PlanPass.issue(a.passKey, new PlanPass.Claims(jobMaster.id, jobMaster.requestIncarnation, node,
                key(jobMaster.id), clock.millis() + PASS_MILLIS));
    }

    private String endpoint(String node) {
        AgentPeer a = agents.get(node);
        return a == null || a.registration == null ? "" : a.registration.endpoint();
    }

    private long epoch(String node) {
        AgentPeer a = agents.get(node);
        return a == null ? 0 : a.epoch;
    }

    // ---- timeouts -------------------------------------------------------------------------------

    /** Job masters whose plan passes come due get a hint with new ones. */
    private void renewPasses(long now) {
        for (JobMasterPeer j : jobMasters.values()) {
            if (!j.lost && j.renewPasses(now)) {
                deliver(j);
            }
        }
    }

    /** Declares silent peers lost (docs/protocol.md, "Timeouts"), in a turn of the loop. */
    void expire() {
        onLoop(() -> {
            expireNow();
            return null;
        });
    }

    private void expireNow() {
        if (closed) {
            return;
        }
        long now = clock.millis();
        List<AgentPeer> lostAgents = new ArrayList<>();
        List<JobMasterPeer> lostJobMasters = new ArrayList<>();
        if (window != null || rebuilding) {
            return; // nobody is lost before the master rebuilt
        }
        for (AgentPeer a : agents.values()) {
            if (a.registration != null && !a.lost && now - a.lastSeen > options.agentTimeout().toMillis()) {
                a.lost = true;
                lostAgents.add(a);
            }
        }
        for (JobMasterPeer j : jobMasters.values()) {
            if (!j.lost && now - j.lastSeen > options.jobMasterTimeout().toMillis()) {
                j.lost = true;
                lostJobMasters.add(j);
            }
        }
        // Told after the slots there were taken back (so that their hint does not find offline slots
        // on the lost node still held), but those holding slots there now are the ones to tell.
        Map<String, List<JobMasterPeer>> toTell = holdersOn(lostAgents.stream().map(a -> a.node).toList());
        for (AgentPeer a : lostAgents) {
            try {
                try {
                    apply(new NodeRemoved(a.node, false));
                } catch (InvalidRequestException online) {
                    // It holds online work, which the master never takes back on its own: keep the
                    // online grants, send nothing new there until its agent returns, and run the
                    // offline ones again elsewhere (spec case 5).
                    apply(new NodeBlacklisted(a.node, true));
                    revokeOffline(a.node);
                }
                Set<UnitId> units;
                units = new LinkedHashSet<>(a.caps.keySet());
                sync(units, Set.of(a.node), true);
            } catch (RuntimeException ex) {
                // The engine refused both; the next round tries again.
                a.lost = false;
            }
        }
        tellNodeState(toTell, Hint.NodeState.LOST);
        renewPasses(now);
        retryRestarts(now);
        for (JobMasterPeer j : lostJobMasters) {
            if (restartable(j)) {
                restart(j); // spec case 3: started again elsewhere; its jobs, offline ones too, wait for it
                continue;
            }
            List<String> offline;
            offline = new ArrayList<>(j.jobs);
            Set<String> keep = query(v -> {
                Set<String> online = new HashSet<>();
                for (String job : offline) {
                    JobView jv = v.job(job);
                    if (jv != null && jv.units().stream().anyMatch(u -> u.kind() == UnitKind.ONLINE)) {
                        online.add(job);
                    }
                }
                return online;
            });
            for (String job : offline) {
                if (!keep.contains(job)) {
                    cancel(j, job, new ArrayList<>());
                    recovered.forget(job);
                }
            }
        }
    }

    /** Takes the offline grants off {@code node} and lets their units wait for slots elsewhere. */
    private void revokeOffline(String node) {
        List<int[]> counts = new ArrayList<>();
        List<UnitId> units = new ArrayList<>();
        query(v -> {
            NodeView n = v.cluster().node(node);
            if (n != null) {
                n.allocations().forEach((unit, slots) -> {
                    UnitView u = v.unit(unit);
                    if (u != null && u.kind() == UnitKind.OFFLINE) {
                        units.add(unit);
                        counts.add(new int[] {slots, u.desired()});
                    }
                });
            }
            return null;
        });
        for (int i = 0; i < units.size(); i++) {
            UnitId u = units.get(i);
            int slots = counts.get(i)[0];
            int desired = counts.get(i)[1];
            // A release lowers the desired count with the slots; raise it first so that they run again.
            collect(new ArrayList<>(), () -> apply(new UnitDesireChanged(u, desired + slots)));
            lower(node, u, slots, true);
            collect(new ArrayList<>(), () -> apply(new GrantReleased(u, node, slots)));
        }
        sync(new LinkedHashSet<>(units), Set.of(node), true);
    }

    // ---- restarting lost job masters (docs/recovery.md, "Restarting a lost job master") ---------

    /**
     * True if {@code job} is one of the master's restarts of a lost job master: its one online slot
     * is the master's own, and taking it back (when the job master is lost again, and its previous
     * start so stopped and fenced) is no revocation of a service's slot (docs/recovery.md).
     */
    public static boolean isRestartJob(String job) {
        return Restarts.isRestartJob(job);
    }

    /** A lost job master is started again if it said how and still runs jobs (one that ended them has nothing to fail over). */
    private boolean restartable(JobMasterPeer j) {
        return j.restart != null && !j.jobs.isEmpty();
    }

    /**
     * Spec case 3: ends a run of an earlier restart that holds a slot still (its process hangs: the
     * withdrawn cap stops it) and asks the engine for a slot for the next one. The lost incarnation
     * is fenced only once the next one runs — its agent reports the worker started, or it sends its
     * full request ({@link #fence}) — and if it comes back before that it goes on and the start is
     * called off ({@link #back}). Fencing it at once would leave nobody running its jobs if this
     * master died before the launch reached an agent: a new master knows nothing of the restart.
     */
    private void restart(JobMasterPeer j) {
        Restarts.Run old;
        String avoid;
        j.retryAt = Long.MAX_VALUE;
        old = restarts.current(j.id);
        avoid = j.restart == null ? null : j.restart.node();
        if (old != null) {
            avoid = old.node != null ? old.node : avoid;
            endRun(old);
        }
        beginRun(j, avoid);
    }

    /** Submits the restart job of {@code j}, kept off {@code avoid} when another node could hold its slot. */
    private void beginRun(JobMasterPeer j, String avoid) {
        Request.Restart spec;
        spec = j.restart;
        if (spec == null) {
            j.restarting = null; // a full request withdrew the spec meanwhile
            return;
        }
        boolean elsewhere = avoid != null && query(v -> {
            for (NodeView n : v.cluster().nodes()) {
                if (!n.name().equals(avoid) && spec.size().fitsIn(n.capacity())) {
                    return true;
                }
            }
            return false;
        });
        Restarts.Run run;
        run = restarts.begin(j.id, spec, elsewhere ? avoid : null);
        run.lostIncarnation = j.requestIncarnation;
        unitSpecs.put(run.unit, run.spec);
        j.restarting = "waiting for a node with room for " + spec.size() + (elsewhere ? " other than " + avoid : "");
        try {
            apply(new JobsSubmitted(List.of(run.job())));
            makeRoom(j, run, spec, elsewhere ? avoid : null);
        } catch (InvalidRequestException ex) {
            restarts.end(run);
            unitSpecs.remove(run.unit);
            j.restarting = "could not ask for a slot: " + ex.problems().get(0).message() + "; trying again";
            j.retryAt = clock.millis() + options.jobMasterTimeout().toMillis();
        }
    }

    /**
     * When no node has room for the restart's slot, the lost job master's own offline slots make it:
     * granted to it and not planned by anyone while it is away, they would otherwise hold the nodes
     * until its next incarnation — which needs one of them to start (a batch that filled the cluster
     * before its job master was lost). One slot is taken back where the job master holds the most
     * (not on {@code avoid}), and its unit still wants it: a worker there, if any, stops and runs
     * again later. Offline work only: online slots are never taken (docs/recovery.md).
     */
    private void makeRoom(JobMasterPeer j, Restarts.Run run, Request.Restart spec, String avoid) {
        Set<String> jobs;
        jobs = new HashSet<>(j.jobs);
        UnitId[] victim = new UnitId[1];
        String node = query(v -> {
            UnitView placed = v.unit(run.unit);
            if (placed == null || placed.granted() > 0) {
                return null; // placed already (or gone)
            }
            String best = null;
            int most = 0;
            for (NodeView n : v.cluster().nodes()) {
                if (spec.size().fitsIn(n.free()) && !n.name().equals(avoid) && !n.blacklisted()) {
                    return null; // room already
                }
            }
            for (NodeView n : v.cluster().nodes()) {
                if (n.name().equals(avoid) || n.blacklisted() || !spec.size().fitsIn(n.capacity())) {
                    continue;
                }
                for (Map.Entry<UnitId, Integer> a : n.allocations().entrySet()) {
                    UnitView u = v.unit(a.getKey());
                    if (u != null && jobs.contains(a.getKey().job()) && u.kind() == UnitKind.OFFLINE && a.getValue() > most
                            && spec.size().fitsIn(n.free().plus(u.slot()))) {
                        most = a.getValue();
                        best = n.name();
                        victim[0] = a.getKey();
                    }
                }
            }
            return best;
        });
        if (node == null) {
            return;
        }
        Integer desired = query(v -> v.unit(victim[0]) == null ? null : v.unit(victim[0]).desired());
        if (desired == null) {
            return;
        }
        // A release lowers the desired count with the slot: raise it first so that it is granted again later.
        collect(new ArrayList<>(), () -> apply(new UnitDesireChanged(victim[0], desired + 1)));
        lower(node, victim[0], 1, true);
        collect(new ArrayList<>(), () -> apply(new GrantReleased(victim[0], node, 1)));
        sync(Set.of(victim[0]), Set.of(node), true);
    }

    /** Cancels a run's job: its slot is freed and, if its process still runs, the withdrawn cap stops it. */
    private void endRun(Restarts.Run run) {
        String node;
        restarts.end(run);
        node = run.node;
        if (node != null) {
            lower(node, run.unit, Integer.MAX_VALUE, true);
        }
        collect(new ArrayList<>(), () -> apply(new JobCancelled(run.unit.job())));
        unitSpecs.remove(run.unit);
        if (node != null) {
            sync(Set.of(run.unit), Set.of(node), true);
        }
    }

    /** The engine granted (or took back) a restart's slot: the node it launches on. In a turn of the loop. */
    private void placed(UnitId unit, String node, int delta) {
        Restarts.Run run = restarts.of(unit.job());
        if (run == null) {
            return;
        }
        run.node = delta > 0 ? node : null;
        run.launchedAt = clock.millis();
        JobMasterPeer j = jobMasters.get(run.jobMaster);

        if (j != null && j.restarting != null) {
            j.restarting = delta > 0 ? "launched on " + node + ", waiting for its full request" : "waiting for a node";
        }
    }

    /**
     * An agent started a restarted job master's process: the incarnation it replaces is fenced, and
     * an earlier start that died is ended (this one's cap holds the launch now).
     */
    private void restartsStarted(List<Heartbeat.Worker> started) {
        List<JobMasterPeer> running = new ArrayList<>();
        for (Heartbeat.Worker w : started) {
            Restarts.Run run = restarts.of(w.unit().job());
            if (run != null && !restarts.isSpent(run)) {
                fence(run);
                addIfNotNull(running, jobMasters.get(run.jobMaster));
            }
        }
        running.forEach(this::endSpent);
    }

    /** The next incarnation of {@code run}'s job master runs: the lost one's messages are refused from now on. In a turn of the loop. */
    private void fence(Restarts.Run run) {
        JobMasterPeer j = jobMasters.get(run.jobMaster);
        if (j != null && run.lostIncarnation >= 0) {
            j.fencedThrough = Math.max(j.fencedThrough, run.lostIncarnation);
        }
    }

    /**
     * A restarted job master's process exited (its slot was released like any worker's): its run
     * ends. Exit 0 is a job master that finished on purpose: it is not started again. Otherwise, if
     * it never reported back, it is tried again after another timeout.
     */
    private void restartsExited(List<Heartbeat.Exit> exited) {
        for (Heartbeat.Exit x : exited) {
            Restarts.Run run;
            JobMasterPeer j;
            run = restarts.of(x.unit().job());
            j = run == null ? null : jobMasters.get(run.jobMaster);
            if (run == null || x.stopped()) {
                continue;
            }
            endRun(run);
            if (j != null && x.exitCode() == 0) {
                j.restart = null;
                j.restarting = null;
            } else if (j != null && j.restarting != null) {
                j.restarting = "its start on " + run.node + " exited with " + x.exitCode() + "; trying again";
                j.retryAt = clock.millis() + options.jobMasterTimeout().toMillis();
            }
        }
    }

    /**
     * True if exit {@code x} is that of a process the master started for a lost job master that ran
     * and died, while the job master still needs starting (it said how, runs jobs, and no start is
     * under way): unless another incarnation speaks within a short grace, it is started again now,
     * not a timeout later. Its run is retired, not ended: its slot is not released, and the cap there
     * keeps the launch on its agent until a later start's process runs or the job master speaks.
     * Released at once, only this master's memory held the spec until the next launch reached an
     * agent, and a failover in between left the jobs to nobody (kit seed 8097; docs/recovery.md,
     * "Restarting a lost job master"). A spent run it displaces goes to {@code displaced}, to end.
     * In a turn of the loop.
     */
    private boolean keepsLaunch(Heartbeat.Exit x, List<Restarts.Run> displaced) {
        Restarts.Run run = restarts.of(x.unit().job());
        JobMasterPeer j = run == null ? null : jobMasters.get(run.jobMaster);
        if (j == null || x.stopped() || x.exitCode() == 0 || restarts.isSpent(run) || j.restarting != null
                || j.restart == null || j.jobs.isEmpty()) {
            return false;
        }
        addIfNotNull(displaced, restarts.retire(run));
        long now = clock.millis();
        long grace = Math.min(options.jobMasterTimeout().toMillis(), RESTART_GRACE_MILLIS);
        j.restarting = "its process on " + run.node + " exited with " + x.exitCode()
                + "; started again unless another incarnation speaks within " + grace + " ms";
        j.retryAt = now + grace;
        j.diedAt = now;
        return true;
    }

    /**
     * Ends the spent run of {@code j}, if any: a later start's process runs, or the job master spoke
     * for itself, so the launch its cap kept is needed no more (its process is gone already).
     */
    private void endSpent(JobMasterPeer j) {
        Restarts.Run spent;
        spent = restarts.takeSpent(j.id);
        if (spent != null) {
            endRun(spent);
        }
    }

    /**
     * Starts again the restarts whose last attempt failed, once their retry is due, and those launched
     * a timeout ago whose job master never reported back (the start hangs: its slot is taken back,
     * which stops it, and the next start avoids that node).
     */
    private void retryRestarts(long now) {
        List<JobMasterPeer> due = new ArrayList<>();
        List<JobMasterPeer> hung = new ArrayList<>();
        List<JobMasterPeer> settled = new ArrayList<>();
        for (JobMasterPeer j : jobMasters.values()) {
            Restarts.Run run = restarts.current(j.id);
            if (j.restarting == null || j.restart == null) {
                continue;
            }
            if (run == null && j.retryAt <= now) {
                j.retryAt = Long.MAX_VALUE;
                if (j.diedAt > 0 && (j.lastSeen > j.diedAt || j.jobs.isEmpty())) {
                    j.restarting = null; // another incarnation speaks for it, or its jobs ended: nothing to start
                    settled.add(j);
                } else {
                    due.add(j);
                }
                j.diedAt = 0;
            } else if (run != null && run.node != null && now - run.launchedAt > options.jobMasterTimeout().toMillis()) {
                hung.add(j);
            }
        }
        for (JobMasterPeer j : due) {
            Request.Restart spec;
            spec = j.restart;
            beginRun(j, spec == null ? null : spec.node());
        }
        hung.forEach(this::restart);
        settled.forEach(this::endSpent);
    }

    /**
     * A full request was applied: the job master says again how to restart it (or no longer does).
     * While a restart runs: the lost incarnation itself, back before its successor ran (it is not
     * fenced yet), goes on and the start is called off, placed or not (a withdrawn cap stops a launch);
     * a newer incarnation is the start itself, if the start was placed (the lost one is fenced now),
     * or one its operator started, if the start still waits for a slot (the start is not needed). A run that holds its slot is left alone: its
     * process is, most likely, this incarnation; its slot is freed when it exits.
     */
    private void back(JobMasterPeer p, Request r, boolean reborn) {
        Restarts.Run waiting;
        p.restart = r.restart();
        p.restarting = null;
        p.retryAt = Long.MAX_VALUE;
        Restarts.Run run = restarts.current(p.id);
        if (run != null && run.lostIncarnation < 0 && run.node != null && r.restart() != null
                && run.node.equals(r.restart().node()) && reborn) {
            // A run this master found in an agent's caps after it restarted: the incarnation that
            // reports from its node is its process, and every one before it is the lost one.
            run.lostIncarnation = p.requestIncarnation - 1;
        }
        boolean lostOneBack = run != null && p.requestIncarnation == run.lostIncarnation;
        if (run != null && !lostOneBack && run.node != null) {
            fence(run);
        }
        waiting = run != null && (lostOneBack || run.node == null) ? run : null;
        if (waiting != null && waiting.node != null) {
            // its launch may have started a process already: that one is told to exit when it speaks
            p.calledOffNode = waiting.node;
            p.calledOffUntil = clock.millis() + options.jobMasterTimeout().toMillis();
        }
        if (waiting != null) {
            endRun(waiting);
        }
        endSpent(p); // it says how to start it again itself now
    }

    /**
     * True if {@code e} comes from the process of a start the master called off (the lost
     * incarnation came back first): a newer incarnation whose first full request says it runs on the
     * node that start was placed on, within a timeout of the call-off. In a turn of the loop.
     */
    private boolean calledOff(JobMasterPeer p, Envelope e) {
        if (p.calledOffNode == null || clock.millis() > p.calledOffUntil) {
            p.calledOffNode = null;
            return false;
        }
        return e.incarnation() > p.requestIncarnation && e.message() instanceof Request r && r.full() && r.restart() != null
                && p.calledOffNode.equals(r.restart().node());
    }

    /**
     * The restarts the agents' caps hold (a cap of a restart slot carries its launch): taken on as
     * runs, so that a restart survives a failover of this master (docs/recovery.md, "Restarting a
     * lost job master"). In a turn of the loop.
     */
    private void recoverRestarts(Rebuild b, long now) {
        Set<String> adopted = new HashSet<>();
        b.adoptions().forEach(a -> adopted.add(a.unit() + "@" + a.node()));
        for (AgentPeer a : agents.values()) {
            if (a.registration == null) {
                continue;
            }
            for (granary.protocol.Cap.Grant g : a.registration.caps()) {
                if (adopted.contains(g.unit() + "@" + a.node)) {
                    recoverRestart(a.node, g, now);
                }
            }
        }
    }

    /** Takes on restart job {@code job} from the caps a late agent brought. In a turn of the loop. */
    private boolean restartOf(String job, String node, List<granary.protocol.Cap.Grant> caps, long now) {
        for (granary.protocol.Cap.Grant g : caps) {
            if (g.unit().job().equals(job) && g.slots() > 0 && recoverRestart(node, g, now)) {
                return true;
            }
        }
        return false;
    }

    /**
     * Takes on the restart whose slot {@code g} on {@code node} holds, if it is one (its cap names
     * the master as owner and carries the launch). In a turn of the loop. Returns whether it was one.
     */
    private boolean recoverRestart(String node, granary.protocol.Cap.Grant g, long now) {
        if (g.launch() == null || !Restarts.OWNER.equals(g.jobMaster())) {
            return false;
        }
        Restarts.Run run = restarts.recover(g.unit(), g.launch(), g.size(), node, now);
        if (run == null) {
            return false;
        }
        JobMasterPeer j = jobMasters.computeIfAbsent(run.jobMaster, JobMasterPeer::new);
        if (restarts.isSpent(run)) {
            return true; // a start that died, kept for its launch while a later one is under way: that one fences
        }
        if (j.restart == null) {
            // the spec died with the master before: the cap's launch and slot say it again, so
            // that the process it started is started again if it dies before it reports
            j.restart = new Request.Restart(g.launch(), g.size(), node);
        }
        if (node.equals(j.restart.node()) && j.requestIncarnation > 0) {
            // its process reported already: the incarnations before it are the lost one
            run.lostIncarnation = j.requestIncarnation - 1;
            fence(run);
        }
        return true;
    }

    /** The refusal of a fenced incarnation: it was declared lost and replaced; the process should exit. */
    private Problem fenced(JobMasterPeer j, long incarnation) {
        return Problem.of("job master " + j.id + " incarnation " + incarnation, "$.incarnation",
                "incarnation " + incarnation + " is fenced: job master " + j.id + " was declared lost after "
                        + options.jobMasterTimeout().toSeconds() + " s of silence and the master started it again; "
                        + "this process must exit");
    }

    /** The job master a cap of {@code job} is issued for: its owner, or the master for a restart. In a turn of the loop. */
    private String capOwner(String job) {
        String o = owners.get(job);
        return o != null ? o : restarts.owner(job);
    }

    private String restartNote(JobMasterPeer j) {
        if (j.restarting != null) {
            return j.restarting;
        }
        Restarts.Run run = restarts.current(j.id);
        return run == null || run.node == null ? "" : "runs on " + run.node + " (started by the master)";
    }

    // ---- status ---------------------------------------------------------------------------------

    /**
     * Where the master's books (what it tells agents and job masters) differ from its engine's
     * grants; empty when they agree. For the conformance kit, which asks after every step: a drift
     * is a cap or hint that says something the engine does not hold.
     */
    public List<String> drift() {
        return onLoop(this::driftNow);
    }

    private List<String> driftNow() {
        return query(v -> {
            List<String> out = new ArrayList<>();
            if (window != null || rebuilding) {
                return out;
            }
            for (AgentPeer a : agents.values()) {
                NodeView n = v.cluster().node(a.node);
                if (a.registration == null || n == null) {
                    continue;
                }
                Map<UnitId, Integer> engine = new HashMap<>(n.allocations());
                if (!engine.equals(a.caps)) {
                    out.add("agent " + a.node + ": the master's caps " + a.caps + ", its engine " + engine);
                }
            }
            for (JobMasterPeer j : jobMasters.values()) {
                for (String job : j.jobs) {
                    JobView jv = v.job(job);
                    if (jv == null) {
                        continue;
                    }
                    for (UnitView u : jv.units()) {
                        Map<String, Integer> engine = new HashMap<>(u.allocations());
                        Map<String, Integer> mirror = new HashMap<>(j.placements.getOrDefault(u.id(), Map.of()));
                        // slots kept for an agent that has not come back (docs/recovery.md): not in the engine yet
                        mirror.keySet().removeIf(node -> v.cluster().node(node) == null);
                        if (!engine.equals(mirror)) {
                            out.add("job master " + j.id + " unit " + u.id() + ": the master's hints " + mirror + ", its engine " + engine);
                        }
                    }
                }
            }
            return out;
        });
    }

    /** Every agent the master knows, by node name. */
    @Override
    public List<PeerStatus> agents() {
        return onLoop(this::agentsNow);
    }

    private List<PeerStatus> agentsNow() {
        long now = clock.millis();
        List<PeerStatus> out = new ArrayList<>();
        for (AgentPeer a : agents.values()) {
            if (a.registration != null) {
                out.add(new PeerStatus("agent", a.node, a.lost ? "lost" : "live", a.registeredIncarnation, now - a.lastSeen,
                        a.caps.size(), a.slots(), a.workers, 0, a.registration.endpoint(), "",
                        a.usage == null ? null : a.usage.node(), a.unhealthy == null ? "" : a.unhealthy));
            }
        }
        out.sort(java.util.Comparator.comparing(PeerStatus::id));
        return out;
    }

    /** Every job master the master knows, by id. */
    @Override
    public List<PeerStatus> jobMasters() {
        return onLoop(this::jobMastersNow);
    }

    private List<PeerStatus> jobMastersNow() {
        long now = clock.millis();
        List<PeerStatus> out = new ArrayList<>();
        for (JobMasterPeer j : jobMasters.values()) {
            String state = j.restarting != null ? "restarting" : j.lost ? "lost" : "live";
            out.add(new PeerStatus("job-master", j.id, state, j.requestIncarnation, now - j.lastSeen,
                    j.placements.size(), j.slots(), -1, j.jobs.size(), "-", restartNote(j)));
        }
        out.sort(java.util.Comparator.comparing(PeerStatus::id));
        return out;
    }

    /**
     * Milliseconds from a change of grants to the cap or hint carrying it leaving the master, over
     * the last {@value Latencies#KEPT} deliveries: {@code [count, p50, p99]} ({@code -1} with none).
     */
    public long[] deliveryLatency() {
        return onLoop(this::deliveryLatencyNow);
    }

    private long[] deliveryLatencyNow() {
        return new long[] {latencies.count(), latencies.quantile(0.5), latencies.quantile(0.99)};
    }

    @Override
    public DeliveryStats deliveryStats() {
        long[] counts = new long[2];
        long[] kept = onLoop(() -> {
            counts[0] = latencies.count();
            counts[1] = latencies.sum();
            return latencies.kept();
        });
        java.util.Arrays.sort(kept); // off the loop: peers' messages need not wait for a scrape
        return new DeliveryStats(counts[0], counts[1], Latencies.quantile(kept, 0.5), Latencies.quantile(kept, 0.99));
    }

    private String key(String jobMaster) {
        return keys.computeIfAbsent(jobMaster, jm -> Tokens.key(tokens.issue(new Sender(Role.JOB_MASTER, jm))));
    }

    // ---- helpers --------------------------------------------------------------------------------

    /** Applies {@code event} at once (a turn of the loop runs on the engine's thread). */
    private void apply(InputEvent event) {
        engine.apply(event);
    }

    /** Reads the engine at once (a turn of the loop runs on the engine's thread). */
    private <T> T query(Function<? super EngineView, T> q) {
        return q.apply(engine.view());
    }

    /**
     * Runs {@code work} as one turn of the master's loop: on the engine's thread, between two
     * events, with nothing else touching the master's state (docs/architecture.md, "The master's
     * loop"). Within a turn, at once.
     */
    private <T> CompletableFuture<T> turn(java.util.function.Supplier<T> work) {
        return scheduler.onEngine(access -> {
            EngineAccess outer = engine;
            engine = access;
            try {
                return work.get();
            } finally {
                engine = outer;
                if (outer == null) {
                    sendDue();
                }
            }
        });
    }

    /** A turn of the loop, waited for (for callers outside it: monitors, the timer, tests). */
    private <T> T onLoop(java.util.function.Supplier<T> work) {
        return waitFor(turn(work), () -> {
            throw new IllegalStateException("the master's loop did not answer within " + options.engineTimeout().toMillis() + " ms");
        }, "a call");
    }

    private <T> T waitFor(CompletableFuture<T> f, java.util.function.Supplier<T> late, String what) {
        try {
            return f.get(options.engineTimeout().toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException ex) {
            if (ex.getCause() instanceof RuntimeException re) {
                throw re;
            }
            throw new IllegalStateException("the master's loop failed on " + what + ": " + ex.getCause(), ex.getCause());
        } catch (TimeoutException ex) {
            return late.get();
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for the master's loop");
        }
    }

    private static CompletableFuture<Reply> done(Reply r) {
        return CompletableFuture.completedFuture(r);
    }

    /**
     * The answer to a message or poll whose turn did not end normally: 503 if the master is shutting
     * down (its engine stopped), else 500 — a fault of the master, logged whole for its operators;
     * the peer hears only that it may send again (nothing of the message was acknowledged).
     */
    private Reply failed(String subject, long sequence, Throwable ex) {
        Throwable cause = ex instanceof java.util.concurrent.CompletionException && ex.getCause() != null ? ex.getCause() : ex;
        if (closed || cause instanceof IllegalStateException && String.valueOf(cause.getMessage()).contains("stopped")) {
            return shuttingDown(subject, sequence);
        }
        faults.accept(subject, cause);
        return reply(500, sequence, Problem.of(subject, "$", "the master failed while applying this message (its log says why); send again"));
    }

    private Reply shuttingDown(String subject, long sequence) {
        return reply(503, sequence, Problem.of(subject, "$", "the master is shutting down"));
    }

    private static void collect(List<Problem> problems, Runnable r) {
        try {
            r.run();
        } catch (InvalidRequestException ex) {
            problems.addAll(ex.problems());
        }
    }

    private static NodeSpec spec(NodeView n) {
        return n == null ? null : new NodeSpec(n.name(), n.room(), n.capacity(), n.labels());
    }

    private static <T> void addIfNotNull(List<T> list, T t) {
        if (t != null) {
            list.add(t);
        }
    }

    private static Ack refuse(Envelope e, Problem... problems) {
        return Ack.refused(e.sequence(), List.of(problems));
    }

    private Reply reply(int status, long sequence, Problem problem) {
        return reply(status, Ack.refused(sequence, List.of(problem)));
    }

    private Reply reply(int status, Ack ack) {
        return new Reply(status, codec.encode(Envelope.of(self, options.incarnation(), 0, ack)));
    }

    @Override
    public void close() {
        closed = true;
        try {
            subscription.close();
        } catch (Exception ex) {
            // the scheduler is going away too
        }
        timer.shutdownNow();
        expiry.shutdownNow();
        List<CompletableFuture<Reply>> parked = new ArrayList<>();
        try {
            onLoop(() -> {
                agents.values().forEach(a -> addIfNotNull(parked, a.outbox.unpark()));
                jobMasters.values().forEach(j -> addIfNotNull(parked, j.outbox.unpark()));
                return null;
            });
        } catch (RuntimeException engineGone) {
            // the engine stopped first: its parked polls were failed with it, and answered 503 by the edge
        }
        Reply bye = shuttingDown(self.toString(), 0);
        parked.forEach(f -> f.complete(bye));
    }
}

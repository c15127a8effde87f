package granary.master;

import granary.api.event.EngineAccess;
import granary.api.event.Granted;
import granary.api.event.OutputEvent;
import granary.api.event.Revoked;
import granary.api.event.Scheduler;
import granary.api.model.Clock;
import granary.api.model.Problem;
import granary.api.model.UnitKind;
import granary.api.spi.EngineView;
import granary.api.spi.JobView;
import granary.api.spi.UnitView;
import granary.protocol.Ack;
import granary.protocol.Envelope;
import granary.protocol.Heartbeat;
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
import granary.protocol.link.Tokens;
import granary.recovery.Recovered;
import granary.recovery.Recovery;
import granary.recovery.RecoveryOptions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

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
 *
 * <p>This class is the edge and the dispatch: it checks a message, runs its turn and answers. The
 * logic lives in parts over one shared {@link MasterBook}, each calling only the parts before it:
 * {@link Delivery} (caps and hints out), {@link Mirrors} (the grants per peer), {@link Restarting}
 * (lost job masters started again), {@link Recovering} (the window and the rebuild),
 * {@link AgentHandler} and {@link RequestHandler} (one per message kind), {@link Timeouts} and
 * {@link MasterStatus}.
 */
public final class ProtocolMaster implements Endpoint, MasterMonitor, AutoCloseable {

    private final Scheduler scheduler;
    private final Tokens tokens;
    private final MasterOptions options;
    private final Clock clock;
    private final WireCodec codec = new WireCodec(Role.MASTER);
    private final ScheduledExecutorService timer;
    private final ScheduledExecutorService expiry;
    private final AutoCloseable subscription;
    /** Messages checked at the edge, in arrival order, for the next turn ({@link #drain}). */
    private final java.util.concurrent.ConcurrentLinkedQueue<Incoming> inbox = new java.util.concurrent.ConcurrentLinkedQueue<>();
    /** True while a turn that drains the inbox is queued or runs. */
    private final java.util.concurrent.atomic.AtomicBoolean draining = new java.util.concurrent.atomic.AtomicBoolean();
    /** What the master knows; read and written in turns of its loop only. */
    private final MasterBook book;
    private final Replies replies;
    // its parts, each calling only those above it in this list
    private final Delivery delivery;
    private final Mirrors mirrors;
    private final Restarting restarting;
    private final Recovering recovering;
    private final AgentHandler agentHandler;
    private final RequestHandler requestHandler;
    private final Timeouts timeouts;
    private final MasterStatus status;

    /** A master with nothing to recover (no recovery window). */
    public ProtocolMaster(Scheduler scheduler, Tokens tokens, MasterOptions options, Clock clock) {
        this(scheduler, tokens, options, clock, Recovery.of(RecoveryOptions.none()));
    }

    /** A master that starts empty and opens {@code recovery}'s window at once (docs/recovery.md). */
    public ProtocolMaster(Scheduler scheduler, Tokens tokens, MasterOptions options, Clock clock, Recovery recovery) {
        this.scheduler = scheduler;
        this.tokens = tokens;
        this.options = options;
        this.clock = clock;
        this.book = new MasterBook(options, clock, recovery.options().window().isZero() ? null : recovery.open(clock.millis()));
        this.replies = new Replies(codec, new Sender(Role.MASTER, options.name()), book, (subject, fault) -> {
            System.err.println("granary master: a turn for " + subject + " failed:");
            fault.printStackTrace();
        });
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
        this.delivery = new Delivery(book, replies, tokens);
        this.mirrors = new Mirrors(book);
        this.restarting = new Restarting(book, mirrors);
        this.recovering = new Recovering(book, mirrors, restarting, timer);
        this.agentHandler = new AgentHandler(book, mirrors, recovering, restarting);
        this.requestHandler = new RequestHandler(book, mirrors, recovering, restarting);
        this.timeouts = new Timeouts(book, mirrors, restarting, requestHandler);
        this.status = new MasterStatus(book, restarting);
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
            recovering.recoverIfDue();
            heardWaiting();
            timeouts.expireNow();
            return null;
        });
    }

    @Override
    public Rebuilt lastRebuild() {
        return book.lastRebuild;
    }

    /** True while the master listens after starting empty, or rebuilds from what it heard. */
    public boolean recovering() {
        return book.window != null || book.rebuilding;
    }

    @Override
    public RecoveryState recoveryState() {
        return book.window != null ? RecoveryState.WINDOW_OPEN : book.rebuilding ? RecoveryState.REBUILDING : RecoveryState.SERVING;
    }

    /**
     * Where the master is in its start, with the engine's nodes, jobs and granted slots (all, and of
     * online units), read in one turn of the loop: for the console's {@code granary:recovery}.
     */
    public RecoveryStatus recoveryStatus() {
        return onLoop(() -> {
            Rebuilt r = book.lastRebuild;
            long[] slots = new long[2];
            EngineView v = book.engine.view();
            for (JobView j : v.jobs()) {
                for (UnitView u : j.units()) {
                    slots[0] += u.granted();
                    slots[1] += u.kind() == UnitKind.ONLINE ? u.granted() : 0;
                }
            }
            return new RecoveryStatus(recoveryState(), book.windowOpenedAt, r == null ? -1 : r.closedAtMillis(),
                    r == null ? -1 : r.closedAtMillis() + r.nanos() / 1_000_000, v.cluster().size(), v.jobs().size(),
                    slots[0], slots[1]);
        });
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
            return replies.notLeader("connection from " + remote);
        }
        return tokens.verify(Tokens.bearer(authorization)) == null ? unauthorized(authorization, remote) : null;
    }

    private Reply unauthorized(String authorization, String remote) {
        String token = Tokens.bearer(authorization);
        String why = authorization == null || authorization.isBlank() ? "no token: send 'Authorization: Bearer <token>' with a token the master issued"
                : token == null || token.isEmpty() ? "the Authorization header is not 'Bearer <token>'"
                : "the token is " + java.util.Objects.requireNonNullElse(tokens.refusal(token), "not valid for this master");
        return replies.reply(401, 0, Problem.of("connection from " + remote, "Authorization", why));
    }

    @Override
    public Reply post(String authorization, byte[] body, String remote) {
        // a loop that does not answer in time: 503, the peer sends again (the session applies it once)
        return waitFor(postAsync(authorization, body, remote), () -> replies.reply(503, 0, Problem.of("connection from " + remote, "$",
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
            return done(replies.notLeader("connection from " + remote)); // HA: checked first, so nothing changes (docs/ha.md, "The lease")
        }
        Sender who = tokens.verify(Tokens.bearer(authorization));
        if (who == null) {
            return done(unauthorized(authorization, remote));
        }
        if (body.length > WireCodec.MAX_MESSAGE_BYTES) {
            return done(replies.reply(413, 0, Problem.of(who.toString(), "$", "the message is more than " + WireCodec.MAX_MESSAGE_BYTES
                    + " bytes, the limit", WireCodec.MAX_MESSAGE_BYTES, body.length)));
        }
        Envelope e;
        try {
            e = codec.decode(body, who.toString());
        } catch (ProtocolException ex) {
            return done(replies.reply(400, Ack.refused(0, ex.problems())));
        }
        if (!e.sender().equals(who)) {
            return done(replies.reply(403, e.sequence(), Problem.of(who.toString(), "$.sender", "the token of " + who
                    + " cannot speak for " + e.sender())));
        }
        long latest = clock.millis() + INCARNATION_AHEAD_MILLIS;
        if (e.incarnation() > latest) {
            // Incarnations are start times: one far ahead of this master's clock would shut every
            // later start of the peer out as "older" (docs/security.md, "Incarnations").
            return done(replies.reply(400, e.sequence(), Problem.of(who.toString(), "$.incarnation", "incarnation " + e.incarnation()
                    + " is more than a day ahead of this master's clock: a peer's incarnation is the time it started, in ms",
                    latest, e.incarnation())));
        }
        if (book.closed) {
            return done(replies.shuttingDown(who.toString(), e.sequence()));
        }
        byte[] passKey = who.role() == Role.AGENT ? Tokens.keyOf(Tokens.bearer(authorization)) : null;
        CompletableFuture<Reply> answer = new CompletableFuture<>();
        inbox.add(new Incoming(who, e, passKey, answer, clock.millis()));
        drainSoon();
        return answer;
    }

    /** A message checked at the edge, waiting for its turn, and where its answer goes; {@code arrived}: the master's clock then. */
    private record Incoming(Sender who, Envelope e, byte[] passKey, CompletableFuture<Reply> answer, long arrived) {
    }

    /**
     * The agent {@code who} was heard at {@code at}: a message of it reached the master, whether it is
     * applied, answered 503 because its time passed before its turn, or still waits for a turn. In a
     * turn of the loop. A master too busy to apply a heartbeat in time must not take its agent for
     * silent (issue 23: at 20,000 agents the restarted master declared live agents lost whose
     * heartbeats were waiting, and their offline slots ran again elsewhere). An agent is seen by any
     * message of its node, as when it is applied. A job master is seen only by a message of an
     * incarnation that is not fenced, which is known when the message is applied: its last sight also
     * decides whether a lost job master came back or is started again (the conformance kit's seed 5: a
     * late message of a failed-over job master's old process, counted on arrival, kept it "seen" and its
     * jobs were never run again).
     */
    private void heard(Sender who, long at) {
        AgentPeer peer = who.role() == Role.AGENT ? book.agents.get(who.id()) : null;
        if (peer != null && at > peer.lastSeen) {
            peer.lastSeen = at;
        }
    }

    /** Every agent with a message waiting for its turn was heard when it arrived; before a timeout is judged. */
    private void heardWaiting() {
        for (Incoming m : inbox) {
            heard(m.who(), m.arrived());
        }
    }

    /** Turns that applied messages, and the messages they applied; in turns of the loop. */
    private long batches;
    private long batched;
    /** Messages not applied: answered at the edge (their time passed) before their turn came. */
    private long expired;

    @Override
    public Batches batches() {
        return onLoop(() -> new Batches(batches, batched, expired));
    }

    /** Messages checked at the edge and waiting for a turn now. */
    int waiting() {
        return inbox.size();
    }

    /** The most messages one turn applies; the rest wait for the next, behind polls and ticks. */
    static final int MAX_BATCH = 64;

    /**
     * Runs a turn that applies the waiting messages, unless one is on its way. Whatever arrives while
     * it runs waits for the next one.
     */
    private void drainSoon() {
        if (!draining.compareAndSet(false, true)) {
            return;
        }
        turn(this::drain).whenComplete((x, failure) -> {
            if (failure != null) {
                // the loop is gone (shutting down) or the batch's cycle failed: what waits is answered
                replies.failed("a batch of messages", 0, failure);
                for (Incoming m; (m = inbox.poll()) != null; ) {
                    m.answer().complete(replies.failed(m.who().toString(), m.e().sequence(), failure));
                }
            }
            draining.set(false);
            if (!inbox.isEmpty()) {
                // arrived after the turn took its last one, or more than a turn takes: the next turn
                // is queued behind what waits on the loop (polls, ticks), never run inside this one
                // (issue 23: run inside it, a loop whose inbox never emptied overflowed its stack)
                scheduler.query(v -> null).whenComplete((y, f) -> {
                    if (!inbox.isEmpty()) {
                        drainSoon();   // unless a turn begun meanwhile took them
                    }
                });
            }
        });
    }

    /**
     * One turn of the loop for every message waiting (up to {@value #MAX_BATCH}), each applied whole
     * and answered in arrival order, with one engine cycle for all of them at the end: a round of
     * heartbeats' releases is decided together, and each peer gets one cap or hint of all of it
     * (docs/architecture.md, "The master's loop").
     */
    private Void drain() {
        batches++;
        book.engine.batch(() -> {
            for (int n = 0; n < MAX_BATCH; ) {
                Incoming m = inbox.poll();
                if (m == null) {
                    return;
                }
                heard(m.who(), m.arrived());
                if (m.answer().isDone()) {
                    // its time at the edge passed while it waited (503): the peer sends it again, so
                    // applying it now is work for nobody; under overload that work crowded out the rest
                    expired++;
                    continue;
                }
                n++;
                batched++;
                Reply r;
                try {
                    r = received(m.who(), m.e(), m.passKey());
                } catch (RuntimeException fault) {
                    r = replies.failed(m.who().toString(), m.e().sequence(), fault);
                }
                m.answer().complete(r);
            }
        });
        return null;
    }

    /** One message, checked at the edge, in a turn of the loop. */
    private Reply received(Sender who, Envelope e, byte[] passKey) {
        if (book.rebuilding) {
            return replies.reply(503, e.sequence(), Problem.of(who.toString(), "$",
                    "the master is rebuilding its grants after a restart; send again"));
        }
        Reply answer = switch (who.role()) {
            case AGENT -> fromAgent(e, passKey);
            case JOB_MASTER -> fromJobMaster(e);
            case MASTER -> replies.reply(403, e.sequence(), Problem.of(who.toString(), "$.sender", "a master does not send to a master"));
        };
        if (!options.manualTicks()) {
            recovering.recoverIfDue(); // a report that completes the window closes it without waiting for the timer
        }
        if (!options.lease().held()) {
            // HA: the lease lapsed while the message was applied (a pause): this master steps down and
            // forgets it, so it must not be acknowledged; the peer sends it to the next master
            return replies.notLeader(who.toString());
        }
        return answer;
    }

    /** @param passKey the key of the token the agent sent: what seals the plan passes for its node */
    private Reply fromAgent(Envelope e, byte[] passKey) {
        String node = e.sender().id();
        if (!(e.message() instanceof Register) && !(e.message() instanceof Heartbeat)) {
            return replies.reply(400, e.sequence(), Problem.of(e.sender().toString(), "$.type", "an agent sends register and heartbeat to the master, not "
                    + e.message().type()));
        }
        AgentPeer peer;
        peer = book.agents.get(node);
        if (peer == null) {
            if (!(e.message() instanceof Register)) {
                return replies.reply(409, e.sequence(), Problem.of(e.sender().toString(), "$.type",
                        "this master does not know agent " + node + ": register first"));
            }
            peer = new AgentPeer(node);
            book.agents.put(node, peer);
        }
        peer.lastSeen = clock.millis();
        if (e.message() instanceof Register) {
            peer.passKey = passKey;
        }
        AgentPeer p = peer;
        Session.Result result;
        result = p.session.accept(e, env -> env.message() instanceof Register r ? agentHandler.register(p, env, r) : agentHandler.heartbeat(p, env, (Heartbeat) env.message()));
        if (p.registration == null && book.agents.get(node) == p) {
            book.agents.remove(node);
        }
        return answer(result);
    }

    private Reply fromJobMaster(Envelope e) {
        String id = e.sender().id();
        if (!(e.message() instanceof Request)) {
            return replies.reply(400, e.sequence(), Problem.of(e.sender().toString(), "$.type", "a job master sends request to the master, not "
                    + e.message().type() + " (plans go to the agents)"));
        }
        if (id.equals(Restarts.OWNER)) {
            return replies.reply(403, e.sequence(), Problem.of(e.sender().toString(), "$.sender.id", "job master id " + id
                    + " is reserved for the master's own restarts of lost job masters"));
        }
        JobMasterPeer peer;
        boolean created = false;
        peer = book.jobMasters.get(id);
        if (peer != null && e.incarnation() <= peer.fencedThrough) {
            return replies.reply(409, e.sequence(), restarting.fenced(peer, e.incarnation()));
        }
        if (peer != null && restarting.calledOff(peer, e)) {
            return replies.reply(409, e.sequence(), Problem.of("job master " + id + " incarnation " + e.incarnation(), "$.incarnation",
                    "incarnation " + e.incarnation() + " is fenced: the master started it on " + peer.calledOffNode
                            + " for job master " + id + ", then called that start off when incarnation "
                            + peer.requestIncarnation + " came back; this process must exit"));
        }
        if (peer == null) {
            if (!((Request) e.message()).full()) {
                return replies.reply(409, e.sequence(), Problem.of(e.sender().toString(), "$.message.full",
                        "this master does not know job master " + id + ": send a full request first"));
            }
            peer = new JobMasterPeer(id);
            book.jobMasters.put(id, peer);
            created = true;
        }
        peer.lastSeen = clock.millis();
        JobMasterPeer p = peer;
        Session.Result result;
        result = p.session.accept(e, env -> requestHandler.request(p, env, (Request) env.message()));
        // A peer made for this message whose full request was refused is forgotten again; a
        // placeholder the rebuild made for mock jobs (no request yet either) keeps them (docs/recovery.md, "The 17 cases": 11).
        if (created && p.requestIncarnation < 0 && book.jobMasters.get(id) == p) {
            book.jobMasters.remove(id);
        }
        return answer(result);
    }

    private Reply answer(Session.Result r) {
        int status = r.outcome() == Session.Outcome.REFUSED ? 409 : r.ack().isRefusal() ? 400 : 200;
        return replies.reply(status, r.ack());
    }

    // ---- engine output --------------------------------------------------------------------------

    private void onOutput(OutputEvent event) {
        if (event instanceof Granted g) {
            if (!book.adopting) {
                mirrors.move(g.unit(), g.node(), g.slots(), false);
            }
            restarting.placed(g.unit(), g.node(), g.slots());
        } else if (event instanceof Revoked r) {
            mirrors.move(r.unit(), r.node(), -r.slots(), true);
            restarting.placed(r.unit(), r.node(), -r.slots());
        }
        if (book.engine == null) {
            delivery.sendDue(); // not in a turn: an event another component submitted (the HTTP API, a policy's timer)
        }
    }

    // ---- inbox ----------------------------------------------------------------------------------

    @Override
    public CompletableFuture<Reply> poll(String authorization, long after, long waitMillis, String remote) {
        return poll(authorization, after, waitMillis, 0, remote);
    }

    @Override
    public CompletableFuture<Reply> poll(String authorization, long after, long waitMillis, long incarnation, String remote) {
        if (!options.lease().held()) {
            return done(replies.notLeader("connection from " + remote)); // HA: checked first
        }
        Sender who = tokens.verify(Tokens.bearer(authorization));
        if (who == null) {
            return done(replies.reply(401, 0, Problem.of("connection from " + remote, "Authorization",
                    "no valid token: send 'Authorization: Bearer <token>' with a token the master issued")));
        }
        return turn(() -> polled(who, after, waitMillis, incarnation)).thenCompose(f -> f)
                .exceptionally(ex -> replies.failed(who.toString(), 0, ex));
    }

    /** A poll, in a turn of the loop: answered at once, or parked until something is due or its wait is over. */
    private CompletableFuture<Reply> polled(Sender who, long after, long waitMillis, long incarnation) {
        Peer peer = peer(who);
        if (peer instanceof JobMasterPeer j && incarnation != 0 && incarnation <= j.fencedThrough) {
            return done(replies.reply(409, 0, restarting.fenced(j, incarnation)));
        }
        if (peer == null || !peer.ready()) {
            return done(replies.reply(409, 0, Problem.of(who.toString(), "after",
                    "this master has no inbox for " + who + ": " + (who.role() == Role.AGENT ? "register" : "send a full request") + " first")));
        }
        if (peer instanceof JobMasterPeer j && j.lost) {
            // Its offline jobs were dropped when it was declared lost: it must say what it runs again.
            return done(replies.reply(409, 0, Problem.of(who.toString(), "after", "job master " + j.id
                    + " was declared lost after " + options.jobMasterTimeout().toSeconds() + " s of silence: send a full request")));
        }
        long living = peer instanceof AgentPeer a ? a.registeredIncarnation : ((JobMasterPeer) peer).requestIncarnation;
        if (incarnation != 0 && incarnation != living) {
            // A late poll of an ended life must not acknowledge what was sent to the living one.
            return done(replies.reply(409, 0, Problem.of(who.toString(), "incarnation",
                    "a poll from incarnation " + incarnation + "; the living one is " + living)));
        }
        peer.lastSeen = clock.millis();
        Envelope due = delivery.due(peer, after);
        if (due != null) {
            return done(replies.leased(new Reply(200, codec.encode(due))));
        }
        if (waitMillis <= 0 || book.closed) {
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
        return who.role() == Role.AGENT ? book.agents.get(who.id()) : who.role() == Role.JOB_MASTER ? book.jobMasters.get(who.id()) : null;
    }

    /** {@code peer}'s parked poll is answered at the end of this turn if something is due then. */
    private void deliver(Peer peer) {
        if (peer.outbox.hasParked()) {
            book.sendAfterTurn.add(peer);
        }
    }

    /** Declares silent peers lost (docs/protocol.md, "Timeouts"), in a turn of the loop. */
    void expire() {
        onLoop(() -> {
            heardWaiting();
            timeouts.expireNow();
            return null;
        });
    }


    /**
     * True if {@code job} is one of the master's restarts of a lost job master: its one online slot
     * is the master's own, and taking it back (when the job master is lost again, and its previous
     * start so stopped and fenced) is no revocation of a service's slot (docs/recovery.md).
     */
    public static boolean isRestartJob(String job) {
        return Restarts.isRestartJob(job);
    }


    /**
     * Where the master's books (what it tells agents and job masters) differ from its engine's
     * grants; empty when they agree. For the conformance kit, which asks after every step: a drift
     * is a cap or hint that says something the engine does not hold.
     */
    public List<String> drift() {
        return onLoop(status::driftNow);
    }

    /** Every agent the master knows, by node name. */
    @Override
    public List<PeerStatus> agents() {
        return onLoop(status::agentsNow);
    }

    /** Every job master the master knows, by id. */
    @Override
    public List<PeerStatus> jobMasters() {
        return onLoop(status::jobMastersNow);
    }

    /**
     * Milliseconds from a change of an agent's grants to the cap carrying it leaving the master, over
     * the last {@value Latencies#KEPT} caps: {@code [count, p50, p99]} ({@code -1} with none).
     */
    public long[] deliveryLatency() {
        return onLoop(() -> status.deliveryLatencyNow(book.capLatencies));
    }

    /** The same for hints: from news for a job master to the hint carrying it leaving the master. */
    public long[] hintLatency() {
        return onLoop(() -> status.deliveryLatencyNow(book.hintLatencies));
    }

    @Override
    public DeliveryStats deliveryStats() {
        return stats(book.capLatencies);
    }

    @Override
    public DeliveryStats hintStats() {
        return stats(book.hintLatencies);
    }

    private DeliveryStats stats(Latencies l) {
        long[] counts = new long[2];
        long[] kept = onLoop(() -> {
            counts[0] = l.count();
            counts[1] = l.sum();
            return l.kept();
        });
        java.util.Arrays.sort(kept); // off the loop: peers' messages need not wait for a scrape
        return new DeliveryStats(counts[0], counts[1], Latencies.quantile(kept, 0.5), Latencies.quantile(kept, 0.99));
    }

    /**
     * Runs {@code work} as one turn of the master's loop: on the engine's thread, between two
     * events, with nothing else touching the master's state (docs/architecture.md, "The master's
     * loop"). Within a turn, at once.
     */
    private <T> CompletableFuture<T> turn(java.util.function.Supplier<T> work) {
        return scheduler.onEngine(access -> {
            EngineAccess outer = book.engine;
            book.engine = access;
            try {
                return work.get();
            } finally {
                book.engine = outer;
                if (outer == null) {
                    delivery.sendDue();
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

    @Override
    public void close() {
        book.closed = true;
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
                book.agents.values().forEach(a -> MasterPart.addIfNotNull(parked, a.outbox.unpark()));
                book.jobMasters.values().forEach(j -> MasterPart.addIfNotNull(parked, j.outbox.unpark()));
                return null;
            });
        } catch (RuntimeException engineGone) {
            // the engine stopped first: its parked polls were failed with it, and answered 503 by the edge
        }
        Reply bye = replies.shuttingDown(replies.self().toString(), 0);
        parked.forEach(f -> f.complete(bye));
    }
}

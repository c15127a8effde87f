package granary.master;

import granary.api.event.GrantReleased;
import granary.api.event.Granted;
import granary.api.event.InputEvent;
import granary.api.event.JobCancelled;
import granary.api.event.JobsSubmitted;
import granary.api.event.NodeAdded;
import granary.api.event.NodeBlacklisted;
import granary.api.event.NodeCapacityChanged;
import granary.api.event.NodeRemoved;
import granary.api.event.OutputEvent;
import granary.api.event.Revoked;
import granary.api.event.Scheduler;
import granary.api.event.UnitDesireChanged;
import granary.api.model.Clock;
import granary.api.model.InvalidRequestException;
import granary.api.model.JobSpec;
import granary.api.model.NodeSpec;
import granary.api.model.Problem;
import granary.api.model.UnitId;
import granary.api.model.UnitKind;
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
import granary.protocol.link.Tokens;
import java.util.ArrayList;
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
 * </ul>
 * Counts are set from the engine's own state on the engine thread whenever an input changes them
 * without an output event (a release, a cancel, a registration), so the mirror never drifts.
 */
public final class ProtocolMaster implements Endpoint, AutoCloseable {

    private final Scheduler scheduler;
    private final Tokens tokens;
    private final MasterOptions options;
    private final Clock clock;
    private final WireCodec codec = new WireCodec(Role.MASTER);
    private final Sender self;
    private final Object lock = new Object();
    private final Map<String, AgentPeer> agents = new HashMap<>();
    private final Map<String, JobMasterPeer> jobMasters = new HashMap<>();
    /** Job id → the job master that runs it. */
    private final Map<String, String> owners = new HashMap<>();
    private final Map<String, String> keys = new HashMap<>();
    private final Latencies latencies = new Latencies();
    private final ScheduledExecutorService timer;
    private final ScheduledExecutorService expiry;
    private final AutoCloseable subscription;
    private volatile boolean closed;

    public ProtocolMaster(Scheduler scheduler, Tokens tokens, MasterOptions options, Clock clock) {
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
        expiry.scheduleWithFixedDelay(() -> {
            try {
                expire();
            } catch (RuntimeException ex) {
                // keep the timer alive; the next round tries again
            }
        }, period, period, TimeUnit.MILLISECONDS);
    }

    public MasterOptions options() {
        return options;
    }

    // ---- inbound ------------------------------------------------------------------------------

    @Override
    public Reply post(String authorization, byte[] body, String remote) {
        Sender who = tokens.verify(Tokens.bearer(authorization));
        if (who == null) {
            return reply(401, 0, Problem.of("connection from " + remote, "Authorization",
                    authorization == null ? "no token: send 'Authorization: Bearer <token>' with a token the master issued"
                            : "the token is not valid for this master (issued with another secret, or altered)"));
        }
        if (body.length > WireCodec.MAX_MESSAGE_BYTES) {
            return reply(413, 0, Problem.of(who.toString(), "$", "the message is more than " + WireCodec.MAX_MESSAGE_BYTES
                    + " bytes, the limit", WireCodec.MAX_MESSAGE_BYTES, body.length));
        }
        Envelope e;
        try {
            e = codec.decode(body, who.toString());
        } catch (ProtocolException ex) {
            return reply(400, Ack.refused(0, ex.problems()));
        }
        if (!e.sender().equals(who)) {
            return reply(403, e.sequence(), Problem.of(who.toString(), "$.sender", "the token of " + who
                    + " cannot speak for " + e.sender()));
        }
        if (closed) {
            return reply(503, e.sequence(), Problem.of(who.toString(), "$", "the master is shutting down"));
        }
        return switch (who.role()) {
            case AGENT -> fromAgent(e);
            case JOB_MASTER -> fromJobMaster(e);
            case MASTER -> reply(403, e.sequence(), Problem.of(who.toString(), "$.sender", "a master does not send to a master"));
        };
    }

    private Reply fromAgent(Envelope e) {
        String node = e.sender().id();
        if (!(e.message() instanceof Register) && !(e.message() instanceof Heartbeat)) {
            return reply(400, e.sequence(), Problem.of(e.sender().toString(), "$.type", "an agent sends register and heartbeat to the master, not "
                    + e.message().type()));
        }
        AgentPeer peer;
        synchronized (lock) {
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
        }
        AgentPeer p = peer;
        Session.Result result;
        synchronized (p) {
            result = p.session.accept(e, env -> env.message() instanceof Register r ? register(p, env, r) : heartbeat(p, env, (Heartbeat) env.message()));
        }
        synchronized (lock) {
            if (p.registration == null && agents.get(node) == p) {
                agents.remove(node);
            }
        }
        return answer(result);
    }

    private Reply fromJobMaster(Envelope e) {
        String id = e.sender().id();
        if (!(e.message() instanceof Request)) {
            return reply(400, e.sequence(), Problem.of(e.sender().toString(), "$.type", "a job master sends request to the master, not "
                    + e.message().type() + " (plans go to the agents)"));
        }
        JobMasterPeer peer;
        synchronized (lock) {
            peer = jobMasters.get(id);
            if (peer == null) {
                if (!((Request) e.message()).full()) {
                    return reply(409, e.sequence(), Problem.of(e.sender().toString(), "$.message.full",
                            "this master does not know job master " + id + ": send a full request first"));
                }
                peer = new JobMasterPeer(id);
                jobMasters.put(id, peer);
            }
            peer.lastSeen = clock.millis();
        }
        JobMasterPeer p = peer;
        Session.Result result;
        synchronized (p) {
            result = p.session.accept(e, env -> request(p, env, (Request) env.message()));
        }
        synchronized (lock) {
            if (p.requestIncarnation < 0 && jobMasters.get(id) == p) {
                jobMasters.remove(id);
            }
        }
        return answer(result);
    }

    private Reply answer(Session.Result r) {
        int status = r.outcome() == Session.Outcome.REFUSED ? 409 : r.ack().isRefusal() ? 400 : 200;
        return reply(status, r.ack());
    }

    // ---- agents ---------------------------------------------------------------------------------

    private Ack register(AgentPeer p, Envelope e, Register r) {
        String who = e.sender().toString();
        if (!r.node().equals(p.node)) {
            return refuse(e, Problem.of(who, "$.message.node", "agent " + p.node + " registers its own node, not " + r.node()));
        }
        if (!r.endpoint().startsWith("http://") && !r.endpoint().startsWith("https://")) {
            return refuse(e, Problem.of(who, "$.message.endpoint", "expected an http:// or https:// URL, got \"" + r.endpoint() + "\""));
        }
        NodeSpec known = await(scheduler.query(v -> spec(v.cluster().node(r.node()))));
        NodeSpec wanted = new NodeSpec(r.node(), r.room(), r.capacity(), r.labels());
        if (known == null) {
            apply(new NodeAdded(wanted));
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
        }
        // Take the node's caps from the engine on its own thread, where no grant can slip between.
        List<CompletableFuture<Reply>> wake = new ArrayList<>();
        await(scheduler.query(v -> {
            NodeView n = v.cluster().node(r.node());
            synchronized (lock) {
                long now = clock.millis();
                p.caps.clear();
                if (n != null) {
                    p.caps.putAll(n.allocations());
                }
                if (p.registeredIncarnation != e.incarnation()) {
                    addIfNotNull(wake, p.outbox.reset()); // a new life: its inbox numbering starts again
                    p.workers = 0;
                }
                p.registration = r;
                p.registeredIncarnation = e.incarnation();
                p.lost = false;
                p.sendFull(now);
            }
            return null;
        }));
        wake.forEach(f -> f.complete(Reply.empty()));
        return Ack.applied(e.sequence());
    }

    private Ack heartbeat(AgentPeer p, Envelope e, Heartbeat h) {
        String who = e.sender().toString();
        synchronized (lock) {
            if (p.registeredIncarnation != e.incarnation()) {
                return refuse(e, Problem.of(who, "$.type", "incarnation " + e.incarnation() + " has not registered: its first message must be register"));
            }
            if (p.lost) {
                return refuse(e, Problem.of(who, "$.type", "agent " + p.node + " was declared lost after "
                        + options.agentTimeout().toSeconds() + " s of silence: register again"));
            }
            p.workers = Math.max(0, p.workers + h.started().size() - h.exited().size());
        }
        if (h.capacity() != null) {
            apply(new NodeCapacityChanged(p.node, h.capacity()));
        }
        List<Problem> problems = new ArrayList<>();
        Set<UnitId> released = new LinkedHashSet<>();
        List<CompletableFuture<?>> pending = new ArrayList<>();
        synchronized (lock) {
            // One release per unit with all its exits: one engine event (and scheduling cycle) for
            // a heartbeat's exits of a unit, not one per worker.
            Map<UnitId, Integer> exitsPerUnit = new java.util.LinkedHashMap<>();
            h.exited().forEach(x -> exitsPerUnit.merge(x.unit(), 1, Integer::sum));
            exitsPerUnit.forEach((unit, n) -> {
                int slots = Math.min(n, p.caps.getOrDefault(unit, 0));
                if (slots <= 0) {
                    return; // its grant is gone already (cancelled, revoked): nothing to release
                }
                // Lower the mirror before the engine frees the slots: the grants its cycle may make of
                // them then add to the right count (a release has no output event).
                lower(p.node, unit, slots, false);
                released.add(unit);
                pending.add(scheduler.submit(new GrantReleased(unit, p.node, slots)));
            });
        }
        // Submitted together, applied in order by the engine: one wait for all of them.
        for (CompletableFuture<?> f : pending) {
            collect(problems, () -> await(f));
        }
        if (!problems.isEmpty()) {
            sync(released, Set.of(p.node), false); // a release was refused: take the counts from the engine
        }
        tellJobMasters(p.node, h.exited());
        return problems.isEmpty() ? Ack.applied(e.sequence()) : refuse(e, problems.toArray(new Problem[0]));
    }

    // ---- job masters ----------------------------------------------------------------------------

    private Ack request(JobMasterPeer p, Envelope e, Request r) {
        String who = e.sender().toString();
        if (p.requestIncarnation != e.incarnation() && !r.full()) {
            return refuse(e, Problem.of(who, "$.message.full", "the first request of incarnation " + e.incarnation() + " must be full"));
        }
        List<Problem> problems = new ArrayList<>();
        Set<String> listed = new HashSet<>();
        // Jobs in the engine not run by a job master (a request without jobs asks nothing of the engine).
        Set<String> engineJobs = r.jobs().isEmpty() ? Set.of() : await(scheduler.query(v -> {
            Set<String> ids = new HashSet<>();
            r.jobs().forEach(j -> {
                if (v.job(j.id()) != null) {
                    ids.add(j.id());
                }
            });
            return ids;
        }));
        synchronized (lock) {
            for (int i = 0; i < r.jobs().size(); i++) {
                String job = r.jobs().get(i).id();
                listed.add(job);
                String owner = owners.get(job);
                if (owner != null && !owner.equals(p.id)) {
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
        }
        if (!problems.isEmpty()) {
            return refuse(e, problems.toArray(new Problem[0]));
        }
        List<String> dropped = new ArrayList<>();
        List<JobSpec> fresh = new ArrayList<>();
        synchronized (lock) {
            if (r.full()) {
                for (String job : p.jobs) {
                    if (!listed.contains(job)) {
                        dropped.add(job);
                    }
                }
            }
            for (JobSpec j : r.jobs()) {
                if (!p.jobs.contains(j.id())) {
                    fresh.add(j);
                    owners.put(j.id(), p.id);
                    p.jobs.add(j.id());
                }
            }
        }
        if (!fresh.isEmpty()) {
            try {
                apply(new JobsSubmitted(fresh));
            } catch (InvalidRequestException ex) {
                synchronized (lock) {
                    fresh.forEach(j -> {
                        owners.remove(j.id());
                        p.jobs.remove(j.id());
                    });
                }
                return refuse(e, ex.problems().toArray(new Problem[0]));
            }
        }
        if (r.full()) {
            boolean reborn = p.requestIncarnation != e.incarnation();
            p.requestIncarnation = e.incarnation();
            List<CompletableFuture<Reply>> wake = new ArrayList<>();
            await(scheduler.query(v -> {
                synchronized (lock) {
                    if (reborn) {
                        addIfNotNull(wake, p.outbox.reset()); // its inbox numbering starts again
                    }
                    p.placements.clear();
                    for (String job : p.jobs) {
                        JobView j = v.job(job);
                        if (j != null) {
                            for (UnitView u : j.units()) {
                                u.allocations().forEach((node, slots) -> p.placements.computeIfAbsent(u.id(), x -> new HashMap<>()).put(node, slots));
                            }
                        }
                    }
                    p.sendFull(clock.millis());
                }
                return null;
            }));
            wake.forEach(f -> f.complete(Reply.empty()));
        }
        for (Request.Desire d : r.desires()) {
            collect(problems, () -> apply(new UnitDesireChanged(d.unit(), d.desired())));
        }
        List<String> cancels = new ArrayList<>(r.cancels());
        cancels.addAll(dropped);
        for (String job : cancels) {
            cancel(p, job, problems);
        }
        Set<UnitId> units = new LinkedHashSet<>();
        Set<String> nodes = new LinkedHashSet<>();
        for (Request.Release x : r.releases()) {
            synchronized (lock) {
                lower(x.node(), x.unit(), x.slots(), true);
            }
            units.add(x.unit());
            nodes.add(x.node());
            collect(problems, () -> apply(new GrantReleased(x.unit(), x.node(), x.slots())));
        }
        sync(units, nodes, true);
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
        synchronized (lock) {
            p.placements.forEach((unit, byNode) -> {
                if (unit.job().equals(job)) {
                    units.add(unit);
                    nodes.addAll(byNode.keySet());
                }
            });
        }
        synchronized (lock) {
            for (UnitId u : units) {
                for (String node : nodes) {
                    lower(node, u, Integer.MAX_VALUE, true);
                }
            }
        }
        collect(problems, () -> apply(new JobCancelled(job)));
        synchronized (lock) {
            owners.remove(job);
            p.jobs.remove(job);
        }
        sync(units, nodes, true);
    }

    // ---- engine output --------------------------------------------------------------------------

    private void onOutput(OutputEvent event) {
        if (event instanceof Granted g) {
            move(g.unit(), g.node(), g.slots(), false);
        } else if (event instanceof Revoked r) {
            move(r.unit(), r.node(), -r.slots(), true);
        }
    }

    private void move(UnitId unit, String node, int delta, boolean withdrawal) {
        List<Runnable> wake = new ArrayList<>();
        synchronized (lock) {
            long now = clock.millis();
            AgentPeer a = agents.get(node);
            if (a != null) {
                a.set(unit, a.caps.getOrDefault(unit, 0) + delta, withdrawal, now);
                deliver(a, wake);
            }
            JobMasterPeer j = jobMasterOf(unit.job());
            if (j != null) {
                int held = j.placements.getOrDefault(unit, Map.of()).getOrDefault(node, 0);
                j.set(unit, node, held + delta, now);
                deliver(j, wake);
            }
        }
        wake.forEach(Runnable::run);
    }

    /**
     * Sets the counts of {@code units} on {@code nodes} from the engine's state, on the engine
     * thread, after an input that changed them without an output event.
     */
    private void sync(Set<UnitId> units, Set<String> nodes, boolean withdrawal) {
        if (units.isEmpty()) {
            return;
        }
        List<Runnable> wake = new ArrayList<>();
        await(scheduler.query(v -> {
            synchronized (lock) {
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
                        deliver(a, wake);
                    }
                }
                for (JobMasterPeer j : jobMasters.values()) {
                    deliver(j, wake);
                }
            }
            return null;
        }));
        wake.forEach(Runnable::run);
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
        List<Runnable> wake = new ArrayList<>();
        synchronized (lock) {
            long now = clock.millis();
            Set<JobMasterPeer> told = new LinkedHashSet<>();
            for (Heartbeat.Exit x : exited) {
                JobMasterPeer j = jobMasterOf(x.unit().job());
                if (j != null) {
                    j.exited(new Hint.Exit(x.unit(), node, x.slot(), x.exitCode()), now);
                    j.set(x.unit(), node, j.placements.getOrDefault(x.unit(), Map.of()).getOrDefault(node, 0), now);
                    told.add(j);
                }
            }
            told.forEach(j -> deliver(j, wake));
        }
        wake.forEach(Runnable::run);
    }

    /** Takes {@code slots} off the mirror of {@code unit} on {@code node} (agent and job master). Under the lock. */
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
        Sender who = tokens.verify(Tokens.bearer(authorization));
        if (who == null) {
            return CompletableFuture.completedFuture(reply(401, 0, Problem.of("connection from " + remote, "Authorization",
                    "no valid token: send 'Authorization: Bearer <token>' with a token the master issued")));
        }
        CompletableFuture<Reply> poll = new CompletableFuture<>();
        CompletableFuture<Reply> displaced;
        Peer peer;
        synchronized (lock) {
            peer = peer(who);
            if (peer == null || !peer.ready()) {
                return CompletableFuture.completedFuture(reply(409, 0, Problem.of(who.toString(), "after",
                        "this master has no inbox for " + who + ": " + (who.role() == Role.AGENT ? "register" : "send a full request") + " first")));
            }
            peer.lastSeen = clock.millis();
            Envelope due = due(peer, after);
            if (due != null) {
                return CompletableFuture.completedFuture(new Reply(200, codec.encode(due)));
            }
            if (waitMillis <= 0 || closed) {
                return CompletableFuture.completedFuture(Reply.empty());
            }
            displaced = peer.outbox.park(poll, after);
        }
        if (displaced != null) {
            displaced.complete(Reply.empty());
        }
        timer.schedule(() -> {
            synchronized (lock) {
                if (peer.outbox.isParked(poll)) {
                    peer.outbox.unpark();
                }
            }
            poll.complete(Reply.empty());
        }, Math.min(waitMillis, Paths.MAX_WAIT_MILLIS), TimeUnit.MILLISECONDS);
        return poll;
    }

    /** The agent or job master {@code who} is, or null. Under the lock. */
    private Peer peer(Sender who) {
        return who.role() == Role.AGENT ? agents.get(who.id()) : who.role() == Role.JOB_MASTER ? jobMasters.get(who.id()) : null;
    }

    /** The envelope due for {@code peer} after its sequence {@code after}, or null. Under the lock. */
    private Envelope due(Peer peer, long after) {
        return peer.outbox.due(after, () -> {
            long since = peer.dirtySince;
            Message m = peer instanceof AgentPeer a ? a.nextCap(owners::get, this::key, options.maxPlacements())
                    : ((JobMasterPeer) peer).nextHint(this::endpoint, options.maxPlacements());
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

    /** Answers {@code peer}'s parked poll if something is due now. Under the lock; runs the answer after it. */
    private void deliver(Peer peer, List<Runnable> wake) {
        Outbox box = peer.outbox;
        if (!box.hasParked()) {
            return;
        }
        Envelope e = due(peer, box.parkedAfter());
        if (e != null) {
            CompletableFuture<Reply> poll = box.unpark();
            wake.add(() -> poll.complete(new Reply(200, codec.encode(e))));
        }
    }

    private String endpoint(String node) {
        AgentPeer a = agents.get(node);
        return a == null || a.registration == null ? "" : a.registration.endpoint();
    }

    // ---- timeouts -------------------------------------------------------------------------------

    /** Declares silent peers lost (docs/protocol.md, "Timeouts"). Runs on its own thread. */
    void expire() {
        if (closed) {
            return;
        }
        long now = clock.millis();
        List<AgentPeer> lostAgents = new ArrayList<>();
        List<JobMasterPeer> lostJobMasters = new ArrayList<>();
        synchronized (lock) {
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
        }
        for (AgentPeer a : lostAgents) {
            try {
                try {
                    apply(new NodeRemoved(a.node, false));
                } catch (InvalidRequestException online) {
                    // It holds online work, which the master never takes back on its own: keep the
                    // node's grants, and send nothing new there until its agent returns.
                    apply(new NodeBlacklisted(a.node, true));
                }
                Set<UnitId> units;
                synchronized (lock) {
                    units = new LinkedHashSet<>(a.caps.keySet());
                }
                sync(units, Set.of(a.node), true);
            } catch (RuntimeException ex) {
                // The engine refused both; the next round tries again.
                synchronized (lock) {
                    a.lost = false;
                }
            }
        }
        for (JobMasterPeer j : lostJobMasters) {
            List<String> offline;
            synchronized (lock) {
                offline = new ArrayList<>(j.jobs);
            }
            Set<String> keep = await(scheduler.query(v -> {
                Set<String> online = new HashSet<>();
                for (String job : offline) {
                    JobView jv = v.job(job);
                    if (jv != null && jv.units().stream().anyMatch(u -> u.kind() == UnitKind.ONLINE)) {
                        online.add(job);
                    }
                }
                return online;
            }));
            for (String job : offline) {
                if (!keep.contains(job)) {
                    cancel(j, job, new ArrayList<>());
                }
            }
        }
    }

    // ---- status ---------------------------------------------------------------------------------

    /** Every agent the master knows, by node name. */
    public List<PeerStatus> agents() {
        long now = clock.millis();
        List<PeerStatus> out = new ArrayList<>();
        synchronized (lock) {
            for (AgentPeer a : agents.values()) {
                if (a.registration != null) {
                    out.add(new PeerStatus("agent", a.node, a.lost ? "lost" : "live", a.registeredIncarnation, now - a.lastSeen,
                            a.caps.size(), a.slots(), a.workers, 0, a.registration.endpoint()));
                }
            }
        }
        out.sort(java.util.Comparator.comparing(PeerStatus::id));
        return out;
    }

    /** Every job master the master knows, by id. */
    public List<PeerStatus> jobMasters() {
        long now = clock.millis();
        List<PeerStatus> out = new ArrayList<>();
        synchronized (lock) {
            for (JobMasterPeer j : jobMasters.values()) {
                out.add(new PeerStatus("job-master", j.id, j.lost ? "lost" : "live", j.requestIncarnation, now - j.lastSeen,
                        j.placements.size(), j.slots(), -1, j.jobs.size(), "-"));
            }
        }
        out.sort(java.util.Comparator.comparing(PeerStatus::id));
        return out;
    }

    /**
     * Milliseconds from a change of grants to the cap or hint carrying it leaving the master, over
     * the last {@value Latencies#KEPT} deliveries: {@code [count, p50, p99]} ({@code -1} with none).
     */
    public long[] deliveryLatency() {
        synchronized (lock) {
            return new long[] {latencies.count(), latencies.quantile(0.5), latencies.quantile(0.99)};
        }
    }

    private String key(String jobMaster) {
        return keys.computeIfAbsent(jobMaster, jm -> Tokens.key(tokens.issue(new Sender(Role.JOB_MASTER, jm))));
    }

    // ---- helpers --------------------------------------------------------------------------------

    private void apply(InputEvent event) {
        await(scheduler.submit(event));
    }

    private <T> T await(CompletableFuture<T> f) {
        try {
            return f.get(options.engineTimeout().toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException ex) {
            if (ex.getCause() instanceof InvalidRequestException ire) {
                throw ire;
            }
            throw new IllegalStateException("the engine failed: " + ex.getCause(), ex.getCause());
        } catch (TimeoutException ex) {
            throw new InvalidRequestException(self.toString(), "$", "the engine did not answer within "
                    + options.engineTimeout().toMillis() + " ms; send again");
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new InvalidRequestException(self.toString(), "$", "interrupted while waiting for the engine");
        }
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
        return new Reply(status, codec.encode(new Envelope(WireCodec.VERSION, self, options.incarnation(), 0, ack)));
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
        synchronized (lock) {
            agents.values().forEach(a -> addIfNotNull(parked, a.outbox.unpark()));
            jobMasters.values().forEach(j -> addIfNotNull(parked, j.outbox.unpark()));
        }
        Reply bye = reply(503, 0, Problem.of(self.toString(), "$", "the master is shutting down"));
        parked.forEach(f -> f.complete(bye));
    }
}

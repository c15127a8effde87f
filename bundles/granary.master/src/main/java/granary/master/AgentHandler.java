package granary.master;

import granary.api.event.GrantAdopted;
import granary.api.event.GrantReleased;
import granary.api.event.NodeAdded;
import granary.api.event.NodeBlacklisted;
import granary.api.event.NodeCapacityChanged;
import granary.api.event.UnitDesireChanged;
import granary.api.model.JobSpec;
import granary.api.model.NodeSpec;
import granary.api.model.Problem;
import granary.api.model.UnitId;
import granary.api.spi.NodeView;
import granary.api.spi.UnitView;
import granary.protocol.Ack;
import granary.protocol.Envelope;
import granary.protocol.Heartbeat;
import granary.protocol.Hint;
import granary.protocol.Register;
import granary.protocol.link.Reply;
import granary.recovery.AgentReport;
import granary.recovery.Recovery;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * An agent's messages (docs/protocol.md): {@code register} adds its node or takes it back after a
 * restart; a {@code heartbeat} reports workers started and exited (their slots released), the
 * node's usage and health, and workers running without a cap.
 */
final class AgentHandler extends MasterPart {

    private final Mirrors mirrors;
    private final Recovering recovering;
    private final Restarting restarting;

    AgentHandler(MasterBook book, Mirrors mirrors, Recovering recovering, Restarting restarting) {
        super(book);
        this.mirrors = mirrors;
        this.recovering = recovering;
        this.restarting = restarting;
    }


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

    Ack register(AgentPeer p, Envelope e, Register r) {
        String who = e.sender().toString();
        if (!r.node().equals(p.node)) {
            return refuse(e, Problem.of(who, "$.message.node", "agent " + p.node + " registers its own node, not " + r.node()));
        }
        String badEndpoint = endpointProblem(r.endpoint());
        if (badEndpoint != null) {
            return refuse(e, Problem.of(who, "$.message.endpoint", badEndpoint));
        }
        NodeSpec wanted = new NodeSpec(r.node(), r.room(), r.capacity(), r.labels());
        if (book.window != null) {
            // Recovery: record what the agent holds; nothing reaches the engine before the rebuild.
            book.window.agent(new AgentReport(wanted, r.caps()), clock.millis());
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
                recovering.wakeLater(() -> w.complete(Reply.empty()));
            }
            return Ack.applied(e.sequence());
        }
        NodeSpec known = query(v -> spec(v.cluster().node(r.node())));
        if (known == null) {
            if (r.caps().isEmpty() && !recovering.keptFor(r.node())) {
                apply(new NodeAdded(wanted));
            } else {
                recovering.returned(wanted, r.caps());
            }
            mirrors.tellNodeState(mirrors.toldLost(r.node()), Hint.NodeState.BACK); // a node with only offline work left the cluster when lost
            recovering.submitDeferred();
            stillUnhealthy(p);
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
                stillUnhealthy(p);
            }
            mirrors.tellNodeState(mirrors.toldLost(r.node()), Hint.NodeState.BACK);
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
                mirrors.endpointMoved(r.node(), now); // plans must go to its new address, with its new epoch
            }
            p.registeredIncarnation = e.incarnation();
            p.lost = false;
            p.sendFull(now);
            return null;
        });
        wake.forEach(f -> f.complete(Reply.empty()));
        return Ack.applied(e.sequence());
    }

    Ack heartbeat(AgentPeer p, Envelope e, Heartbeat h) {
        String who = e.sender().toString();
        if (p.registeredIncarnation != e.incarnation()) {
            return refuse(e, Problem.of(who, "$.type", "incarnation " + e.incarnation() + " has not registered: its first message must be register"));
        }
        if (p.lost) {
            return refuse(e, Problem.of(who, "$.type", "agent " + p.node + Register.DECLARED_LOST
                    + options.agentTimeout().toSeconds() + " s of silence: register again"));
        }
        if (book.window != null) {
            book.deferred.add(() -> heartbeat(p, e, h));
            return Ack.applied(e.sequence());
        }
        p.workers = Math.max(0, p.workers + h.started().size() - h.exited().size());
        if (h.usage() != null) {
            p.usage = h.usage(); // a picture, not a delta: the latest replaces the one before
        }
        health(p, h.health());
        Map<String, JobSpec> kept = recovering.keptJobs(h.exited().stream().map(x -> x.unit().job()).toList());
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
        fresh.removeIf(x -> restarting.keepsLaunch(x, displaced));
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
            mirrors.lower(p.node, unit, slots, false);
            List<Problem> refused = new ArrayList<>();
            collect(refused, () -> apply(new GrantReleased(unit, p.node, slots)));
            if (!refused.isEmpty()) {
                reconcile.add(unit);
            }
        });
        // A release the engine refuses (its slots were taken back meanwhile: a revocation, a cancel)
        // takes the counts from the engine; the agent's next cap says them. The exit itself is taken.
        mirrors.sync(reconcile, Set.of(p.node), false);
        lowerDesires(gone);
        recovering.deferEnded(kept);
        displaced.forEach(restarting::endRun);
        mirrors.tellJobMasters(p.node, fresh);
        restarting.restartsStarted(h.started());
        restarting.restartsExited(fresh);
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
        p.unhealthy = reason;
        boolean out = reason != null;
        if (out == p.healthOut) {
            return;
        }
        if (out && query(v -> v.cluster().node(p.node) != null && v.cluster().node(p.node).blacklisted())) {
            return; // out already, by an operator: not the master's to lift when the node is healthy again
        }
        p.healthOut = out;
        collect(new ArrayList<>(), () -> apply(new NodeBlacklisted(p.node, out)));
    }

    /** A node its agent said unhealthy stays out when the agent registers again after it was lost. */
    private void stillUnhealthy(AgentPeer p) {
        if (p.healthOut) {
            collect(new ArrayList<>(), () -> apply(new NodeBlacklisted(p.node, true)));
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
        mirrors.sync(adoptedUnits, Set.of(p.node), false);
    }

    private static NodeSpec spec(NodeView n) {
        return n == null ? null : new NodeSpec(n.name(), n.room(), n.capacity(), n.labels());
    }
}

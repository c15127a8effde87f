package granary.agent;

import granary.api.model.Problem;
import granary.api.model.Text;
import granary.protocol.Ack;
import granary.protocol.Envelope;
import granary.protocol.Plan;
import granary.protocol.ProtocolException;
import granary.protocol.Role;
import granary.protocol.Sender;
import granary.protocol.Session;
import granary.protocol.WireCodec;
import granary.protocol.link.Endpoint;
import granary.protocol.link.PlanPass;
import granary.protocol.link.Reply;
import granary.protocol.link.Tokens;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongSupplier;

/**
 * The agent's endpoint for job masters: takes {@code plan} envelopes, checks who sent them without
 * asking the master, and applies each once through a {@link Session} per job master. Confined to
 * the agent's loop (a process hands each call over from its HTTP threads).
 *
 * <p>Authentication: a plan carries a plan pass ({@link PlanPass}), not the job master's token: the
 * master made it for this node and that job master, sealed with this agent's key (the MAC of its
 * own token), so it is checked here without asking the master, from the headers before the body
 * is read; it must name this node, the envelope's sender and its incarnation, and not have expired. Once the master
 * granted that job master caps here, the pass's key must equal the key in those caps. Before any
 * cap arrived the plan is accepted provisionally: its launches wait with the key and start only
 * under a cap with the same key. Sessions are kept per job master and key; a refused plan makes none.
 *
 * <p>Replies: 200 applied; 400 unreadable or refused (the ack's problems say why); 401 no pass, not
 * a pass of this node's key, or expired; 403 a pass of another job master, incarnation or node, or not the key
 * of the job master's caps; 409 refused by
 * the session (a dead incarnation, a gap); 413 too large; 503 too many job master sessions. The
 * agent has no inbox: {@link #poll} answers 404.
 */
final class PlanDesk implements Endpoint {

    /** Most job master sessions kept (each job master, and each key it used). */
    static final int MAX_SESSIONS = 10_000;

    private record SessionKey(String jobMaster, String key) {
    }

    private final Sender self;
    private final long incarnation;
    private final Node node;
    private final WireCodec codec = new WireCodec(Role.AGENT);
    private final Map<SessionKey, Session> sessions = new HashMap<>();
    /** When each session last applied a plan. */
    private final Map<SessionKey, Long> used = new HashMap<>();
    private long lastSweep;
    /** How long a session of a job master without caps here is kept after its last plan: longer than a pass lives. */
    static final long SESSION_IDLE_MILLIS = 15 * 60_000L;
    /** This agent's key: plan passes sealed with it are the master's for this node. */
    private final byte[] agentKey;
    private final LongSupplier clock;

    PlanDesk(Sender self, long incarnation, Node node, byte[] agentKey, LongSupplier clock) {
        this.self = self;
        this.incarnation = incarnation;
        this.node = node;
        this.agentKey = agentKey.clone();
        this.clock = clock;
    }

    @Override
    public Reply admit(String authorization, String remote) {
        Object checked = pass(authorization, "job master at " + remote);
        return checked instanceof Reply refusal ? refusal : null;
    }

    /** The claims of the pass in {@code authorization}, or the reply refusing it. */
    private Object pass(String authorization, String source) {
        String pass = Tokens.bearer(authorization);
        if (pass == null || pass.isEmpty()) {
            return reply(401, 0, source, "Authorization", "no plan pass; a job master sends Authorization: Bearer <the pass"
                    + " the master gave it for this node>");
        }
        PlanPass.Claims c = PlanPass.verify(agentKey, pass);
        if (c == null) {
            return reply(401, 0, source, "Authorization", "not a plan pass of this node's key (the master gives a job master"
                    + " one per node with its hints; a job master's own token is not taken here)");
        }
        if (!c.node().equals(self.id())) {
            return reply(403, 0, source, "Authorization", "the pass is for node " + Text.quote(c.node()) + ", this is "
                    + self.id());
        }
        long now = clock.getAsLong();
        if (now - CLOCK_SLACK_MILLIS > c.expiresAt()) {
            return reply(401, 0, source, "Authorization", "the plan pass expired " + (now - c.expiresAt()) / 1000
                    + " s ago; the master renews passes with its hints");
        }
        return c;
    }

    /** How far this agent's clock may run ahead of the master's before a pass is taken as expired. */
    static final long CLOCK_SLACK_MILLIS = 60_000;

    @Override
    public Reply post(String authorization, byte[] body, String remote) {
        String source = "job master at " + remote;
        Object checked = pass(authorization, source);
        if (checked instanceof Reply refusal) {
            return refusal;
        }
        PlanPass.Claims claims = (PlanPass.Claims) checked;
        Envelope e;
        try {
            e = codec.decode(body, source);
        } catch (ProtocolException ex) {
            return reply(body.length > WireCodec.MAX_MESSAGE_BYTES ? 413 : 400, Ack.refused(0, ex.problems()));
        }
        if (e.sender().role() != Role.JOB_MASTER || !claims.jobMaster().equals(e.sender().id())) {
            return reply(403, e.sequence(), source, "Authorization", "the pass is job master "
                    + Text.quote(claims.jobMaster()) + "'s, the envelope is from " + Tokens.identity(e.sender()));
        }
        if (e.incarnation() != claims.incarnation()) {
            // a pass speaks for one life: one left over from an ended life cannot start a new one (and end the living)
            return reply(403, e.sequence(), source, "Authorization", "the pass is for incarnation " + claims.incarnation()
                    + " of job master " + claims.jobMaster() + ", the envelope is from incarnation " + e.incarnation()
                    + "; the master gives each incarnation its own passes with its hints");
        }
        if (!(e.message() instanceof Plan)) {
            return reply(400, e.sequence(), e.sender().toString(), "$.type", "an agent takes plan messages only, got "
                    + e.message().type());
        }
        String key = claims.key();
        String refusal = node.refusesKey(e.sender().id(), key);
        if (refusal != null) {
            return reply(403, e.sequence(), e.sender().toString(), "Authorization", refusal);
        }
        return apply(e, key);
    }

    private Reply apply(Envelope e, String key) {
        long now = clock.getAsLong();
        forgetIdle(now);
        SessionKey sk = new SessionKey(e.sender().id(), key);
        Session s = sessions.get(sk);
        boolean made = s == null;
        if (made) {
            if (sessions.size() >= MAX_SESSIONS) {
                return reply(503, new Ack(e.sequence(), List.of(new Problem(self.toString(), "sessions", "the limit of "
                        + MAX_SESSIONS + " job master sessions is reached", (long) MAX_SESSIONS, (long) sessions.size() + 1))));
            }
            s = new Session(e.sender());
            sessions.put(sk, s);
        }
        Session.Result r = s.accept(e, env -> node.plan(env.sender().id(), key, env));
        if (r.restarted()) {
            node.ended(e.sender().id(), key, r.endedIncarnation());
        }
        int status = r.outcome() == Session.Outcome.REFUSED ? 409 : r.ack().isRefusal() ? 400 : 200;
        if (made && status == 409) {
            sessions.remove(sk); // a first plan the session refused (a gap, a dead incarnation) leaves nothing behind
        } else {
            used.put(sk, now);
        }
        return reply(status, r.ack());
    }

    /**
     * Forgets, at most once a minute, the sessions of job masters that sent nothing for {@link
     * #SESSION_IDLE_MILLIS} and hold no caps here: they ended, or moved on. One that comes back
     * starts a new session (a new incarnation does anyway).
     */
    private void forgetIdle(long now) {
        if (now - lastSweep < 60_000) {
            return;
        }
        lastSweep = now;
        used.entrySet().removeIf(u -> {
            boolean idle = now - u.getValue() > SESSION_IDLE_MILLIS && !node.holdsCapsOf(u.getKey().jobMaster());
            if (idle) {
                sessions.remove(u.getKey());
            }
            return idle;
        });
    }

    /** How many job master sessions it keeps (for tests). */
    int sessionCount() {
        return sessions.size();
    }

    @Override
    public CompletableFuture<Reply> poll(String authorization, long after, long waitMillis, String remote) {
        return CompletableFuture.completedFuture(reply(404, 0, remote, "$", "an agent has no inbox; "
                + "job masters post plans to " + granary.protocol.link.Paths.MESSAGES));
    }

    private Reply reply(int status, long sequence, String subject, String field, String message) {
        return reply(status, Ack.refused(sequence, List.of(Problem.of(subject, field, message))));
    }

    private Reply reply(int status, Ack ack) {
        return new Reply(status, codec.encode(Envelope.of(self, incarnation, 0, ack)));
    }
}

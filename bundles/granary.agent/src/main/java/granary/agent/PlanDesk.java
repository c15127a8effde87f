package granary.agent;

import granary.api.model.Problem;
import granary.protocol.Ack;
import granary.protocol.Envelope;
import granary.protocol.Plan;
import granary.protocol.ProtocolException;
import granary.protocol.Role;
import granary.protocol.Sender;
import granary.protocol.Session;
import granary.protocol.WireCodec;
import granary.protocol.link.Endpoint;
import granary.protocol.link.Reply;
import granary.protocol.link.Tokens;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * The agent's endpoint for job masters: takes {@code plan} envelopes, checks who sent them without
 * asking the master, and applies each once through a {@link Session} per job master. Confined to
 * the agent's loop (a process hands each call over from its HTTP threads).
 *
 * <p>Authentication: the bearer token must name the envelope's sender ({@code job-master/<id>.<mac>})
 * and, once the master granted that job master caps here, its {@link Tokens#key key} must equal the
 * key in those caps. Before any cap arrived the plan is accepted provisionally: its launches wait
 * with the key and start only under a cap with the same key. Sessions are kept per job master and
 * key, so a forged token never touches the real job master's session.
 *
 * <p>Replies: 200 applied; 400 unreadable or refused (the ack's problems say why); 401 no token or
 * not a token; 403 a token of another peer, or not the key of the job master's caps; 409 refused by
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

    PlanDesk(Sender self, long incarnation, Node node) {
        this.self = self;
        this.incarnation = incarnation;
        this.node = node;
    }

    @Override
    public Reply post(String authorization, byte[] body, String remote) {
        String source = "job master at " + remote;
        String token = Tokens.bearer(authorization);
        if (token == null || token.isEmpty()) {
            return reply(401, 0, source, "Authorization", "no bearer token; a job master sends Authorization: Bearer <its token>");
        }
        Sender claimed = claimed(token);
        if (claimed == null) {
            return reply(401, 0, source, "Authorization", "not a Granary token (expected job-master/NAME.<mac>)");
        }
        Envelope e;
        try {
            e = codec.decode(body, source);
        } catch (ProtocolException ex) {
            return reply(body.length > WireCodec.MAX_MESSAGE_BYTES ? 413 : 400, Ack.refused(0, ex.problems()));
        }
        if (e.sender().role() != Role.JOB_MASTER || !claimed.equals(e.sender())) {
            return reply(403, e.sequence(), source, "Authorization", "the token is " + Tokens.identity(claimed)
                    + "'s, the envelope is from " + Tokens.identity(e.sender()) + "; only a job master's own token is taken here");
        }
        if (!(e.message() instanceof Plan)) {
            return reply(400, e.sequence(), e.sender().toString(), "$.type", "an agent takes plan messages only, got "
                    + e.message().type());
        }
        String key = Tokens.key(token);
        String refusal = node.refusesKey(e.sender().id(), key);
        if (refusal != null) {
            return reply(403, e.sequence(), e.sender().toString(), "Authorization", refusal);
        }
        return apply(e, key);
    }

    private Reply apply(Envelope e, String key) {
        SessionKey sk = new SessionKey(e.sender().id(), key);
        Session s = sessions.get(sk);
        if (s == null) {
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
        return reply(status, r.ack());
    }

    @Override
    public CompletableFuture<Reply> poll(String authorization, long after, long waitMillis, String remote) {
        return CompletableFuture.completedFuture(reply(404, 0, remote, "$", "an agent has no inbox; "
                + "job masters post plans to " + granary.protocol.link.Paths.MESSAGES));
    }

    /** The identity a token claims ({@code role/id} before its last dot), or null if it has none. */
    private static Sender claimed(String token) {
        int dot = token.lastIndexOf('.');
        if (dot <= 0) {
            return null;
        }
        try {
            return Tokens.parseIdentity(token.substring(0, dot));
        } catch (IllegalArgumentException ex) {
            return null;
        }
    }

    private Reply reply(int status, long sequence, String subject, String field, String message) {
        return reply(status, Ack.refused(sequence, List.of(Problem.of(subject, field, message))));
    }

    private Reply reply(int status, Ack ack) {
        return new Reply(status, codec.encode(Envelope.of(self, incarnation, 0, ack)));
    }
}

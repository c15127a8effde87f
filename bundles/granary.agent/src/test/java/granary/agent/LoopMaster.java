package granary.agent;

import granary.api.model.Problem;
import granary.protocol.Ack;
import granary.protocol.Cap;
import granary.protocol.Envelope;
import granary.protocol.Heartbeat;
import granary.protocol.Message;
import granary.protocol.Register;
import granary.protocol.Role;
import granary.protocol.Sender;
import granary.protocol.WireCodec;
import granary.protocol.link.Loop;
import granary.protocol.link.Transport;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiConsumer;
import java.util.function.Function;

/**
 * Not the thing under test: a stand-in master reached through the agent's {@link Transport}, its
 * answers handed back as tasks of the agent's own (manual) loop, so that a test decides what the
 * master says and when. It acknowledges every envelope (unless {@link #judge} refuses it), keeps
 * what it received, and serves an inbox of caps the test puts there (emptied when a new incarnation
 * of the agent registers). {@link #unreachable} refuses
 * every connection, {@link #unauthorized} answers 401, {@link #hold} keeps answers back until
 * {@link #release}; {@link #restart} makes it a new incarnation with an empty inbox.
 */
final class LoopMaster implements Transport {

    private final WireCodec codec = new WireCodec(Role.MASTER);
    private final Sender self = new Sender(Role.MASTER, "m");
    private long incarnation = 5_000;
    private long agentIncarnation = -1;
    private final List<Envelope> received = new ArrayList<>();
    private final List<Long> receivedAt = new ArrayList<>();
    private final List<Cap> inbox = new ArrayList<>();
    private final List<Runnable> held = new ArrayList<>();
    private Function<Envelope, List<Problem>> judge = e -> List.of();
    private boolean unreachable;
    private boolean unauthorized;
    private boolean hold;
    /** How many calls (posts and polls) reached this master. */
    int calls;

    @Override
    public void exchange(Call call, Loop loop, BiConsumer<Response, IOException> done) {
        calls++;
        if (unreachable) {
            loop.execute(() -> done.accept(null, new IOException("connection refused")));
            return;
        }
        if (unauthorized) {
            Ack a = Ack.refused(0, List.of(Problem.of("master", "Authorization", "the token is not valid for this master")));
            loop.execute(() -> done.accept(new Response(401, codec.encode(Envelope.of(self, incarnation, 0, a)), null), null));
            return;
        }
        // the master answers at once; a held answer reaches the agent only when released
        Response r = call.method().equals("POST") ? post(call, loop.now()) : poll(call);
        Runnable answer = () -> loop.execute(() -> done.accept(r, null));
        if (hold && call.method().equals("POST")) {
            held.add(answer);
        } else {
            answer.run();
        }
    }

    private Response post(Call call, long now) {
        Envelope e = codec.decode(call.body(), "agent");
        received.add(e);
        receivedAt.add(now);
        if (e.message() instanceof Register && e.incarnation() != agentIncarnation) {
            agentIncarnation = e.incarnation();
            inbox.clear(); // a new life of the agent: its inbox starts again, as the master's does
        }
        List<Problem> problems = judge.apply(e);
        Ack a = problems.isEmpty() ? Ack.applied(e.sequence()) : Ack.refused(e.sequence(), problems);
        return new Response(problems.isEmpty() ? 200 : 400, codec.encode(Envelope.of(self, incarnation, 0, a)), null);
    }

    private Response poll(Call call) {
        String q = call.uri().getRawQuery();
        long after = 0;
        for (String pair : q == null ? new String[0] : q.split("&")) {
            if (pair.startsWith("after=")) {
                after = Long.parseLong(pair.substring(6));
            }
        }
        if (after < inbox.size()) {
            return new Response(200, codec.encode(Envelope.of(self, incarnation, after + 1, inbox.get((int) after))), null);
        }
        return new Response(204, new byte[0], null);
    }

    /** Puts a cap in the inbox. */
    void send(Cap cap) {
        inbox.add(cap);
    }

    /** From now on, refuses what {@code j} finds problems with (an empty list: applied). */
    void judge(Function<Envelope, List<Problem>> j) {
        judge = j;
    }

    void unreachable(boolean u) {
        unreachable = u;
    }

    void unauthorized(boolean u) {
        unauthorized = u;
    }

    /** Keeps the answers to posts back from now on (the master answered, the agent has not read it), until {@link #release}. */
    void hold() {
        hold = true;
    }

    /** Hands the answers held back to the agent, and answers at once again. */
    void release() {
        hold = false;
        List<Runnable> due = new ArrayList<>(held);
        held.clear();
        due.forEach(Runnable::run);
    }

    /** A new incarnation with an empty inbox (a master that failed over). */
    void restart() {
        incarnation++;
        inbox.clear();
    }

    /** What the agent sent of type {@code type}, in order (a message posted again after a failure counts once per answer). */
    <T extends Message> List<T> received(Class<T> type) {
        List<T> out = new ArrayList<>();
        for (Envelope e : received) {
            if (type.isInstance(e.message())) {
                out.add(type.cast(e.message()));
            }
        }
        return out;
    }

    List<Register> registrations() {
        return received(Register.class);
    }

    List<Heartbeat> heartbeats() {
        return received(Heartbeat.class);
    }

    /** The last message received, or null. */
    Message last() {
        return received.isEmpty() ? null : received.get(received.size() - 1).message();
    }

    /** When (on the agent's clock) {@code m} arrived. */
    long arrivedAt(Message m) {
        for (int i = 0; i < received.size(); i++) {
            if (received.get(i).message() == m) {
                return receivedAt.get(i);
            }
        }
        throw new IllegalArgumentException("not received: " + m);
    }
}

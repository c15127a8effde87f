package granary.client;

import granary.api.model.Problem;
import granary.protocol.Ack;
import granary.protocol.Envelope;
import granary.protocol.Hint;
import granary.protocol.ProtocolException;
import granary.protocol.Request;
import granary.protocol.Role;
import granary.protocol.Sender;
import granary.protocol.WireCodec;
import granary.protocol.link.Endpoint;
import granary.protocol.link.JdkHttpServer;
import granary.protocol.link.Reply;
import granary.protocol.link.Tokens;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * Not the thing under test: a tiny master on loopback that checks tokens, records the requests it
 * gets, answers acks and hands out the hints a test puts in its inbox. {@link #restart()} makes it
 * a new incarnation that knows nothing.
 */
final class FakeMaster implements Endpoint, AutoCloseable {

    static final Tokens TOKENS = new Tokens("fake master secret, 32 bytes ...".getBytes());

    private final WireCodec codec = new WireCodec(Role.MASTER);
    private final List<Request> requests = new ArrayList<>();
    private final List<Envelope> inbox = new ArrayList<>();
    private long incarnation = 1_000;
    private Function<Request, List<Problem>> judge = r -> List.of();
    /** The HTTP status of a refusal by the judge. */
    private int refusalStatus = 400;
    /** Set: polls are kept waiting (at most 10 s) until {@link #releasePolls}, then answered empty. */
    private boolean pollsHeld;
    private int heldPolls;
    /** Set: every message and poll is refused as from a fenced incarnation, as the real master words it. */
    private Problem fenced;
    private final JdkHttpServer server;

    FakeMaster() throws IOException {
        server = JdkHttpServer.start(new InetSocketAddress("127.0.0.1", 0), this, null);
    }

    static String token(String jobMaster) {
        return TOKENS.issue(new Sender(Role.JOB_MASTER, jobMaster));
    }

    URI url() {
        return server.url();
    }

    synchronized List<Request> requests() {
        return List.copyOf(requests);
    }

    synchronized void judge(Function<Request, List<Problem>> j) {
        judge(j, 400);
    }

    /** As {@link #judge(Function)}, a refusal answered with HTTP {@code status}. */
    synchronized void judge(Function<Request, List<Problem>> j, int status) {
        judge = j;
        refusalStatus = status;
    }

    /** From now on polls wait, unanswered, until {@link #releasePolls} (or 10 s). */
    synchronized void holdPolls() {
        pollsHeld = true;
    }

    /** Answers the held polls (empty) and answers polls again. */
    synchronized void releasePolls() {
        pollsHeld = false;
        notifyAll();
    }

    /** Waits at most {@code millis} for a poll to be held; true if one is. */
    synchronized boolean awaitHeldPoll(long millis) throws InterruptedException {
        long deadline = System.currentTimeMillis() + millis;
        while (heldPolls == 0 && System.currentTimeMillis() < deadline) {
            wait(Math.max(1, deadline - System.currentTimeMillis()));
        }
        return heldPolls > 0;
    }

    /** Puts a hint in the inbox. */
    synchronized void hint(Hint h) {
        inbox.add(Envelope.of(new Sender(Role.MASTER, "fake"), incarnation, inbox.size() + 1, h));
        notifyAll();
    }

    /** From now on the job master's incarnation is fenced: the master started it again elsewhere. */
    synchronized void fence(long jobMasterIncarnation) {
        fenced = Problem.of("job master", "$.incarnation", "incarnation " + jobMasterIncarnation
                + " is fenced: job master jm1 was declared lost after 60 s of silence and the master started it again; this process must exit");
        notifyAll();
    }

    /** A new incarnation with an empty inbox; {@code wakePolls} false leaves a waiting poll asleep. */
    synchronized void restart(boolean wakePolls) {
        incarnation++;
        inbox.clear();
        if (wakePolls) {
            notifyAll();
        }
    }

    @Override
    public Reply post(String authorization, byte[] body, String remote) {
        Envelope e;
        try {
            e = codec.decode(body, remote);
        } catch (ProtocolException ex) {
            return reply(400, Ack.refused(0, ex.problems()));
        }
        Sender who = TOKENS.verify(Tokens.bearer(authorization));
        if (who == null || !who.equals(e.sender())) {
            return reply(401, Ack.refused(e.sequence(), List.of(Problem.of("fake master", "token", "not a token of " + e.sender()))));
        }
        synchronized (this) {
            if (fenced != null) {
                return reply(409, Ack.refused(0, List.of(fenced)));
            }
            Request r = (Request) e.message();
            requests.add(r);
            List<Problem> problems = judge.apply(r);
            return reply(problems.isEmpty() ? 200 : refusalStatus, problems.isEmpty() ? Ack.applied(e.sequence()) : Ack.refused(e.sequence(), problems));
        }
    }

    @Override
    public synchronized CompletableFuture<Reply> poll(String authorization, long after, long waitMillis, String remote) {
        if (pollsHeld) {
            heldPolls++;
            notifyAll();
            try {
                long until = System.currentTimeMillis() + 10_000;
                while (pollsHeld && System.currentTimeMillis() < until) {
                    wait(Math.max(1, until - System.currentTimeMillis()));
                }
            } catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            } finally {
                heldPolls--;
            }
            return CompletableFuture.completedFuture(Reply.empty());
        }
        long deadline = System.currentTimeMillis() + Math.min(waitMillis, 2_000);
        while (true) {
            if (fenced != null) {
                return CompletableFuture.completedFuture(reply(409, Ack.refused(0, List.of(fenced))));
            }
            if (after > inbox.size()) {
                // a stream this incarnation never sent: the poller must learn that the master restarted
                return CompletableFuture.completedFuture(reply(409, Ack.refused(0,
                        List.of(Problem.of("fake master", "after", "no envelope " + after + " in this incarnation")))));
            }
            if (after < inbox.size()) {
                Envelope e = inbox.get((int) after);
                return CompletableFuture.completedFuture(new Reply(200, codec.encode(e)));
            }
            long left = deadline - System.currentTimeMillis();
            if (left <= 0) {
                return CompletableFuture.completedFuture(Reply.empty());
            }
            try {
                wait(left);
            } catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                return CompletableFuture.completedFuture(Reply.empty());
            }
        }
    }

    private Reply reply(int status, Ack ack) {
        return new Reply(status, codec.encode(Envelope.of(new Sender(Role.MASTER, "fake"), incarnation, 0, ack)));
    }

    @Override
    public void close() {
        server.close();
    }
}

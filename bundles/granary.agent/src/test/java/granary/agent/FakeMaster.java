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
import granary.protocol.link.Endpoint;
import granary.protocol.link.JdkHttpServer;
import granary.protocol.link.Reply;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * A stand-in master on loopback for the agent's tests (the master is not under test): acks every
 * envelope, keeps what it received, and serves an inbox of caps the test puts there. Remembers the
 * highest {@code after} an agent polled with, i.e. what the agent acknowledged.
 */
final class FakeMaster implements Endpoint, AutoCloseable {

    private final WireCodec codec = new WireCodec(Role.MASTER);
    private final Sender self = new Sender(Role.MASTER, "m");
    private long incarnation = System.currentTimeMillis();
    private final List<Envelope> received = new ArrayList<>();
    private final List<Cap> inbox = new ArrayList<>();
    private final JdkHttpServer server;
    private final ExecutorService polls = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "fake-master poll");
        t.setDaemon(true);
        return t;
    });
    private long acknowledged;

    FakeMaster() throws IOException {
        server = JdkHttpServer.start(new InetSocketAddress("127.0.0.1", 0), this, null);
    }

    URI url() {
        return server.url();
    }

    @Override
    public Reply post(String authorization, byte[] body, String remote) {
        Envelope e = codec.decode(body, "agent at " + remote);
        synchronized (this) {
            received.add(e);
            notifyAll();
        }
        return reply(200, Ack.applied(e.sequence()), 0);
    }

    @Override
    public CompletableFuture<Reply> poll(String authorization, long after, long waitMillis, String remote) {
        return CompletableFuture.supplyAsync(() -> next(after, Math.min(waitMillis, 2_000)), polls);
    }

    private synchronized Reply next(long after, long waitMillis) {
        acknowledged = Math.max(acknowledged, after);
        notifyAll();
        long deadline = System.currentTimeMillis() + waitMillis;
        while (inbox.size() <= after) {
            long left = deadline - System.currentTimeMillis();
            if (left <= 0) {
                return Reply.empty();
            }
            try {
                wait(left);
            } catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                return Reply.empty();
            }
        }
        return reply(200, inbox.get((int) after), after + 1);
    }

    /** Acts as a restarted master: a new incarnation, an empty inbox, nothing acknowledged. */
    synchronized void restart() {
        incarnation++;
        inbox.clear();
        acknowledged = 0;
        notifyAll();
    }

    /** Puts a cap in the inbox; returns its sequence number. */
    synchronized long send(Cap cap) {
        inbox.add(cap);
        notifyAll();
        return inbox.size();
    }

    synchronized long acknowledged() {
        return acknowledged;
    }

    synchronized List<Register> registrations() {
        List<Register> out = new ArrayList<>();
        received.forEach(e -> {
            if (e.message() instanceof Register r) {
                out.add(r);
            }
        });
        return out;
    }

    synchronized List<Heartbeat.Exit> exits() {
        List<Heartbeat.Exit> out = new ArrayList<>();
        received.forEach(e -> {
            if (e.message() instanceof Heartbeat h) {
                out.addAll(h.exited());
            }
        });
        return out;
    }

    synchronized List<Heartbeat> heartbeats() {
        List<Heartbeat> out = new ArrayList<>();
        received.forEach(e -> {
            if (e.message() instanceof Heartbeat h) {
                out.add(h);
            }
        });
        return out;
    }

    synchronized List<Heartbeat.Worker> started() {
        List<Heartbeat.Worker> out = new ArrayList<>();
        received.forEach(e -> {
            if (e.message() instanceof Heartbeat h) {
                out.addAll(h.started());
            }
        });
        return out;
    }

    private synchronized Reply reply(int status, Message m, long sequence) {
        return new Reply(status, codec.encode(granary.protocol.Envelope.of(self, incarnation, sequence, m)));
    }

    static Reply refusal(Sender self, int status, String message) {
        Ack a = Ack.refused(0, List.of(Problem.of("master", "Authorization", message)));
        return new Reply(status, new WireCodec(Role.MASTER).encode(Envelope.of(self, 1, 0, a)));
    }

    @Override
    public void close() {
        server.close();
        polls.shutdownNow();
    }
}

package granary.client;

import granary.protocol.Ack;
import granary.protocol.Envelope;
import granary.protocol.Plan;
import granary.protocol.Role;
import granary.protocol.Sender;
import granary.protocol.WireCodec;
import granary.protocol.link.Endpoint;
import granary.protocol.link.JdkHttpServer;
import granary.protocol.link.Reply;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/** Not the thing under test: an agent endpoint on loopback that records the plans it gets and the Authorization header of each. */
final class FakeAgent implements Endpoint, AutoCloseable {

    record Received(String authorization, Sender sender, Plan plan) {
    }

    private final WireCodec codec = new WireCodec(Role.AGENT);
    private final List<Received> received = new ArrayList<>();
    private final JdkHttpServer server;

    FakeAgent() throws IOException {
        server = JdkHttpServer.start(new InetSocketAddress("127.0.0.1", 0), this, null);
    }

    String url() {
        return server.url().toString();
    }

    synchronized List<Received> received() {
        return List.copyOf(received);
    }

    @Override
    public synchronized Reply post(String authorization, byte[] body, String remote) {
        Envelope e = codec.decode(body, remote);
        received.add(new Received(authorization, e.sender(), (Plan) e.message()));
        return new Reply(200, codec.encode(Envelope.of(new Sender(Role.AGENT, "n1"), 7, 0, Ack.applied(e.sequence()))));
    }

    @Override
    public CompletableFuture<Reply> poll(String authorization, long after, long waitMillis, String remote) {
        return CompletableFuture.completedFuture(new Reply(404, new byte[0]));
    }

    @Override
    public void close() {
        server.close();
    }
}

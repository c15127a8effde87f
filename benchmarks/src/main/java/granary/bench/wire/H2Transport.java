package granary.bench.wire;

import granary.protocol.link.Loop;
import granary.protocol.link.Reply;
import granary.protocol.link.Standby;
import granary.protocol.link.Transport;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiConsumer;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpURI;
import org.eclipse.jetty.http.HttpVersion;
import org.eclipse.jetty.http.MetaData;
import org.eclipse.jetty.http2.api.Session;
import org.eclipse.jetty.http2.api.Stream;
import org.eclipse.jetty.http2.client.HTTP2Client;
import org.eclipse.jetty.http2.frames.DataFrame;
import org.eclipse.jetty.http2.frames.HeadersFrame;
import org.eclipse.jetty.http2.frames.ResetFrame;
import org.eclipse.jetty.io.ClientConnector;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.Promise;
import org.eclipse.jetty.util.thread.QueuedThreadPool;

/**
 * A load generator's {@link Transport} over HTTP/2 in clear text (h2c, prior knowledge): each peer
 * is bound to one of a fixed number of connections ({@link #bound}) and sends its posts and its
 * long poll as streams on it, as an agent with its own connection would (docs/protocol.md,
 * "Transport"). With fewer connections than peers several peers share one: a machine that allows
 * 20,000 open files per process cannot hold 20,000 connections at each end. Jetty's low-level
 * HTTP/2 client, one selector; a stream's idle timeout is its call's timeout. No TLS.
 */
final class H2Transport implements AutoCloseable {

    private final HTTP2Client client;
    private final CompletableFuture<Session>[] sessions;
    private final Object lock = new Object();
    private final AtomicInteger nextSlot = new AtomicInteger();
    private final AtomicInteger sources = new AtomicInteger();
    private final int sourceCount;

    @SuppressWarnings("unchecked")
    H2Transport(String name, int connections, int sourceCount) {
        QueuedThreadPool threads = new QueuedThreadPool(8, 2);
        threads.setName(name);
        threads.setDaemon(true);
        ClientConnector connector = new ClientConnector();
        connector.setSelectors(1);
        connector.setExecutor(threads);
        this.client = new HTTP2Client(connector);
        client.setExecutor(threads);
        client.setIdleTimeout(0); // a session lives as long as the run; streams time out on their own
        this.sessions = new CompletableFuture[Math.max(1, connections)];
        this.sourceCount = Math.max(1, sourceCount);
        try {
            client.start();
        } catch (Exception ex) {
            throw new IllegalStateException("cannot start the HTTP/2 client: " + ex.getMessage(), ex);
        }
    }

    /** A transport for one peer: its calls go on the next connection, round robin over the peers. */
    Transport bound() {
        int slot = Math.floorMod(nextSlot.getAndIncrement(), sessions.length);
        return (call, loop, done) -> exchange(slot, call, loop, done);
    }

    int connections() {
        return sessions.length;
    }

    private void exchange(int slot, Transport.Call call, Loop loop, BiConsumer<Transport.Response, IOException> done) {
        session(slot, call).whenComplete((session, failure) -> {
            if (failure != null) {
                loop.execute(() -> done.accept(null, new IOException("cannot connect to " + call.uri() + ": " + failure.getMessage(), failure)));
            } else {
                send(session, call, new Answer(loop, done));
            }
        });
    }

    /** The slot's session; a new one when there is none yet or the last one closed or failed. */
    private CompletableFuture<Session> session(int slot, Transport.Call call) {
        synchronized (lock) {
            CompletableFuture<Session> s = sessions[slot];
            boolean dead = s != null && (s.isCompletedExceptionally() || (s.isDone() && s.join().isClosed()));
            if (s == null || dead) {
                InetSocketAddress to = new InetSocketAddress(call.uri().getHost(), call.uri().getPort());
                s = new CompletableFuture<>();
                CompletableFuture<Session> out = s;
                // connections from 127.0.0.1 … 127.0.0.N in turn: tens of thousands to one port need the source ports
                String from = "127.0.0." + (1 + Math.floorMod(sources.getAndIncrement(), sourceCount));
                client.getClientConnector().setBindAddress(new InetSocketAddress(from, 0));
                client.connect(to, new Session.Listener() { }, Promise.from(out::complete, out::completeExceptionally));
                sessions[slot] = s;
            }
            return s;
        }
    }

    private static void send(Session session, Transport.Call call, Answer answer) {
        boolean post = call.method().equals("POST");
        HttpFields.Mutable fields = HttpFields.build();
        if (call.authorization() != null) {
            fields.put(HttpHeader.AUTHORIZATION, call.authorization());
        }
        if (post) {
            fields.put(HttpHeader.CONTENT_TYPE, Reply.CONTENT_TYPE);
        }
        MetaData.Request request = new MetaData.Request(call.method(), HttpURI.from(call.uri()), HttpVersion.HTTP_2, fields,
                post ? call.body().length : -1);
        long timeout = call.timeout().toMillis();
        session.newStream(new HeadersFrame(request, null, !post), new Promise<>() {
            @Override
            public void succeeded(Stream stream) {
                stream.setIdleTimeout(timeout);
                if (post) {
                    stream.data(new DataFrame(stream.getId(), ByteBuffer.wrap(call.body()), true), Callback.NOOP);
                }
            }

            @Override
            public void failed(Throwable x) {
                answer.fail("cannot open a stream to " + call.uri() + ": " + x.getMessage());
            }
        }, answer);
    }

    @Override
    public void close() {
        try {
            client.stop();
        } catch (Exception ignored) {
            // the run ends; its daemon threads go with it
        }
    }

    /** One call's response, read off its stream and handed to the peer's loop once. */
    private static final class Answer implements Stream.Listener {
        private final Loop loop;
        private final BiConsumer<Transport.Response, IOException> done;
        private final AtomicBoolean over = new AtomicBoolean();
        private int status;
        private String leader;
        private byte[] body = new byte[0];
        private int length;

        Answer(Loop loop, BiConsumer<Transport.Response, IOException> done) {
            this.loop = loop;
            this.done = done;
        }

        @Override
        public void onHeaders(Stream stream, HeadersFrame frame) {
            if (frame.getMetaData() instanceof MetaData.Response r) {
                status = r.getStatus();
                leader = r.getHttpFields().get(Standby.LEADER_HEADER);
            }
            if (frame.isEndStream()) {
                complete();
            } else {
                stream.demand();
            }
        }

        @Override
        public void onDataAvailable(Stream stream) {
            while (true) {
                Stream.Data data = stream.readData();
                if (data == null) {
                    stream.demand();
                    return;
                }
                ByteBuffer b = data.frame().getByteBuffer();
                int n = b.remaining();
                if (length + n > body.length) {
                    body = Arrays.copyOf(body, Math.max(length + n, body.length * 2));
                }
                b.get(body, length, n);
                length += n;
                boolean end = data.frame().isEndStream();
                data.release();
                if (end) {
                    complete();
                    return;
                }
            }
        }

        @Override
        public void onReset(Stream stream, ResetFrame frame, Callback callback) {
            fail("the stream was reset (error " + frame.getError() + ")");
            callback.succeeded();
        }

        @Override
        public void onIdleTimeout(Stream stream, java.util.concurrent.TimeoutException x, Promise<Boolean> promise) {
            fail("no answer within the call's timeout");
            promise.succeeded(true);
        }

        @Override
        public void onFailure(Stream stream, int error, String reason, Throwable failure, Callback callback) {
            fail("the stream failed: " + reason);
            callback.succeeded();
        }

        private void complete() {
            if (over.compareAndSet(false, true)) {
                Transport.Response r = new Transport.Response(status, Arrays.copyOf(body, length), leader);
                loop.execute(() -> done.accept(r, null));
            }
        }

        void fail(String why) {
            if (over.compareAndSet(false, true)) {
                IOException io = new IOException(why);
                loop.execute(() -> done.accept(null, io));
            }
        }
    }
}

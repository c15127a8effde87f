package granary.bench.wire;

import granary.protocol.link.Loop;
import granary.protocol.link.Reply;
import granary.protocol.link.Standby;
import granary.protocol.link.Transport;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.BiConsumer;

/**
 * A load generator's {@link Transport}: plain HTTP/1.1 over non-blocking sockets, one selector
 * thread for every peer of the run, keep-alive connections pooled per server. It costs a simulated
 * peer far less than the JDK's HTTP client (no future chain, no sorted timeout list, no executor hop
 * per call), so that one core can play tens of thousands of agents against the master
 * (benchmarks/RESULTS.md, "Wire"). Only what the master's wire answers needs: {@code Content-Length}
 * or chunked bodies, {@code Connection: close}, the standby's leader header; no TLS.
 *
 * <p>Connections are opened from source addresses 127.0.0.1 … 127.0.0.{@code sources}, round robin,
 * so that tens of thousands of connections to one server port do not run out of ephemeral ports.
 */
final class NioTransport implements Transport, AutoCloseable {

    private final Selector selector;
    private final Thread thread;
    private final ConcurrentLinkedQueue<Exchange> incoming = new ConcurrentLinkedQueue<>();
    /** Idle connections per server; only on the selector's thread. */
    private final Map<InetSocketAddress, ArrayDeque<Conn>> idle = new HashMap<>();
    private final Set<Conn> busy = new HashSet<>();
    private final int sources;
    private int nextSource;
    private volatile boolean running = true;

    NioTransport(String name, int sources) throws IOException {
        this.selector = Selector.open();
        this.sources = Math.max(1, sources);
        this.thread = new Thread(this::run, name);
        this.thread.setDaemon(true);
        this.thread.start();
    }

    @Override
    public void exchange(Call call, Loop loop, BiConsumer<Response, IOException> done) {
        if (!running) {
            loop.execute(() -> done.accept(null, new IOException("the transport is closed")));
            return;
        }
        incoming.add(new Exchange(call, loop, done, request(call), System.nanoTime() + call.timeout().toNanos()));
        selector.wakeup();
    }

    private static byte[] request(Call call) {
        URI u = call.uri();
        String target = u.getRawPath() + (u.getRawQuery() == null ? "" : "?" + u.getRawQuery());
        StringBuilder h = new StringBuilder(160).append(call.method()).append(' ').append(target).append(" HTTP/1.1\r\nHost: ")
                .append(u.getHost()).append(':').append(u.getPort()).append("\r\n");
        if (call.authorization() != null) {
            h.append("Authorization: ").append(call.authorization()).append("\r\n");
        }
        if (call.method().equals("POST")) {
            h.append("Content-Type: ").append(Reply.CONTENT_TYPE).append("\r\nContent-Length: ").append(call.body().length).append("\r\n");
        }
        h.append("\r\n");
        byte[] head = h.toString().getBytes(StandardCharsets.ISO_8859_1);
        byte[] out = new byte[head.length + call.body().length];
        System.arraycopy(head, 0, out, 0, head.length);
        System.arraycopy(call.body(), 0, out, head.length, call.body().length);
        return out;
    }

    private record Exchange(Call call, Loop loop, BiConsumer<Response, IOException> done, byte[] request, long deadline) {
    }

    /** One keep-alive connection and the exchange on it, if any. */
    private final class Conn {
        final InetSocketAddress server;
        final SocketChannel channel;
        final SelectionKey key;
        Exchange current;
        ByteBuffer out;
        byte[] in = new byte[4096];
        int filled;

        Conn(InetSocketAddress server, SocketChannel channel) throws ClosedChannelException {
            this.server = server;
            this.channel = channel;
            this.key = channel.register(selector, SelectionKey.OP_CONNECT, this);
        }

        void start(Exchange x) {
            current = x;
            out = ByteBuffer.wrap(x.request());
            filled = 0;
            busy.add(this);
            if (channel.isConnected()) {
                key.interestOps(SelectionKey.OP_WRITE);
            }
        }

        void fail(IOException why) {
            close();
            Exchange x = current;
            current = null;
            if (x != null) {
                x.loop().execute(() -> x.done().accept(null, why));
            }
        }

        void close() {
            busy.remove(this);
            ArrayDeque<Conn> pool = idle.get(server);
            if (pool != null) {
                pool.remove(this);
            }
            key.cancel();
            try {
                channel.close();
            } catch (IOException ignored) {
                // gone already
            }
        }

        void ready() {
            try {
                if (key.isConnectable()) {
                    channel.finishConnect();
                    key.interestOps(current != null ? SelectionKey.OP_WRITE : SelectionKey.OP_READ);
                    return;
                }
                if (key.isWritable() && out != null) {
                    channel.write(out);
                    if (!out.hasRemaining()) {
                        out = null;
                        key.interestOps(SelectionKey.OP_READ);
                    }
                    return;
                }
                if (key.isReadable()) {
                    read();
                }
            } catch (IOException ex) {
                fail(ex);
            }
        }

        private void read() throws IOException {
            if (filled == in.length) {
                in = java.util.Arrays.copyOf(in, in.length * 2);
            }
            int n = channel.read(ByteBuffer.wrap(in, filled, in.length - filled));
            if (n < 0) {
                fail(new IOException("the server closed the connection"));
                return;
            }
            if (current == null) {
                filled = 0; // an idle connection has nothing to read: the server's close shows as -1 above
                return;
            }
            filled += n;
            Parsed p = parse(in, filled);
            if (p == null) {
                return;
            }
            Exchange x = current;
            current = null;
            busy.remove(this);
            filled = 0;
            if (p.close) {
                close();
            } else {
                idle.computeIfAbsent(server, s -> new ArrayDeque<>()).push(this);
            }
            Response r = new Response(p.status, p.body, p.leader);
            x.loop().execute(() -> x.done().accept(r, null));
        }
    }

    record Parsed(int status, byte[] body, String leader, boolean close) {
    }

    /** A whole response in {@code b[0, n)}, or null while more is to come. */
    static Parsed parse(byte[] b, int n) throws IOException {
        int end = -1;
        for (int i = 3; i < n; i++) {
            if (b[i] == '\n' && b[i - 1] == '\r' && b[i - 2] == '\n' && b[i - 3] == '\r') {
                end = i + 1;
                break;
            }
        }
        if (end < 0) {
            return null;
        }
        String[] lines = new String(b, 0, end - 4, StandardCharsets.ISO_8859_1).split("\r\n");
        String[] statusLine = lines[0].split(" ", 3);
        if (statusLine.length < 2 || !statusLine[0].startsWith("HTTP/1.")) {
            throw new IOException("not an HTTP/1.1 answer: " + lines[0]);
        }
        int status = Integer.parseInt(statusLine[1]);
        int length = 0;
        boolean chunked = false;
        boolean close = false;
        String leader = null;
        for (int i = 1; i < lines.length; i++) {
            int colon = lines[i].indexOf(':');
            if (colon <= 0) {
                continue;
            }
            String name = lines[i].substring(0, colon).trim().toLowerCase(Locale.ROOT);
            String value = lines[i].substring(colon + 1).trim();
            switch (name) {
                case "content-length" -> length = Integer.parseInt(value);
                case "transfer-encoding" -> chunked = value.toLowerCase(Locale.ROOT).contains("chunked");
                case "connection" -> close = value.equalsIgnoreCase("close");
                default -> {
                    if (name.equalsIgnoreCase(Standby.LEADER_HEADER)) {
                        leader = value;
                    }
                }
            }
        }
        if (!chunked) {
            if (n - end < length) {
                return null;
            }
            return new Parsed(status, java.util.Arrays.copyOfRange(b, end, end + length), leader, close);
        }
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        int at = end;
        while (true) {
            int eol = -1;
            for (int i = at + 1; i < n; i++) {
                if (b[i] == '\n' && b[i - 1] == '\r') {
                    eol = i;
                    break;
                }
            }
            if (eol < 0) {
                return null;
            }
            String size = new String(b, at, eol - 1 - at, StandardCharsets.ISO_8859_1);
            int semi = size.indexOf(';');
            int chunk = Integer.parseInt((semi >= 0 ? size.substring(0, semi) : size).trim(), 16);
            int data = eol + 1;
            if (chunk == 0) {
                return n >= data + 2 ? new Parsed(status, body.toByteArray(), leader, close) : null;
            }
            if (n < data + chunk + 2) {
                return null;
            }
            body.write(b, data, chunk);
            at = data + chunk + 2;
        }
    }

    private void run() {
        long nextCheck = System.nanoTime();
        while (running) {
            try {
                selector.select(100);
                Exchange x;
                while ((x = incoming.poll()) != null) {
                    assign(x);
                }
                Iterator<SelectionKey> keys = selector.selectedKeys().iterator();
                while (keys.hasNext()) {
                    SelectionKey k = keys.next();
                    keys.remove();
                    if (k.isValid()) {
                        ((Conn) k.attachment()).ready();
                    }
                }
                long now = System.nanoTime();
                if (now >= nextCheck) {
                    nextCheck = now + 100_000_000L;
                    for (Conn c : new ArrayList<>(busy)) {
                        if (c.current != null && now > c.current.deadline()) {
                            c.fail(new IOException("no answer within " + c.current.call().timeout().toMillis() + " ms"));
                        }
                    }
                }
            } catch (IOException | RuntimeException ex) {
                // one bad connection must not stop every peer: it failed its own exchange already
            }
        }
    }

    private void assign(Exchange x) {
        InetSocketAddress server = new InetSocketAddress(x.call().uri().getHost(), x.call().uri().getPort());
        ArrayDeque<Conn> pool = idle.get(server);
        Conn c = pool == null ? null : pool.poll();
        try {
            if (c == null) {
                SocketChannel ch = SocketChannel.open();
                ch.configureBlocking(false);
                ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
                if (sources > 1) {
                    ch.bind(new InetSocketAddress("127.0.0." + (1 + nextSource++ % sources), 0));
                }
                ch.connect(server);
                c = new Conn(server, ch);
            }
            c.start(x);
        } catch (IOException ex) {
            Exchange failed = x;
            if (c != null) {
                c.close();
            }
            failed.loop().execute(() -> failed.done().accept(null, ex));
        }
    }

    @Override
    public void close() {
        running = false;
        selector.wakeup();
        try {
            thread.join(2_000);
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
        List<Conn> all = new ArrayList<>(busy);
        idle.values().forEach(all::addAll);
        all.forEach(c -> c.fail(new IOException("the transport is closed")));
        try {
            selector.close();
        } catch (IOException ignored) {
            // closing anyway
        }
    }
}

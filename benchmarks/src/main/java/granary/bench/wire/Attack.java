package granary.bench.wire;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

/**
 * The slow-client attack of issue 22 against the master's wire port, from one NIO thread:
 * {@code idle} connections that connect and send nothing, and {@code slow} unauthenticated posts to
 * {@code /protocol/v1/messages} that send their headers ({@code Content-Length: 100000}; every other
 * one without {@code Authorization}, the rest with a garbage bearer token) and then one body byte a
 * second. A connection the master closes, resets or answers is counted by kind (401, 408, another
 * status, closed without an answer, reset) and opened again at the next tick (once a second), so
 * the attack keeps its numbers up for as long as it runs. Only to 127.0.0.1.
 *
 * <p>{@link #close()} closes every socket and stops the thread; the thread also stops by itself
 * after {@code maxSeconds}, whatever happens.
 */
final class Attack implements AutoCloseable {

    enum Kind { IDLE, SLOW }

    /** Counters over the attack's life; {@link #snapshot()} reads them. */
    final LongAdder connects = new LongAdder();
    final LongAdder connectFailures = new LongAdder();
    final LongAdder answered401 = new LongAdder();
    final LongAdder answered408 = new LongAdder();
    final LongAdder answeredOther = new LongAdder();
    final LongAdder closedIdle = new LongAdder();
    final LongAdder closedSlow = new LongAdder();
    final LongAdder resets = new LongAdder();
    final LongAdder answeredLeftOpen = new LongAdder();
    final LongAdder trickled = new LongAdder();
    /** Slow posts whose headers went out whole. */
    final LongAdder headersSent = new LongAdder();
    private volatile boolean rampDone;

    private static final int BODY_LENGTH = 100_000;
    /** Connections opened per 100 ms at most, so that the ramp does not overflow the master's accept queue at once. */
    private static final int OPEN_PER_STEP = 250;

    private final InetSocketAddress target;
    private final int idle;
    private final int slow;
    private final long deadlineNanos;
    private final Selector selector;
    private final Thread thread;
    private final List<Conn> conns = new ArrayList<>();
    private volatile boolean stopping;
    private volatile int heldIdle;
    private volatile int heldSlow;
    private volatile String lastStatus = "";

    /** One attacking connection slot: its socket, and what it sent and read. */
    private final class Conn {
        final Kind kind;
        final int index;
        SocketChannel channel;
        boolean connected;
        /** Bytes of the headers (slow) still to write. */
        ByteBuffer head;
        int bodySent;
        /** Whether the master's answer (its status line) was read and counted. */
        boolean answered;
        long answeredAt;
        final StringBuilder answer = new StringBuilder();

        Conn(Kind kind, int index) {
            this.kind = kind;
            this.index = index;
        }

        boolean open() {
            return channel != null;
        }
    }

    private Attack(InetSocketAddress target, int slow, int idle, int maxSeconds) throws IOException {
        if (!target.getAddress().isLoopbackAddress()) {
            throw new IllegalArgumentException("the attack goes to 127.0.0.1 only, not " + target);
        }
        this.target = target;
        this.idle = idle;
        this.slow = slow;
        this.deadlineNanos = System.nanoTime() + TimeUnit.SECONDS.toNanos(maxSeconds);
        this.selector = Selector.open();
        for (int i = 0; i < slow; i++) {
            conns.add(new Conn(Kind.SLOW, i));
        }
        for (int i = 0; i < idle; i++) {
            conns.add(new Conn(Kind.IDLE, i));
        }
        this.thread = new Thread(this::loop, "wire-attack");
        thread.setDaemon(true);
    }

    /** Starts {@code slow} slow posts and {@code idle} idle connections to {@code port} on 127.0.0.1, for {@code maxSeconds} at most. */
    static Attack start(int port, int slow, int idle, int maxSeconds) throws IOException {
        Attack a = new Attack(new InetSocketAddress("127.0.0.1", port), slow, idle, maxSeconds);
        a.thread.start();
        return a;
    }

    /**
     * Waits, {@code seconds} at most, until every connection was opened and every slow post sent its
     * headers at least once, and the idle ones are all held (the slow ones may have been answered
     * already); the connections held then.
     */
    int awaitHeld(int seconds) throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (!(rampDone && headersSent.sum() >= slow && heldIdle >= idle) && System.nanoTime() < end && thread.isAlive()) {
            Thread.sleep(50);
        }
        Thread.sleep(100); // for the counts
        return heldIdle + heldSlow;
    }

    int heldIdle() {
        return heldIdle;
    }

    int heldSlow() {
        return heldSlow;
    }

    /** The first line of the last answer a slow post got, for the log. */
    String lastStatus() {
        return lastStatus;
    }

    /** Every counter now, by name. */
    Map<String, Long> snapshot() {
        Map<String, Long> m = new LinkedHashMap<>();
        m.put("connects", connects.sum());
        m.put("connect_failures", connectFailures.sum());
        m.put("401", answered401.sum());
        m.put("408", answered408.sum());
        m.put("other_status", answeredOther.sum());
        m.put("closed_idle", closedIdle.sum());
        m.put("closed_slow_unanswered", closedSlow.sum());
        m.put("resets", resets.sum());
        m.put("answered_left_open", answeredLeftOpen.sum());
        m.put("bytes_trickled", trickled.sum());
        m.put("headers_sent", headersSent.sum());
        long cpu = thread.isAlive() ? java.lang.management.ManagementFactory.getThreadMXBean().getThreadCpuTime(thread.getId()) : -1;
        m.put("thread_cpu_ms", cpu < 0 ? 0 : cpu / 1_000_000); // the attack's own thread, in the load generator
        return m;
    }

    @Override
    public void close() {
        stopping = true;
        selector.wakeup();
        try {
            thread.join(5000);
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }

    private void loop() {
        try {
            long nextTick = System.nanoTime();
            long nextStep = System.nanoTime();
            long lastCount = System.nanoTime() - TimeUnit.SECONDS.toNanos(1);
            int toOpen = 0; // first ramp: open every slot, OPEN_PER_STEP per 100 ms
            while (!stopping && System.nanoTime() < deadlineNanos) {
                long now = System.nanoTime();
                if (now >= nextStep && toOpen < conns.size()) {
                    for (int n = 0; n < OPEN_PER_STEP && toOpen < conns.size(); n++) {
                        open(conns.get(toOpen++));
                    }
                    nextStep = now + TimeUnit.MILLISECONDS.toNanos(100);
                    rampDone = toOpen == conns.size();
                }
                if (now >= nextTick) {
                    // once a second: a byte to each slow post whose headers are out, and closed slots opened again
                    for (int i = 0; i < toOpen; i++) {
                        Conn c = conns.get(i);
                        if (!c.open()) {
                            open(c);
                        } else if (c.answered && now - c.answeredAt > TimeUnit.SECONDS.toNanos(1)) {
                            answeredLeftOpen.increment(); // answered, yet not closed by the master a second later
                            quietClose(c);
                        } else if (!c.answered && c.kind == Kind.SLOW && c.connected && c.head != null && !c.head.hasRemaining()
                                && c.bodySent < BODY_LENGTH) {
                            write(c, ByteBuffer.wrap(new byte[] {'x'}));
                            if (c.open()) {
                                c.bodySent++;
                                trickled.increment();
                            }
                        }
                    }
                    nextTick = now + TimeUnit.SECONDS.toNanos(1);
                }
                if (now - lastCount > TimeUnit.MILLISECONDS.toNanos(50)) {
                    count(); // the figures held*() and awaitHeld read
                    lastCount = now;
                }
                long wait = Math.max(1, TimeUnit.NANOSECONDS.toMillis(Math.min(nextTick,
                        toOpen < conns.size() ? nextStep : Long.MAX_VALUE) - System.nanoTime()));
                selector.select(Math.min(wait, 50));
                for (SelectionKey k : selector.selectedKeys()) {
                    Conn c = (Conn) k.attachment();
                    if (!k.isValid() || c.channel != k.channel()) {
                        continue;
                    }
                    if (k.isConnectable()) {
                        finishConnect(c, k);
                    } else {
                        if (k.isReadable()) {
                            read(c);
                        }
                        if (c.open() && k.isValid() && k.isWritable()) {
                            flushHead(c, k);
                        }
                    }
                }
                selector.selectedKeys().clear();
            }
        } catch (IOException | RuntimeException ex) {
            System.err.println("wire: attack stopped: " + ex);
        } finally {
            for (Conn c : conns) {
                quietClose(c);
            }
            heldIdle = 0;
            heldSlow = 0;
            try {
                selector.close();
            } catch (IOException ex) {
                // closing
            }
        }
    }

    private void count() {
        int i = 0, s = 0;
        for (Conn c : conns) {
            if (c.open() && c.connected) {
                if (c.kind == Kind.IDLE) {
                    i++;
                } else if (!c.answered && c.head != null && !c.head.hasRemaining()) {
                    s++;
                }
            }
        }
        heldIdle = i;
        heldSlow = s;
    }

    private void open(Conn c) {
        try {
            SocketChannel ch = SocketChannel.open();
            ch.configureBlocking(false);
            ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
            c.channel = ch;
            c.connected = false;
            c.head = null;
            c.bodySent = 0;
            c.answered = false;
            c.answer.setLength(0);
            if (ch.connect(target)) {
                connected(c, ch.register(selector, 0, c));
            } else {
                ch.register(selector, SelectionKey.OP_CONNECT, c);
            }
        } catch (IOException ex) {
            connectFailures.increment();
            quietClose(c);
        }
    }

    private void finishConnect(Conn c, SelectionKey k) {
        try {
            if (c.channel.finishConnect()) {
                connected(c, k);
            }
        } catch (IOException ex) {
            connectFailures.increment();
            quietClose(c);
        }
    }

    private void connected(Conn c, SelectionKey k) {
        connects.increment();
        c.connected = true;
        if (c.kind == Kind.SLOW) {
            String auth = c.index % 2 == 0 ? "" : "Authorization: Bearer garbage.garbage.garbage\r\n";
            c.head = ByteBuffer.wrap(("POST /protocol/v1/messages HTTP/1.1\r\n"
                    + "Host: 127.0.0.1:" + target.getPort() + "\r\n"
                    + "Content-Type: application/json\r\n"
                    + "Content-Length: " + BODY_LENGTH + "\r\n"
                    + auth
                    + "\r\n").getBytes(StandardCharsets.US_ASCII));
            k.interestOps(SelectionKey.OP_READ | SelectionKey.OP_WRITE);
        } else {
            k.interestOps(SelectionKey.OP_READ);
        }
    }

    private void flushHead(Conn c, SelectionKey k) {
        if (c.head != null && c.head.hasRemaining()) {
            write(c, c.head);
            if (c.open() && !c.head.hasRemaining()) {
                headersSent.increment();
            }
        }
        if (c.open() && (c.head == null || !c.head.hasRemaining())) {
            k.interestOps(SelectionKey.OP_READ);
        }
    }

    private void write(Conn c, ByteBuffer b) {
        try {
            c.channel.write(b);
        } catch (IOException ex) {
            resets.increment();
            quietClose(c);
        }
    }

    private final ByteBuffer in = ByteBuffer.allocate(8192);

    private void read(Conn c) {
        int n;
        try {
            in.clear();
            n = c.channel.read(in);
        } catch (IOException ex) {
            resets.increment(); // before or after an answer
            quietClose(c);
            return;
        }
        if (n > 0) {
            if (!c.answered) {
                c.answer.append(new String(in.array(), 0, n, StandardCharsets.ISO_8859_1));
                if (c.answer.indexOf("\r\n") >= 0 || c.answer.length() >= 64) {
                    settle(c);
                }
            }
            return;
        }
        if (n < 0) {
            if (!c.answered) {
                (c.kind == Kind.IDLE ? closedIdle : closedSlow).increment();
            }
            quietClose(c);
        }
    }

    /** Counts the answer begun on {@code c} by its status line. */
    private void settle(Conn c) {
        c.answered = true;
        c.answeredAt = System.nanoTime();
        String a = c.answer.toString();
        int eol = a.indexOf('\r');
        lastStatus = eol > 0 ? a.substring(0, eol) : a;
        if (a.startsWith("HTTP/1.1 401") || a.startsWith("HTTP/1.0 401")) {
            answered401.increment();
        } else if (a.startsWith("HTTP/1.1 408") || a.startsWith("HTTP/1.0 408")) {
            answered408.increment();
        } else {
            answeredOther.increment();
        }
        c.answer.setLength(0);
    }

    private void quietClose(Conn c) {
        if (c.channel != null) {
            try {
                c.channel.close();
            } catch (IOException ex) {
                // closing anyway
            }
        }
        c.channel = null;
        c.connected = false;
    }

    /** {@code --attack=SLOW,IDLE}: [slow, idle]. */
    static int[] parse(String v) {
        String[] p = v.split(",");
        if (p.length != 2) {
            throw new IllegalArgumentException("--attack=SLOW,IDLE (e.g. --attack=500,2000), not " + v);
        }
        int s = Integer.parseInt(p[0].trim()), i = Integer.parseInt(p[1].trim());
        if (s < 0 || i < 0) {
            throw new IllegalArgumentException("--attack=SLOW,IDLE: no negative counts, not " + v);
        }
        return new int[] {s, i};
    }
}

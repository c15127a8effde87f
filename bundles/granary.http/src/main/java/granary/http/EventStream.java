package granary.http;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import granary.api.event.Granted;
import granary.api.event.OutputEvent;
import granary.api.event.Released;
import granary.api.event.Revoked;
import granary.api.event.Scheduler;
import granary.api.spi.EngineView;
import granary.api.spi.GroupView;
import granary.api.spi.NodeView;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * The live allocation stream (docs/api.md, "The allocation stream"): every grant, revocation and
 * release as the engine makes it, and, sampled, the nodes and groups whose usage changed and the
 * policies in effect, as Server-Sent Events with ids {@code <stream>.<seq>}.
 *
 * <p>The engine never waits for a subscriber: its listener only puts the event in a ring buffer
 * (no serialisation, no I/O, no allocation but the entry); every subscriber has its own writer
 * thread that reads the ring behind it, serialises each event once for all subscribers, and writes
 * in batches. A subscriber that reconnects with {@code Last-Event-ID} gets what it missed while it
 * is still in the ring; one that is further behind (or comes from another stream, a restarted
 * master) gets a {@code snapshot} event — the usage of every node and group — and goes on from
 * there. A slow subscriber falls behind alone, into a snapshot, never slowing the others.
 */
public final class EventStream implements AutoCloseable {

    /** One event in the ring; its text is made once, by the first writer that needs it. */
    private static final class Entry {
        final long seq;
        final String type;
        final Object payload;
        final long nanos;
        volatile byte[] frame;

        Entry(long seq, String type, Object payload, long nanos) {
            this.seq = seq;
            this.type = type;
            this.payload = payload;
            this.nanos = nanos;
        }

        /** The whole SSE message, encoded once for every subscriber (a benign race may make it twice). */
        byte[] frame(String stream) {
            byte[] f = frame;
            if (f == null) {
                String data = Json.write(payload instanceof OutputEvent o ? decision(o) : (JsonObject) payload);
                f = ("id: " + stream + "." + seq + "\nevent: " + type + "\ndata: " + data + "\n\n").getBytes(StandardCharsets.UTF_8);
                frame = f;
            }
            return f;
        }
    }

    /** Events a subscriber's writer takes from the ring per write, at most. */
    private static final int BATCH = 4096;
    /** How long a writer that caught up with a busy stream waits before its next write (ms). */
    static final long PACE_MILLIS = 20;

    /** A subscriber's bytes to write, in one reused buffer. */
    private static final class Frames {
        private byte[] buf = new byte[1 << 16];
        private int len;

        void bytes(byte[] b) {
            if (len + b.length > buf.length) {
                buf = java.util.Arrays.copyOf(buf, Math.max(buf.length * 2, len + b.length));
            }
            System.arraycopy(b, 0, buf, len, b.length);
            len += b.length;
        }

        void text(String t) {
            bytes(t.getBytes(StandardCharsets.UTF_8));
        }

        void writeTo(OutputStream out) throws IOException {
            if (len > 0) {
                out.write(buf, 0, len);
                out.flush();
                len = 0;
            }
        }
    }

    private final Scheduler scheduler;
    private final Entry[] ring;
    private final int mask;
    private final String stream;
    private final int maxSubscribers;
    /** The next sequence number; the latest event has {@code head - 1}. Written under {@code this}. */
    private volatile long head = 1;
    private volatile boolean sleepers;
    private final Object wake = new Object();
    private final List<Subscriber> subscribers = new CopyOnWriteArrayList<>();
    private final ExecutorService writers = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "granary-stream-writer");
        t.setDaemon(true);
        return t;
    });
    private final ScheduledExecutorService sampler = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "granary-stream-sampler");
        t.setDaemon(true);
        return t;
    });
    /** Lag of written events, per millisecond up to 10 s (the last bucket holds the rest). */
    private final AtomicLongArray lag = new AtomicLongArray(10_001);
    private AutoCloseable subscription;
    private Map<String, String> lastNodes = Map.of();
    private Map<String, String> lastGroups = Map.of();
    private Map<String, String> lastPolicies = Map.of();
    /** Whether the baseline was sampled: only changes after it are published. */
    private boolean baselined;
    private volatile boolean closed;

    /**
     * @param capacity       events kept for reconnects (rounded up to a power of two)
     * @param streamId       this stream's name in event ids (e.g. the master's start time): ids of
     *                       another stream are not resumed
     * @param maxSubscribers subscribers served at once; more are refused
     */
    public EventStream(Scheduler scheduler, int capacity, String streamId, int maxSubscribers) {
        this.scheduler = scheduler;
        int size = Integer.highestOneBit(Math.max(16, capacity - 1)) << 1;
        this.ring = new Entry[size];
        this.mask = size - 1;
        this.stream = streamId;
        this.maxSubscribers = maxSubscribers;
    }

    /** Subscribes to the engine and samples usage every {@code sampleMillis}. */
    public EventStream start(long sampleMillis) {
        subscription = scheduler.subscribe(this::onOutput);
        sample(); // the baseline: later samples publish what changed since it
        sampler.scheduleWithFixedDelay(this::sample, sampleMillis, sampleMillis, TimeUnit.MILLISECONDS);
        return this;
    }

    /** Called on the engine thread: an entry in the ring, nothing more. */
    private void onOutput(OutputEvent e) {
        String type = e instanceof Granted ? "grant" : e instanceof Revoked ? "revoke" : e instanceof Released ? "release" : "other";
        publish(type, e);
    }

    private void publish(String type, Object payload) {
        synchronized (this) {
            long s = head;
            ring[(int) (s & mask)] = new Entry(s, type, payload, System.nanoTime());
            head = s + 1;
        }
        if (sleepers) {
            synchronized (wake) {
                sleepers = false;
                wake.notifyAll();
            }
        }
    }

    /** The latest sequence number published (0 before the first). */
    public long latest() {
        return head - 1;
    }

    /** Whether another subscriber would be taken now. */
    public boolean accepting() {
        return !closed && subscribers.size() < maxSubscribers;
    }

    public int subscribers() {
        return subscribers.size();
    }

    static JsonObject decision(OutputEvent o) {
        JsonObject j = new JsonObject();
        if (o instanceof Granted g) {
            fill(j, g.unit().toString(), g.node(), g.slots(), g.kind().name(), g.seq());
        } else if (o instanceof Revoked r) {
            fill(j, r.unit().toString(), r.node(), r.slots(), r.kind().name(), r.seq());
            j.addProperty("reason", r.reason());
        } else if (o instanceof Released r) {
            fill(j, r.unit().toString(), r.node(), r.slots(), r.kind().name(), r.seq());
        }
        return j;
    }

    private static void fill(JsonObject j, String unit, String node, int slots, String kind, long decision) {
        j.addProperty("unit", unit);
        j.addProperty("node", node);
        j.addProperty("slots", slots);
        j.addProperty("kind", kind.toLowerCase(Locale.ROOT));
        j.addProperty("decision", decision);
    }

    // ---- sampled usage ----

    private void sample() {
        if (closed) {
            return;
        }
        try {
            Object[] now = scheduler.query(v -> new Object[] {nodeUsage(v), groupUsage(v), new TreeMap<>(v.status().policies())})
                    .get(10, TimeUnit.SECONDS);
            @SuppressWarnings("unchecked") Map<String, String[]> nodes = (Map<String, String[]>) now[0];
            @SuppressWarnings("unchecked") Map<String, String[]> groups = (Map<String, String[]>) now[1];
            @SuppressWarnings("unchecked") Map<String, String> policies = (Map<String, String>) now[2];
            changed("nodes", nodes, lastNodes, n -> lastNodes = n);
            changed("groups", groups, lastGroups, g -> lastGroups = g);
            if (baselined && !policies.equals(lastPolicies)) {
                JsonObject o = new JsonObject();
                o.add("inEffect", Json.strings(policies));
                publish("policies", o);
            }
            lastPolicies = policies;
            baselined = true;
        } catch (Exception e) {
            // the engine was busy or stopping: the next sample catches up (usage is absolute)
        }
    }

    /** Publishes the entries whose usage changed (or that are new) since the last sample; the first sample only sets the baseline. */
    private void changed(String type, Map<String, String[]> now, Map<String, String> last,
                         java.util.function.Consumer<Map<String, String>> keep) {
        Map<String, String> flat = new HashMap<>();
        JsonArray changes = new JsonArray();
        for (Map.Entry<String, String[]> e : now.entrySet()) {
            String[] v = e.getValue();
            String key = String.join("|", v);
            flat.put(e.getKey(), key);
            if (baselined && !key.equals(last.get(e.getKey()))) {
                changes.add(usage(type, e.getKey(), v));
            }
        }
        if (baselined) {
            for (String gone : last.keySet()) {
                if (!now.containsKey(gone)) {
                    JsonObject r = new JsonObject();
                    r.addProperty(type.equals("nodes") ? "name" : "path", gone);
                    r.addProperty("removed", true);
                    changes.add(r);
                }
            }
        }
        if (!changes.isEmpty()) {
            JsonObject o = new JsonObject();
            o.add(type, changes);
            publish(type, o);
        }
        keep.accept(flat);
    }

    /** Per node: room, cpu, mem granted, cpu, mem capacity, blacklisted. */
    private static Map<String, String[]> nodeUsage(EngineView v) {
        Map<String, String[]> m = new HashMap<>();
        for (NodeView n : v.cluster().nodes()) {
            m.put(n.name(), new String[] {n.room(), Long.toString(n.granted().cpu()), Long.toString(n.granted().memMb()),
                    Long.toString(n.capacity().cpu()), Long.toString(n.capacity().memMb()), Boolean.toString(n.blacklisted())});
        }
        return m;
    }

    /** Per group: used slots, cpu, mem, waiting units, waiting slots. */
    private static Map<String, String[]> groupUsage(EngineView v) {
        Map<String, String[]> m = new HashMap<>();
        for (GroupView g : v.groups()) {
            m.put(g.name(), new String[] {Long.toString(g.usedSlots()), Long.toString(g.used().cpu()), Long.toString(g.used().memMb()),
                    Integer.toString(g.waitingUnits()), Long.toString(g.waitingSlots())});
        }
        return m;
    }

    private static JsonObject usage(String type, String name, String[] v) {
        JsonObject o = new JsonObject();
        if (type.equals("nodes")) {
            o.addProperty("name", name);
            o.addProperty("room", v[0]);
            o.add("granted", cpuMem(v[1], v[2]));
            o.add("capacity", cpuMem(v[3], v[4]));
            o.addProperty("blacklisted", Boolean.parseBoolean(v[5]));
        } else {
            o.addProperty("path", name);
            o.addProperty("usedSlots", Long.parseLong(v[0]));
            o.add("used", cpuMem(v[1], v[2]));
            o.addProperty("waitingUnits", Integer.parseInt(v[3]));
            o.addProperty("waitingSlots", Long.parseLong(v[4]));
        }
        return o;
    }

    private static JsonObject cpuMem(String cpu, String mem) {
        JsonObject o = new JsonObject();
        o.addProperty("cpu", Long.parseLong(cpu));
        o.addProperty("mem", Long.parseLong(mem));
        return o;
    }

    /** Every node's and group's usage and the policies in effect, at sequence {@code seq} (read on the engine thread). */
    private JsonObject snapshot(EngineView v) {
        JsonObject o = new JsonObject();
        o.addProperty("seq", head - 1);
        JsonArray nodes = new JsonArray();
        new TreeMap<>(nodeUsage(v)).forEach((k, x) -> nodes.add(usage("nodes", k, x)));
        JsonArray groups = new JsonArray();
        new TreeMap<>(groupUsage(v)).forEach((k, x) -> groups.add(usage("groups", k, x)));
        o.add("nodes", nodes);
        o.add("groups", groups);
        o.add("inEffect", Json.strings(v.status().policies()));
        return o;
    }

    // ---- subscribers ----

    /** Where a subscriber's bytes go, and how it ends. */
    public interface Sink {
        OutputStream out() throws IOException;

        void close();
    }

    /**
     * Serves a subscriber until it goes away or the stream closes.
     *
     * @param lastEventId the {@code Last-Event-ID} it reconnects with, or null
     * @param types       the event types it wants, or null for all
     * @return false if there are {@code maxSubscribers} already (nothing was written)
     */
    public boolean attach(Sink sink, String lastEventId, Set<String> types) {
        if (closed || subscribers.size() >= maxSubscribers) {
            return false;
        }
        Subscriber s = new Subscriber(sink, resumeFrom(lastEventId), types);
        subscribers.add(s);
        writers.execute(s);
        return true;
    }

    /** The next sequence to send after {@code id}, or -1 if a snapshot must come first. */
    long resumeFrom(String id) {
        if (id == null || id.isBlank()) {
            return head; // a new subscriber: from now on, after the snapshot it is sent
        }
        int dot = id.lastIndexOf('.');
        if (dot < 0 || !id.substring(0, dot).equals(stream)) {
            return -1;
        }
        try {
            long seq = Long.parseLong(id.substring(dot + 1));
            return seq >= head || seq < 0 ? -1 : seq + 1;
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    private final class Subscriber implements Runnable {
        private final Sink sink;
        private final Set<String> types;
        private long next;
        private final boolean fresh;

        Subscriber(Sink sink, long next, Set<String> types) {
            this.sink = sink;
            this.next = next;
            this.types = types;
            this.fresh = next == head;
        }

        @Override
        public void run() {
            try {
                OutputStream out = sink.out();
                Frames b = new Frames();
                b.text("retry: 2000\n\n");
                if (fresh || next < 0) {
                    next = snapshot(b);
                }
                b.writeTo(out);
                while (!closed) {
                    long h = head;
                    if (next >= h) {
                        if (!sleep(15_000)) {
                            b.text(": keep-alive\n\n");
                            b.writeTo(out);
                        }
                        continue;
                    }
                    if (h - next > ring.length) {
                        next = snapshot(b); // fell behind the ring: what it missed is gone
                        b.writeTo(out);
                        continue;
                    }
                    long end = Math.min(h, next + BATCH);
                    long newest = 0;
                    for (long s = next; s < end; s++) {
                        Entry e = ring[(int) (s & mask)];
                        if (e == null || e.seq != s) {
                            break; // overwritten while we read: the next round sends a snapshot
                        }
                        if (types == null || types.contains(e.type)) {
                            b.bytes(e.frame(stream));
                        }
                        newest = e.nanos;
                        next = s + 1;
                    }
                    if (next < end) {
                        next = snapshot(b);
                    }
                    b.writeTo(out);
                    if (newest != 0) {
                        long ms = (System.nanoTime() - newest) / 1_000_000;
                        lag.incrementAndGet((int) Math.min(ms, lag.length() - 1));
                    }
                    if (newest != 0 && head - next < BATCH) {
                        pace(); // caught up, or nearly: let the next write carry a batch
                    }
                }
            } catch (IOException | RuntimeException e) {
                // the subscriber went away (or its connection broke): it reconnects with Last-Event-ID
            } finally {
                subscribers.remove(this);
                sink.close();
            }
        }

        /**
         * Caught up with a busy stream: wait a moment so that the next write carries a batch, not
         * one event (a write per decision would cost a system call per event per subscriber).
         */
        private void pace() {
            try {
                Thread.sleep(PACE_MILLIS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        /** Appends a snapshot event and answers the sequence to go on from. */
        private long snapshot(Frames b) throws IOException {
            JsonObject snap;
            try {
                snap = scheduler.query(EventStream.this::snapshot).get(10, TimeUnit.SECONDS);
            } catch (Exception e) {
                throw new IOException("no snapshot from the engine: " + e, e);
            }
            long seq = snap.get("seq").getAsLong();
            b.text("id: " + stream + "." + seq + "\nevent: snapshot\ndata: " + Json.write(snap) + "\n\n");
            return seq + 1;
        }

        /** Waits for an event; false if none came within {@code millis}. */
        private boolean sleep(long millis) {
            long until = System.currentTimeMillis() + millis;
            synchronized (wake) {
                while (!closed && next >= head) {
                    long left = until - System.currentTimeMillis();
                    if (left <= 0) {
                        return false;
                    }
                    sleepers = true;
                    try {
                        wake.wait(Math.min(left, 1000));
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        return false;
                    }
                }
            }
            return true;
        }
    }

    /** The {@code p}-th percentile of the lag of written events, in ms (decision → bytes written and flushed). */
    public long lagPercentile(double p) {
        long total = 0;
        for (int i = 0; i < lag.length(); i++) {
            total += lag.get(i);
        }
        if (total == 0) {
            return 0;
        }
        long rank = (long) Math.ceil(total * p / 100.0);
        long seen = 0;
        for (int i = 0; i < lag.length(); i++) {
            seen += lag.get(i);
            if (seen >= rank) {
                return i;
            }
        }
        return lag.length() - 1;
    }

    @Override
    public void close() {
        closed = true;
        if (subscription != null) {
            try {
                subscription.close();
            } catch (Exception e) {
                // the engine is stopping too
            }
        }
        sampler.shutdownNow();
        synchronized (wake) {
            wake.notifyAll();
        }
        writers.shutdown();
        try {
            writers.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        for (Subscriber s : new ArrayList<>(subscribers)) {
            s.sink.close();
        }
    }
}

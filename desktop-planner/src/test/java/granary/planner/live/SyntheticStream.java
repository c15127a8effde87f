package granary.planner.live;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

/**
 * A made-up allocation stream as the master writes it (ids {@code <stream>.<seq>}): a snapshot of
 * {@code nodes} nodes in {@code rooms} rooms, then {@code events} decisions, generated as they are read
 * (nothing held in memory), as fast as they are read or paced to {@code perSecond}. The tests' and the
 * frame-time benchmark's source of load.
 *
 * <p>Decision {@code k} is on node {@code k % nodes} for unit {@code j<k % jobs>/u0}. With
 * {@code releases} off every decision is a one-slot grant; with it on, the second half of each round
 * of {@code 2 * nodes} decisions releases what the first half granted, so slots rise and fall. Every
 * {@code sampleEvery} decisions, a {@code nodes} sample changes a fifth of the nodes' granted resources.
 */
public final class SyntheticStream extends InputStream {

    public static final long CAPACITY_CPU = 3200;
    public static final long CAPACITY_MEM = 131072;

    private final int nodes;
    private final int rooms;
    private final long events;
    private final long perSecond;
    private final int jobs;
    private final boolean releases;
    private final long sampleEvery;
    private final StringBuilder sb = new StringBuilder(1 << 16);
    private byte[] buf = new byte[0];
    private int pos;
    private long next = -1; // -1: the snapshot comes first
    private long samples;
    private long started;

    public SyntheticStream(int nodes, int rooms, long events, long perSecond, int jobs, boolean releases, long sampleEvery) {
        this.nodes = nodes;
        this.rooms = rooms;
        this.events = events;
        this.perSecond = perSecond;
        this.jobs = jobs;
        this.releases = releases;
        this.sampleEvery = sampleEvery;
    }

    public static String node(int i) {
        return String.format("n%05d", i);
    }

    public String room(int i) {
        return String.format("room%03d", i % rooms);
    }

    /** How many events (snapshot, decisions, samples) the stream has made so far. */
    public synchronized long made() {
        return Math.max(0, next) + samples + (next >= 0 ? 1 : 0);
    }

    @Override
    public synchronized int read() {
        byte[] one = new byte[1];
        return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
    }

    @Override
    public synchronized int read(byte[] b, int off, int len) {
        if (pos == buf.length && !fill()) {
            return -1;
        }
        int n = Math.min(len, buf.length - pos);
        System.arraycopy(buf, pos, b, off, n);
        pos += n;
        return n;
    }

    private boolean fill() {
        sb.setLength(0);
        if (next < 0) {
            snapshot();
            next = 0;
            started = System.nanoTime();
        } else {
            if (next >= events) {
                return false;
            }
            long until = Math.min(events, next + 512);
            if (perSecond > 0) {
                long due = (System.nanoTime() - started) * perSecond / TimeUnit.SECONDS.toNanos(1);
                while (due <= next) {
                    sleepMillis(1);
                    due = (System.nanoTime() - started) * perSecond / TimeUnit.SECONDS.toNanos(1);
                }
                until = Math.min(until, Math.max(next + 1, due));
            }
            for (; next < until; next++) {
                decision(next);
                if (sampleEvery > 0 && (next + 1) % sampleEvery == 0) {
                    sample();
                }
            }
        }
        buf = sb.toString().getBytes(StandardCharsets.UTF_8);
        pos = 0;
        return true;
    }

    private long seq() {
        return 1 + Math.max(0, next) + samples;
    }

    private void snapshot() {
        sb.append("retry: 2000\n\nid: synth.0\nevent: snapshot\ndata: {\"seq\":0,\"nodes\":[");
        for (int i = 0; i < nodes; i++) {
            if (i > 0) {
                sb.append(',');
            }
            nodeJson(i, 0, 0);
        }
        sb.append("],\"groups\":[");
        for (int g = 0; g < 4; g++) {
            sb.append(g > 0 ? "," : "").append("{\"path\":\"root.q").append(g)
                    .append("\",\"usedSlots\":0,\"used\":{\"cpu\":0,\"mem\":0},\"waitingUnits\":").append(g).append(",\"waitingSlots\":").append(2 * g).append('}');
        }
        sb.append("],\"inEffect\":{\"order\":\"fair\",\"pick\":\"fifo\"}}\n\n");
    }

    private void nodeJson(int i, long cpu, long mem) {
        sb.append("{\"name\":\"").append(node(i)).append("\",\"room\":\"").append(room(i)).append("\",\"granted\":{\"cpu\":").append(cpu)
                .append(",\"mem\":").append(mem).append("},\"capacity\":{\"cpu\":").append(CAPACITY_CPU).append(",\"mem\":").append(CAPACITY_MEM)
                .append("},\"blacklisted\":false}");
    }

    private void decision(long k) {
        boolean release = releases && (k / nodes) % 2 == 1;
        // a release takes back the grant made one round before on the same node, by the same unit
        long granter = release ? k - nodes : k;
        sb.append("id: synth.").append(seq()).append("\nevent: ").append(release ? "release" : "grant")
                .append("\ndata: {\"unit\":\"j").append(granter % jobs).append("/u0\",\"node\":\"").append(node((int) (granter % nodes)))
                .append("\",\"slots\":1,\"kind\":\"worker\",\"decision\":").append(k).append("}\n\n");
    }

    private void sample() {
        samples++;
        sb.append("id: synth.").append(seq()).append("\nevent: nodes\ndata: {\"nodes\":[");
        for (int i = (int) (samples % 5), first = 1; i < nodes; i += 5, first = 0) {
            if (first == 0) {
                sb.append(',');
            }
            long share = (i * 31L + samples * 17L) % 101; // 0-100 %
            nodeJson(i, CAPACITY_CPU * share / 100, CAPACITY_MEM * share / 200);
        }
        sb.append("]}\n\n");
    }

    private static void sleepMillis(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}

package granary.planner.live.model;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The cluster as the allocation stream tells it (docs/api.md, "The allocation stream"), applied on
 * the stream's reader thread. Nodes are parallel arrays indexed once per node, not objects churned
 * per event: at 100,000 grants a second an event must cost a few array writes. Every method is
 * synchronized: the reader applies events and the {@link Coalescer} copies a {@link Frame} out, at
 * most once per UI pulse.
 *
 * <p>What each number means: a node's granted and capacity resources come from the snapshot and the
 * sampled {@code nodes} events (the master samples every {@code streamSampleMillis}); grants,
 * revocations and releases carry slots only, so they move the node's and the job's slot counts, which
 * start at 0 at each snapshot (the snapshot does not list who holds what).
 */
public final class ClusterModel {

    /** How many jobs a frame lists, those holding the most slots. */
    public static final int JOBS_SHOWN = 200;
    /** How many problems a frame repeats. */
    private static final int PROBLEMS_KEPT = 20;

    private static final class Group {
        final String path;
        long usedSlots;
        long usedCpu;
        long usedMem;
        long waitingUnits;
        long waitingSlots;

        Group(String path) {
            this.path = path;
        }
    }

    /** A job's slots, and on how many unit-node pairs. */
    private static final class Job {
        long slots;
        int grants;
    }

    // nodes: index i is one node for as long as it exists; a removed node leaves a null name until the next snapshot
    private String[] names = new String[64];
    private String[] rooms = new String[64];
    private long[] grantedCpu = new long[64];
    private long[] grantedMem = new long[64];
    private long[] capacityCpu = new long[64];
    private long[] capacityMem = new long[64];
    private int[] slots = new int[64];
    private boolean[] blacklisted = new boolean[64];
    private int nodeCount;
    private final Map<String, Integer> nodeIndex = new HashMap<>();
    private long topologyVersion;
    private Topology topology;

    private final Map<String, Group> groups = new TreeMap<>();
    /** Whether the stream feeds the model now: while it does not, its last values are not samples of now. */
    private boolean feeding = true;
    /** Each group's last hour: shared with the connections to the same master before and after this one. */
    private final UsageHistory history;
    private long historyVersionShown = -1;
    private List<Frame.GroupHistory> historyShown = List.of();

    /** unit + '\0' + node → slots the unit holds there. */
    private final Map<String, int[]> grants = new HashMap<>();
    private final Map<String, Job> jobs = new HashMap<>();
    private boolean jobsChanged = true;
    private List<Frame.JobUsage> jobsShown = List.of();

    private Map<String, String> inEffect = Map.of();
    private long eventsApplied;
    private long seq;
    private String lastEventId;
    private long problems;
    private final ArrayDeque<String> lastProblems = new ArrayDeque<>();
    private boolean dirty;
    /** The groups a snapshot being read named; those it did not are dropped at its end. */
    private TreeSet<String> snapshotGroups;

    /** @param history where each group's use is sampled: one per master, kept across connections */
    public ClusterModel(UsageHistory history) {
        this.history = java.util.Objects.requireNonNull(history, "history");
    }

    /** With a history of its own: one sample per 10 s over the last hour. */
    public ClusterModel() {
        this(new UsageHistory());
    }

    // ---- events ----

    /** Records the id of an event read (applied or skipped): the stream resumes after it. */
    public synchronized void seen(String id) {
        if (id == null) {
            return;
        }
        lastEventId = id;
        int dot = id.lastIndexOf('.');
        try {
            seq = Long.parseLong(id.substring(dot + 1));
        } catch (NumberFormatException e) {
            // an id not of the master's form: kept for Last-Event-ID, no sequence number
        }
    }

    /** A node as in a snapshot or a {@code nodes} sample: added, or its usage replaced. */
    public synchronized void node(String name, String room, long gCpu, long gMem, long cCpu, long cMem, boolean black) {
        Integer at = nodeIndex.get(name);
        int i;
        if (at == null) {
            i = nodeCount++;
            grow(nodeCount);
            names[i] = name;
            rooms[i] = room;
            slots[i] = 0;
            nodeIndex.put(name, i);
            topologyVersion++;
        } else {
            i = at;
            if (!room.equals(rooms[i])) {
                rooms[i] = room;
                topologyVersion++;
            }
        }
        grantedCpu[i] = gCpu;
        grantedMem[i] = gMem;
        capacityCpu[i] = cCpu;
        capacityMem[i] = cMem;
        blacklisted[i] = black;
        dirty = true;
    }

    /** A node that went ({@code removed: true}). */
    public synchronized void nodeRemoved(String name) {
        Integer i = nodeIndex.remove(name);
        if (i != null) {
            names[i] = null;
            rooms[i] = null;
            topologyVersion++;
            dirty = true;
        }
    }

    /** A group as in a snapshot or a {@code groups} sample. */
    public synchronized void group(String path, long usedSlots, long usedCpu, long usedMem, long waitingUnits, long waitingSlots) {
        Group g = groups.computeIfAbsent(path, Group::new);
        g.usedSlots = usedSlots;
        g.usedCpu = usedCpu;
        g.usedMem = usedMem;
        g.waitingUnits = waitingUnits;
        g.waitingSlots = waitingSlots;
        dirty = true;
    }

    public synchronized void groupRemoved(String path) {
        if (groups.remove(path) != null) {
            dirty = true;
        }
    }

    public synchronized void policies(Map<String, String> inEffect) {
        this.inEffect = Map.copyOf(inEffect);
        dirty = true;
    }

    /**
     * A snapshot begins: what the model knew is replaced by what follows (nodes and groups not in it
     * are gone; slot counts start again at 0). Group history is kept (it belongs to the master, not the connection).
     */
    public synchronized void snapshotBegins() {
        Arrays.fill(names, 0, nodeCount, null);
        Arrays.fill(rooms, 0, nodeCount, null);
        nodeCount = 0;
        nodeIndex.clear();
        topologyVersion++;
        grants.clear();
        jobs.clear();
        jobsChanged = true;
        snapshotGroups = new TreeSet<>();
        dirty = true;
    }

    /** Marks a group as present in the snapshot being read. */
    public synchronized void snapshotGroup(String path, long usedSlots, long usedCpu, long usedMem, long waitingUnits, long waitingSlots) {
        group(path, usedSlots, usedCpu, usedMem, waitingUnits, waitingSlots);
        if (snapshotGroups != null) {
            snapshotGroups.add(path);
        }
    }

    /** The snapshot is read: groups it did not name are gone. */
    public synchronized void snapshotEnds() {
        if (snapshotGroups != null) {
            groups.keySet().retainAll(snapshotGroups);
            snapshotGroups = null;
        }
        eventsApplied++;
        dirty = true;
    }

    /** {@code slots} more slots of {@code unit} ({@code job/unit}) on {@code node}. */
    public synchronized void granted(String unit, String node, int n) {
        Integer i = nodeIndex.get(node);
        if (i != null) {
            slots[i] += n;
        }
        String key = unit + '\0' + node;
        int[] held = grants.get(key);
        Job job = jobs.computeIfAbsent(job(unit), j -> new Job());
        if (held == null) {
            grants.put(key, new int[] {n});
            job.grants++;
        } else {
            held[0] += n;
        }
        job.slots += n;
        jobsChanged = true;
        eventsApplied++;
        dirty = true;
    }

    /**
     * {@code slots} of {@code unit} on {@code node} taken back or released. Slots granted before the
     * snapshot are not known to the model: the counts stop at 0.
     */
    public synchronized void returned(String unit, String node, int n) {
        Integer i = nodeIndex.get(node);
        if (i != null) {
            slots[i] = Math.max(0, slots[i] - n);
        }
        String key = unit + '\0' + node;
        int[] held = grants.get(key);
        if (held != null) {
            int taken = Math.min(n, held[0]);
            held[0] -= taken;
            String jobId = job(unit);
            Job job = jobs.get(jobId);
            if (held[0] == 0) {
                grants.remove(key);
                job.grants--;
            }
            job.slots -= taken;
            if (job.grants == 0) {
                jobs.remove(jobId);
            }
            jobsChanged = true;
        }
        eventsApplied++;
        dirty = true;
    }

    /** An event that carried nothing to apply but counts (policies). */
    public synchronized void applied() {
        eventsApplied++;
        dirty = true;
    }

    /** A line or event that was skipped, with where and why. */
    public synchronized void problem(String message) {
        problems++;
        lastProblems.addLast(message);
        if (lastProblems.size() > PROBLEMS_KEPT) {
            lastProblems.removeFirst();
        }
        dirty = true;
    }

    private static String job(String unit) {
        int slash = unit.indexOf('/');
        return slash < 0 ? unit : unit.substring(0, slash);
    }

    private void grow(int n) {
        if (n <= names.length) {
            return;
        }
        int size = Math.max(n, names.length * 2);
        names = Arrays.copyOf(names, size);
        rooms = Arrays.copyOf(rooms, size);
        grantedCpu = Arrays.copyOf(grantedCpu, size);
        grantedMem = Arrays.copyOf(grantedMem, size);
        capacityCpu = Arrays.copyOf(capacityCpu, size);
        capacityMem = Arrays.copyOf(capacityMem, size);
        slots = Arrays.copyOf(slots, size);
        blacklisted = Arrays.copyOf(blacklisted, size);
    }

    // ---- reading ----

    /**
     * Takes a group-history sample if {@code nowMillis} reached the next one (called by the coalescer at
     * every pulse, so the history is in wall time whether events come or not).
     */
    public synchronized void tick(long nowMillis) {
        if (feeding && history.due(nowMillis)) {
            List<UsageHistory.Use> now = new ArrayList<>(groups.size());
            groups.values().forEach(g -> now.add(new UsageHistory.Use(g.path, g.usedSlots, g.usedCpu)));
            history.record(nowMillis, now);
            dirty = true;
        }
    }

    /**
     * Whether the stream feeds the model (connected) or not (connecting, reconnecting, failed): the
     * group history takes samples only while it does, so the time between is a gap, not the last values.
     */
    public synchronized void feeding(boolean now) {
        feeding = now;
    }

    /** Whether anything changed since the last {@link #frame()}. */
    public synchronized boolean dirty() {
        return dirty;
    }

    /** The model now, as an immutable frame; clears the dirty flag. */
    public synchronized Frame frame() {
        dirty = false;
        int n = nodeCount;
        List<Frame.GroupUsage> gs = new ArrayList<>(groups.size());
        for (Group g : groups.values()) {
            gs.add(new Frame.GroupUsage(g.path, g.usedSlots, g.usedCpu, g.usedMem, g.waitingUnits, g.waitingSlots));
        }
        long version = history.version();
        if (version != historyVersionShown) {
            historyShown = history.read();
            historyVersionShown = version;
        }
        if (jobsChanged) {
            jobsShown = topJobs();
            jobsChanged = false;
        }
        return new Frame(topology(), Arrays.copyOf(grantedCpu, n), Arrays.copyOf(grantedMem, n), Arrays.copyOf(capacityCpu, n),
                Arrays.copyOf(capacityMem, n), Arrays.copyOf(slots, n), Arrays.copyOf(blacklisted, n), gs, historyShown, jobsShown,
                jobs.size(), inEffect, eventsApplied, seq, lastEventId, problems, new ArrayList<>(lastProblems));
    }

    private Topology topology() {
        if (topology == null || topology.version() != topologyVersion) {
            Map<String, List<Integer>> byRoom = new TreeMap<>();
            for (int i = 0; i < nodeCount; i++) {
                if (names[i] != null) {
                    byRoom.computeIfAbsent(rooms[i], r -> new ArrayList<>()).add(i);
                }
            }
            String[] shown = Arrays.copyOf(names, nodeCount);
            List<Topology.Room> rs = new ArrayList<>();
            byRoom.forEach((room, idx) -> rs.add(new Topology.Room(room,
                    idx.stream().sorted(Comparator.comparing(k -> shown[k])).mapToInt(Integer::intValue).toArray())));
            topology = new Topology(shown, rs, topologyVersion);
        }
        return topology;
    }

    /** The {@link #JOBS_SHOWN} jobs holding the most slots, most first, then by id. */
    private List<Frame.JobUsage> topJobs() {
        Comparator<Frame.JobUsage> order = Comparator.comparingLong(Frame.JobUsage::slots).reversed().thenComparing(Frame.JobUsage::job);
        PriorityQueue<Frame.JobUsage> top = new PriorityQueue<>(order.reversed());
        for (Map.Entry<String, Job> e : jobs.entrySet()) {
            top.add(new Frame.JobUsage(e.getKey(), e.getValue().slots, e.getValue().grants));
            if (top.size() > JOBS_SHOWN) {
                top.poll();
            }
        }
        List<Frame.JobUsage> l = new ArrayList<>(top);
        l.sort(order);
        return l;
    }

    /** The jobs holding slots on {@code node} as seen on the stream, by id. */
    public synchronized List<String> jobsOn(String node) {
        TreeSet<String> found = new TreeSet<>();
        String suffix = '\0' + node;
        for (Iterator<String> it = grants.keySet().iterator(); it.hasNext(); ) {
            String k = it.next();
            if (k.endsWith(suffix)) {
                found.add(job(k.substring(0, k.length() - suffix.length())));
            }
        }
        return new ArrayList<>(found);
    }

    /** The id to resume after, or null. */
    public synchronized String lastEventId() {
        return lastEventId;
    }
}

package granary.bench.wire;

import granary.api.event.PolicyInstalled;
import granary.api.model.Clock;
import granary.api.model.JobSpec;
import granary.api.model.Resources;
import granary.api.model.UnitId;
import granary.api.model.UnitKind;
import granary.api.model.UnitSpec;
import granary.engine.Engine;
import granary.engine.EngineOptions;
import granary.engine.EventLoop;
import granary.master.MasterOptions;
import granary.master.ProtocolMaster;
import granary.policy.fifo.FifoPolicy;
import granary.protocol.Cap;
import granary.protocol.Envelope;
import granary.protocol.Heartbeat;
import granary.protocol.Message;
import granary.protocol.Register;
import granary.protocol.Request;
import granary.protocol.Role;
import granary.protocol.Sender;
import granary.protocol.WireCodec;
import granary.protocol.link.Reply;
import granary.protocol.link.Tokens;
import granary.recovery.Recovery;
import granary.recovery.RecoveryOptions;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The master's own capacity, without HTTP: the runtime's {@link ProtocolMaster} over an engine with
 * the fifo policy, driven through its {@link granary.protocol.link.Endpoint} in this JVM (tokens
 * checked, envelopes decoded, the loop and the engine as in the runtime; no sockets, so no limit of
 * open files). What the wire benchmark cannot show on a machine that allows 20,000 open files per
 * process: the heap of a master with N agents and N × S grants, the master's CPU per heartbeat and
 * per released slot at that size, and the rebuild after a restart (docs/recovery.md).
 *
 * <ol>
 * <li>N agents of S slots register; M job masters each ask for N × S / M slots (every second one
 *     online); every agent's and job master's inbox is read once, so every cap and hint has left.
 * <li>Heap: live bytes after a full collection, less those before the master was made.
 * <li>R rounds of one empty heartbeat from every agent, all posted at once: wall time and the CPU of
 *     this process per heartbeat; then R rounds in which every agent reports one ended worker of a
 *     unit it still holds a slot of (the slot released, the unit's desire one lower: a finished task,
 *     so R × N grants fewer after the rounds) and reads its inbox.
 * <li>Recovery: a second master starts empty with a window; every agent registers again with the caps
 *     it holds and every job master sends its full request with its holdings; times from the last
 *     report to the window closing and to the rebuild done ({@code recovering()} false), with the
 *     grants counted in the new engine.
 * </ol>
 *
 * <pre>
 * taskset -c 0 java -Xmx3g -Xms3g -XX:+UseParallelGC -cp benchmarks/target/benchmarks.jar granary.bench.wire.MasterLoad \
 *     [--agents=20000] [--slots-per-agent=10] [--jobmasters=100] [--rounds=5]
 * </pre>
 * Prints a summary and one line {@code MASTER-JSON {...}}.
 */
public final class MasterLoad {

    private final int agents;
    private final int slots;
    private final int jobMasters;
    private final int rounds;
    private final Tokens tokens = new Tokens("the master-load benchmark's secret".getBytes(java.nio.charset.StandardCharsets.UTF_8));
    private final WireCodec agentCodec = new WireCodec(Role.AGENT);
    private final long incarnation = System.currentTimeMillis();
    private final String[] nodes;
    private final String[] auth;
    private final long[] seq;
    private final String[] jmAuth;
    private final long[] jmSeq;
    private final Map<String, Object> out = new LinkedHashMap<>();

    MasterLoad(int agents, int slots, int jobMasters, int rounds) {
        this.agents = agents;
        this.slots = slots;
        this.jobMasters = jobMasters;
        this.rounds = rounds;
        nodes = new String[agents];
        auth = new String[agents];
        seq = new long[agents];
        for (int i = 0; i < agents; i++) {
            nodes[i] = String.format(Locale.ROOT, "n%05d", i);
            auth[i] = "Bearer " + tokens.issue(new Sender(Role.AGENT, nodes[i]));
        }
        jmAuth = new String[jobMasters];
        jmSeq = new long[jobMasters];
        for (int j = 0; j < jobMasters; j++) {
            jmAuth[j] = "Bearer " + tokens.issue(new Sender(Role.JOB_MASTER, jm(j)));
        }
    }

    public static void main(String[] args) throws Exception {
        int agents = 20_000, slots = 10, jms = 100, rounds = 5;
        for (String a : args) {
            String v = a.contains("=") ? a.substring(a.indexOf('=') + 1) : "";
            switch (a.contains("=") ? a.substring(0, a.indexOf('=')) : a) {
                case "--agents" -> agents = Integer.parseInt(v);
                case "--slots-per-agent" -> slots = Integer.parseInt(v);
                case "--jobmasters" -> jms = Integer.parseInt(v);
                case "--rounds" -> rounds = Integer.parseInt(v);
                default -> {
                    System.err.println("master-load: unknown option " + a + " (see the class comment)");
                    System.exit(2);
                }
            }
        }
        MasterLoad load = new MasterLoad(agents, slots, jms, rounds);
        load.run();
        load.print();
        System.exit(0);
    }

    private static String jm(int j) {
        return String.format(Locale.ROOT, "jm%03d", j);
    }

    /** An engine with the fifo policy behind its loop, as the wire benchmark's master. */
    private static EventLoop engine() throws Exception {
        Engine engine = new Engine(Clock.system(), new EngineOptions(List.of("fifo"), List.of("fifo"), false));
        EventLoop loop = new EventLoop(engine, 1000, "granary-engine").start();
        loop.submit(new PolicyInstalled(new FifoPolicy(), "master-load")).get(10, TimeUnit.SECONDS);
        return loop;
    }

    /** Runs every step; the figures by name, as {@code MASTER-JSON} prints them. */
    Map<String, Object> run() throws Exception {
        MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
        out.put("agents", agents);
        out.put("slots_per_agent", slots);
        out.put("jobmasters", jobMasters);
        long heapBefore = liveHeap(memory);
        EventLoop loop = engine();
        ProtocolMaster master = new ProtocolMaster(loop, tokens, MasterOptions.defaults()
                .withTimeouts(Duration.ofMinutes(10), Duration.ofMinutes(10)), Clock.system(), Recovery.of(RecoveryOptions.none()));
        Map<String, List<Cap.Grant>> held = new LinkedHashMap<>();
        Map<String, Map<String, Integer>> holdings = new LinkedHashMap<>();

        long t0 = System.nanoTime();
        all(agents, i -> agentPost(master, i, new Register(nodes[i], "r" + (i % 50), Map.of(), capacity(), endpoint(i))));
        out.put("register_s", secs(t0));
        t0 = System.nanoTime();
        int per = agents * slots / jobMasters;
        for (int j = 0; j < jobMasters; j++) {
            ok(jmPost(master, j, new Request(true, List.of(spec(j, per)), List.of(), List.of(), List.of())).get(5, TimeUnit.MINUTES), jm(j));
        }
        long granted = waitGranted(loop, (long) agents * slots);
        out.put("fill_s", secs(t0));
        out.put("granted", granted);
        t0 = System.nanoTime();
        readInboxes(master, held, holdings);
        out.put("first_caps_s", secs(t0));

        out.put("heap_live_mib", mib(liveHeap(memory) - heapBefore));

        double[] empty = new double[rounds];
        double[] emptyCpu = new double[rounds];
        for (int r = 0; r < rounds; r++) {
            long cpu = cpu();
            long w = System.nanoTime();
            all(agents, i -> agentPost(master, i, new Heartbeat(List.of(), List.of(), null)));
            empty[r] = (System.nanoTime() - w) / 1e3 / agents;
            emptyCpu[r] = (cpu() - cpu) / 1e3 / agents;
        }
        out.put("heartbeat_wall_us", median(empty));
        out.put("heartbeat_cpu_us", median(emptyCpu));
        out.put("heartbeats_per_core_s", Math.round(1e6 / median(emptyCpu)));

        double[] exits = new double[rounds];
        double[] exitsCpu = new double[rounds];
        // per agent: which of its grants the next exit is of, and how many of its slots are left to end
        int[] exitGrant = new int[agents];
        int[] exitLeft = new int[agents];
        for (int i = 0; i < agents; i++) {
            exitLeft[i] = held.get(nodes[i]).get(0).slots();
        }
        for (int r = 0; r < rounds; r++) {
            long cpu = cpu();
            long w = System.nanoTime();
            int round = r;
            all(agents, i -> {
                List<Cap.Grant> grants = held.get(nodes[i]);
                while (exitLeft[i] == 0 && exitGrant[i] + 1 < grants.size()) {
                    exitLeft[i] = grants.get(++exitGrant[i]).slots();
                }
                Cap.Grant g = grants.get(exitGrant[i]);
                exitLeft[i]--;
                // one worker of a unit it still holds a slot of ended (its slot numbers never repeat): the slot is released
                return agentPost(master, i, new Heartbeat(List.of(new Heartbeat.Worker(g.unit(), 1_000 + round)),
                        List.of(new Heartbeat.Exit(g.unit(), 1_000 + round, 0, false, null)), null));
            });
            readInboxes(master, null, null);
            exits[r] = (System.nanoTime() - w) / 1e3 / agents;
            exitsCpu[r] = (cpu() - cpu) / 1e3 / agents;
        }
        out.put("exit_round_wall_us_per_agent", median(exits));
        out.put("exit_round_cpu_us_per_agent", median(exitsCpu));
        // every exit released a slot and lowered its unit's desire by one: rounds × agents grants fewer
        out.put("granted_after_exits", granted(loop));
        out.put("heap_live_after_rounds_mib", mib(liveHeap(memory) - heapBefore));
        master.close();
        loop.close();

        recover(held, holdings, memory);
        return out;
    }

    /** A second master, empty, with a recovery window: every peer reports what it holds. */
    private void recover(Map<String, List<Cap.Grant>> held, Map<String, Map<String, Integer>> holdings, MemoryMXBean memory)
            throws Exception {
        EventLoop loop = engine();
        RecoveryOptions window = new RecoveryOptions(Duration.ofSeconds(600), Duration.ofMillis(500));
        long startedAt = System.nanoTime();
        ProtocolMaster master = new ProtocolMaster(loop, tokens, MasterOptions.defaults()
                .withTimeouts(Duration.ofMinutes(10), Duration.ofMinutes(10)), Clock.system(), Recovery.of(window));
        java.util.Arrays.fill(seq, 0);
        java.util.Arrays.fill(jmSeq, 0);
        List<CompletableFuture<Reply>> acks = new ArrayList<>();
        for (int i = 0; i < agents; i++) {
            acks.add(agentPost(master, i, new Register(nodes[i], "r" + (i % 50), Map.of(), capacity(), endpoint(i), held.get(nodes[i]))));
        }
        for (int j = 0; j < jobMasters; j++) {
            List<Request.Holding> h = new ArrayList<>();
            UnitId unit = new UnitId(jm(j) + "-job", "work");
            holdings.getOrDefault(jm(j), Map.of()).forEach((node, n) -> h.add(new Request.Holding(unit, node, n)));
            acks.add(jmPost(master, j, new Request(true, List.of(spec(j, agents * slots / jobMasters)), List.of(), List.of(), List.of(), h)));
        }
        for (CompletableFuture<Reply> a : acks) {
            ok(a.get(5, TimeUnit.MINUTES), "a report in the window");
        }
        long reported = System.nanoTime();
        out.put("recovery_reports_s", (reported - startedAt) / 1e9);
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(5);
        while (master.recovering()) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("the master still rebuilds 5 minutes after the last report");
            }
            Thread.sleep(1); // the master says nothing when it is done: polled, 1 ms apart, for the time it took
        }
        long rebuilt = System.nanoTime();
        // the window closes once every peer reported and none came for the settle time (0.5 s): the rest is the rebuild
        out.put("recovery_after_last_report_s", (rebuilt - reported) / 1e9);
        // the master's own measure: from the window closing (settle time and the tick's wait behind it) to serving
        out.put("recovery_rebuild_s", master.lastRebuild().nanos() / 1e9);
        out.put("recovery_granted", waitGranted(loop, (long) agents * slots));
        out.put("recovery_full_s", (System.nanoTime() - reported) / 1e9);
        out.put("heap_live_recovered_mib", mib(liveHeap(memory)));
        master.close();
        loop.close();
    }

    /** Reads every peer's inbox once (no wait): what each agent holds and each job master was told. */
    private void readInboxes(ProtocolMaster master, Map<String, List<Cap.Grant>> held, Map<String, Map<String, Integer>> holdings)
            throws Exception {
        List<CompletableFuture<Reply>> polls = new ArrayList<>(agents);
        for (int i = 0; i < agents; i++) {
            polls.add(master.poll(auth[i], 0, 0, incarnation, "master-load"));
        }
        for (int i = 0; i < agents; i++) {
            Reply r = polls.get(i).get(5, TimeUnit.MINUTES);
            if (held != null && r.status() == 200 && agentCodec.decode(r.body(), "master").message() instanceof Cap cap) {
                held.put(nodes[i], List.copyOf(cap.grants()));
            }
        }
        WireCodec jmCodec = new WireCodec(Role.JOB_MASTER);
        for (int j = 0; j < jobMasters; j++) {
            long after = 0;
            while (true) {
                Reply r = master.poll(jmAuth[j], after, 0, incarnation, "master-load").get(5, TimeUnit.MINUTES);
                if (r.status() != 200) {
                    break;
                }
                Envelope e = jmCodec.decode(r.body(), "master");
                after = e.sequence();
                if (holdings != null && e.message() instanceof granary.protocol.Hint h) {
                    Map<String, Integer> m = holdings.computeIfAbsent(jm(j), k -> new LinkedHashMap<>());
                    // a placement says the unit's count on its node now, not a change
                    h.placements().forEach(p -> {
                        if (p.slots() > 0) {
                            m.put(p.node(), p.slots());
                        } else {
                            m.remove(p.node());
                        }
                    });
                }
            }
        }
    }

    private interface Post {
        CompletableFuture<Reply> post(int i) throws Exception;
    }

    /** Posts one message of each of {@code n} peers at once, then waits for every ack. */
    private static void all(int n, Post post) throws Exception {
        List<CompletableFuture<Reply>> acks = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            acks.add(post.post(i));
        }
        for (CompletableFuture<Reply> a : acks) {
            ok(a.get(5, TimeUnit.MINUTES), "a post");
        }
    }

    private CompletableFuture<Reply> agentPost(ProtocolMaster master, int i, Message m) {
        Envelope e = Envelope.of(new Sender(Role.AGENT, nodes[i]), incarnation, ++seq[i], m);
        return master.postAsync(auth[i], agentCodec.encode(e), "master-load");
    }

    private CompletableFuture<Reply> jmPost(ProtocolMaster master, int j, Message m) {
        Envelope e = Envelope.of(new Sender(Role.JOB_MASTER, jm(j)), incarnation, ++jmSeq[j], m);
        return master.postAsync(jmAuth[j], new WireCodec(Role.JOB_MASTER).encode(e), "master-load");
    }

    private static void ok(Reply r, String what) {
        if (r.status() != 200) {
            throw new IllegalStateException(what + " was answered " + r.status() + ": "
                    + new String(r.body(), java.nio.charset.StandardCharsets.UTF_8));
        }
    }

    /** Where the agent's job masters would send plans: not called here. */
    private static String endpoint(int i) {
        return "http://127.0.0.1:" + (20_000 + i % 40_000);
    }

    private Resources capacity() {
        return Resources.of(100L * slots, 1024L * slots);
    }

    private static JobSpec spec(int j, int desired) {
        UnitSpec u = UnitSpec.builder("work").slot(100, 1024).desired(desired)
                .kind(j % 2 == 0 ? UnitKind.ONLINE : UnitKind.OFFLINE).build();
        return new JobSpec(jm(j) + "-job", JobSpec.DEFAULT_GROUP, "bench", 0, false, List.of(u));
    }

    /** Waits (at most 5 minutes) until the engine grants {@code want} slots; the count it reached. */
    private static long waitGranted(EventLoop loop, long want) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(5);
        long g = 0;
        while (System.nanoTime() < deadline) {
            g = granted(loop);
            if (g >= want) {
                return g;
            }
            Thread.sleep(10); // the engine's count, polled until it is reached or the deadline passes
        }
        return g;
    }

    /** The slots the engine grants now. */
    private static long granted(EventLoop loop) throws Exception {
        return loop.query(v -> {
            long all = 0;
            for (var n : v.cluster().nodes()) {
                for (int s : n.allocations().values()) {
                    all += s;
                }
            }
            return all;
        }).get(1, TimeUnit.MINUTES);
    }

    private static long liveHeap(MemoryMXBean memory) throws InterruptedException {
        for (int i = 0; i < 3; i++) {
            System.gc();
            Thread.sleep(100); // the collector's reference processing settles before the heap is read
        }
        return memory.getHeapMemoryUsage().getUsed();
    }

    private static long cpu() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
    }

    private static double secs(long t0) {
        return Math.round((System.nanoTime() - t0) / 1e7) / 100.0;
    }

    private static double mib(long bytes) {
        return Math.round(bytes / 1048576.0 * 10) / 10.0;
    }

    private static double median(double[] v) {
        double[] s = v.clone();
        java.util.Arrays.sort(s);
        return Math.round(s[s.length / 2] * 10) / 10.0;
    }

    private void print() {
        StringBuilder json = new StringBuilder("{");
        out.forEach((k, v) -> {
            System.out.printf(Locale.ROOT, "  %-34s %s%n", k, v);
            json.append(json.length() > 1 ? "," : "").append('"').append(k).append("\":").append(v);
        });
        System.out.println("MASTER-JSON " + json.append('}'));
    }
}

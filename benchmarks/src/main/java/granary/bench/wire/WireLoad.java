package granary.bench.wire;

import granary.protocol.link.Tokens;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Wire load: simulated agents and job masters against a master over loopback HTTP
 * (docs/protocol.md, "Transport"). See benchmarks/wire.sh and benchmarks/RESULTS.md, "Wire".
 *
 * <pre>
 * java -Xmx1g -cp benchmarks/target/benchmarks.jar granary.bench.wire.WireLoad --in-process [options]
 *   --master=URL --secret=FILE   an external master (and --master-pid=PID for its CPU and memory)
 *   --in-process                 start the master as a child JVM: --runtime=JAR when it exists and takes
 *                                --listen, else WireMaster (ProtocolMaster + JdkHttpServer); --same-jvm: here
 *   --agents=N (1000) --jobmasters=M (10) --seconds=S (30, measured after warm-up) --warmup=W (5)
 *   --heartbeat-ms=1000 --slots-per-agent=16 --work-ms=200
 *   --report=immediate|heartbeat  exits posted as soon as no post is in flight (default), or in the next heartbeat
 *   --master-jvm="-Xmx1g ..."    options of the master's JVM (default -Xmx1g -Xms1g -XX:+UseParallelGC)
 *   --master-cpus=LIST           start the child master under {@code taskset -c LIST} (e.g. 0)
 *   --attack=SLOW,IDLE           the slow-client attack of issue 22 ({@link Attack}): once the agents are
 *                                registered, SLOW unauthenticated posts trickling a body byte a second and
 *                                IDLE connections that send nothing, kept up through the measured window
 *   --live-every=S (5)           how often the master's live agents are read in the measured window
 *   --transport=auto|nio|h2|jdk  the peers' HTTP (auto: nio against WireMaster, which speaks HTTP/1.1 only, and
 *                                while two sockets a peer fit this process's open-file limit with 2,000 to
 *                                spare; else h2): {@link NioTransport} (HTTP/1.1, a post and a poll connection
 *                                per peer, one selector thread per client, cheap per peer), {@link H2Transport}
 *                                (HTTP/2 in clear text, a peer's posts and poll as streams on one connection) or
 *                                the JDK's HTTP client (HTTP/1.1, as the real agent and job master use)
 *   --connections=N              over h2, the connections in all (default one per peer up to 8,000; more peers
 *                                share them: this machine allows 20,000 open files per process)
 * </pre>
 * Prints a summary and one line {@code WIRE-JSON {...}} with every figure.
 */
public final class WireLoad {

    /** The settings of one run. */
    public record Options(URI master, Path secret, long masterPid, boolean inProcess, boolean sameJvm, Path runtime,
                          List<String> masterJvm, int agents, int jobMasters, int seconds, int warmup, int heartbeatMillis,
                          int slotsPerAgent, int workMillis, boolean immediate, int clients, int attackSlow,
                          int attackIdle, String masterCpus, int liveEvery, String transport, int connections) {

        /** HTTP/2 connections of the run: as given, else one per peer up to 8,000 (each end stays under 20,000 open files). */
        int h2Connections() {
            return connections > 0 ? connections : Math.min(agents + jobMasters, 8000);
        }

        static Options parse(String... args) {
            URI master = null;
            Path secret = null;
            long pid = -1;
            boolean inProcess = false;
            boolean same = false;
            Path runtime = null;
            List<String> jvm = List.of("-Xmx1g", "-Xms1g", "-XX:+UseParallelGC"); // docs/operations.md, "The master's JVM"
            int agents = 1000, jms = 10, seconds = 30, warmup = 5, hb = 1000, slots = 16, work = 200, clients = 4;
            boolean immediate = true;
            int attackSlow = 0, attackIdle = 0, liveEvery = 5;
            String masterCpus = null;
            String transport = "auto";
            int connections = 0;
            for (String a : args) {
                String v = a.contains("=") ? a.substring(a.indexOf('=') + 1) : "";
                String k = a.contains("=") ? a.substring(0, a.indexOf('=')) : a;
                switch (k) {
                    case "--master" -> master = URI.create(v);
                    case "--secret" -> secret = Path.of(v);
                    case "--master-pid" -> pid = Long.parseLong(v);
                    case "--in-process" -> inProcess = true;
                    case "--same-jvm" -> same = inProcess = true;
                    case "--runtime" -> runtime = Path.of(v);
                    case "--master-jvm" -> jvm = List.of(v.trim().split("\\s+"));
                    case "--agents" -> agents = Integer.parseInt(v);
                    case "--jobmasters" -> jms = Integer.parseInt(v);
                    case "--seconds" -> seconds = Integer.parseInt(v);
                    case "--warmup" -> warmup = Integer.parseInt(v);
                    case "--heartbeat-ms" -> hb = Integer.parseInt(v);
                    case "--slots-per-agent" -> slots = Integer.parseInt(v);
                    case "--work-ms" -> work = Integer.parseInt(v);
                    case "--clients" -> clients = Integer.parseInt(v);
                    case "--master-cpus" -> masterCpus = v.isBlank() ? null : v;
                    case "--transport" -> {
                        if (!v.equals("nio") && !v.equals("jdk") && !v.equals("h2") && !v.equals("auto")) {
                            throw new IllegalArgumentException("--transport=auto|nio|h2|jdk, not " + v);
                        }
                        transport = v;
                    }
                    case "--connections" -> connections = Integer.parseInt(v);
                    case "--live-every" -> liveEvery = Math.max(1, Integer.parseInt(v));
                    case "--attack" -> {
                        int[] counts = Attack.parse(v);
                        attackSlow = counts[0];
                        attackIdle = counts[1];
                    }
                    case "--report" -> {
                        if (!v.equals("immediate") && !v.equals("heartbeat")) {
                            throw new IllegalArgumentException("--report=immediate|heartbeat, not " + v);
                        }
                        immediate = v.equals("immediate");
                    }
                    default -> throw new IllegalArgumentException("unknown option " + a + " (see the class comment of WireLoad)");
                }
            }
            if (master == null && !inProcess) {
                throw new IllegalArgumentException("give --master=URL --secret=FILE, or --in-process");
            }
            if (master != null && secret == null) {
                throw new IllegalArgumentException("--master needs the master's --secret=FILE to issue tokens");
            }
            if (transport.equals("auto")) {
                // WireMaster (no runtime jar, or this JVM) speaks HTTP/1.1 only
                boolean speaksH2 = master != null || (!same && runtime != null && java.nio.file.Files.isRegularFile(runtime));
                transport = !speaksH2 || 2L * (agents + jms) + 2_000 <= Proc.openFilesLimit() ? "nio" : "h2";
            }
            return new Options(master, secret, pid, inProcess, same, runtime, jvm, agents, jms, seconds, warmup, hb,
                    slots, work, immediate, clients, attackSlow, attackIdle, masterCpus, liveEvery, transport, connections);
        }
    }

    /** What the simulated peers share: the master's address, tokens, timer, and the counters. */
    static final class Run {
        final Options options;
        final URI base;
        final Tokens tokens;
        final ScheduledExecutorService timer;
        final Samples heartbeatRtt = new Samples();
        /** Registrations after the first (an agent told to register again, e.g. after it was declared lost). */
        final LongAdder reRegistrations = new LongAdder();
        /** Heartbeats refused (any reason), and those refused because the agent was declared lost. */
        final LongAdder heartbeatsRefused = new LongAdder();
        final LongAdder heartbeatsRefusedLost = new LongAdder();
        final Samples exitHeartbeatRtt = new Samples();
        final Samples turnaround = new Samples();
        final LongAdder started = new LongAdder();
        final LongAdder startsOnCap = new LongAdder();
        final LongAdder startsOnAck = new LongAdder();
        final LongAdder capIncrease = new LongAdder();
        final LongAdder caps = new LongAdder();
        final LongAdder overshoot = new LongAdder();
        final LongAdder exitsSent = new LongAdder();
        final LongAdder hints = new LongAdder();
        final LongAdder hintPlacements = new LongAdder();
        final LongAdder hintExits = new LongAdder();
        final AtomicLong errors = new AtomicLong();
        final AtomicLong refusals = new AtomicLong();
        /** Refused or failed posts by message type and outcome (HTTP status, or the link's failure kind). */
        final java.util.concurrent.ConcurrentHashMap<String, LongAdder> refusalKinds = new java.util.concurrent.ConcurrentHashMap<>();

        void refused(String kind) {
            refusals.incrementAndGet();
            refusalKinds.computeIfAbsent(kind, k -> new LongAdder()).increment();
        }
        private final AtomicInteger notes = new AtomicInteger();
        /** Whether a poll refused as "not registered" (expected while peers re-register) goes unnoted. */
        volatile boolean quiet409;

        Run(Options options, URI base, Tokens tokens) {
            this.options = options;
            this.base = base;
            this.tokens = tokens;
            ScheduledThreadPoolExecutor t = new ScheduledThreadPoolExecutor(1, r -> {
                Thread th = new Thread(r, "wire-timer");
                th.setDaemon(true);
                return th;
            });
            t.setRemoveOnCancelPolicy(true);
            this.timer = t;
        }

        /** A problem seen by a peer: the first 20 are printed. */
        void note(String text) {
            if (notes.incrementAndGet() <= 20) {
                System.err.println("wire: " + text);
            }
        }

        void recording(boolean on) {
            heartbeatRtt.recording(on);
            exitHeartbeatRtt.recording(on);
            turnaround.recording(on);
        }
    }

    private WireLoad() {
    }

    public static void main(String[] args) throws Exception {
        Options o;
        try {
            o = Options.parse(args);
        } catch (IllegalArgumentException ex) {
            System.err.println("wire: " + ex.getMessage());
            System.exit(2);
            return;
        }
        Map<String, Object> r = run(o);
        System.exit(r.containsKey("failed") ? 1 : 0);
    }

    /** One run: the figures, as printed in the JSON line. */
    public static Map<String, Object> run(Options o) throws Exception {
        Path secret = o.secret();
        if (secret == null) {
            Path dir = Files.createTempDirectory("granary-wire");
            secret = dir.resolve("secret");
            dir.toFile().deleteOnExit();
            secret.toFile().deleteOnExit();
        }
        Tokens tokens = Tokens.fromFile(secret); // creates the file when it is missing
        MasterHandle master = o.master() != null ? MasterHandle.external(o.master(), o.masterPid())
                : o.sameJvm() ? MasterHandle.here(secret) : MasterHandle.child(o.runtime(), secret, o.masterJvm(), o.masterCpus());
        ExecutorService pool = Executors.newFixedThreadPool(2, r -> {
            Thread t = new Thread(r, "wire-http");
            t.setDaemon(true);
            return t;
        });
        Run run = new Run(o, master.url(), tokens);
        List<SimAgent> agents = new ArrayList<>();
        List<SimJobMaster> jobMasters = new ArrayList<>();
        Map<String, Object> out = new LinkedHashMap<>();
        List<Peer.Wire> clients = new ArrayList<>(); // a loop and an HTTP client each, shared by the peers
        Attack attack = null;
        try {
            System.err.println("wire: master " + master.kind() + " at " + master.url() + " (pid " + master.pid() + ")");
            clients.addAll(Peer.Wire.of(o.clients(), pool, run, "wire", o.transport(), o.h2Connections()));
            long t0 = System.nanoTime();
            for (int i = 0; i < o.agents(); i++) {
                agents.add(new SimAgent(run, String.format("n%05d", i), clients.get(i % clients.size())));
            }
            for (int from = 0; from < agents.size(); from += 100) { // registrations 100 at a time
                List<SimAgent> batch = agents.subList(from, Math.min(agents.size(), from + 100));
                batch.forEach(SimAgent::start);
                CompletableFuture.allOf(batch.stream().map(a -> a.registered).toArray(CompletableFuture[]::new))
                        .get(120, TimeUnit.SECONDS);
            }
            double registerSeconds = (System.nanoTime() - t0) / 1e9;
            System.err.printf(Locale.ROOT, "wire: %d agents registered in %.1f s%n", o.agents(), registerSeconds);
            if (o.attackSlow() + o.attackIdle() > 0) {
                // it stops by itself after the longest the rest of the run may take (job masters 60 s,
                // fill 15 s, warm-up, measured window, with a minute to spare)
                int max = 60 + 15 + o.warmup() + o.seconds() + 60;
                attack = Attack.start(master.url().getPort(), o.attackSlow(), o.attackIdle(), max);
                int held = attack.awaitHeld(30);
                System.err.printf(Locale.ROOT, "wire: attack on port %d: %d of %d connections held (%d slow, %d idle); %s%n",
                        master.url().getPort(), held, o.attackSlow() + o.attackIdle(), attack.heldSlow(), attack.heldIdle(),
                        attack.snapshot());
            }
            int desired = (int) Math.max(1, 10_000_000L / Math.max(1, o.jobMasters()));
            for (int i = 0; i < o.jobMasters(); i++) {
                jobMasters.add(new SimJobMaster(run, String.format("jm%03d", i), desired, clients.get(i % clients.size())));
            }
            jobMasters.forEach(SimJobMaster::start);
            CompletableFuture.allOf(jobMasters.stream().map(j -> j.accepted).toArray(CompletableFuture[]::new))
                    .get(60, TimeUnit.SECONDS);
            // warm-up: until 90 % of the slots run (at most 15 s: a master that cannot keep them busy
            // never gets there), then --warmup seconds more
            long slots = (long) o.agents() * o.slotsPerAgent();
            long fillStart = System.nanoTime();
            while (running(agents) < 0.9 * slots && System.nanoTime() - fillStart < TimeUnit.SECONDS.toNanos(15)) {
                Thread.sleep(100);
            }
            double fillSeconds = (System.nanoTime() - fillStart) / 1e9;
            System.err.printf(Locale.ROOT, "wire: %d of %d slots running after %.1f s; warm-up %d s, then %d s measured%n",
                    running(agents), slots, fillSeconds, o.warmup(), o.seconds());
            Thread.sleep(o.warmup() * 1000L);

            long self = ProcessHandle.current().pid();
            String wireBefore = master.wire();
            double masterCpu0 = master.pid() > 0 ? Proc.cpuSeconds(master.pid()) : -1;
            double selfCpu0 = Proc.cpuSeconds(self);
            long started0 = run.started.sum(), inc0 = run.capIncrease.sum(), caps0 = run.caps.sum(), exits0 = run.exitsSent.sum();
            long hints0 = run.hints.sum(), place0 = run.hintPlacements.sum(), over0 = run.overshoot.sum();
            long err0 = run.errors.get(), ref0 = run.refusals.get();
            long onCap0 = run.startsOnCap.sum(), onAck0 = run.startsOnAck.sum(), reReg0 = run.reRegistrations.sum();
            long hbRef0 = run.heartbeatsRefused.sum(), hbLost0 = run.heartbeatsRefusedLost.sum();
            Map<String, Long> attack0 = attack == null ? null : attack.snapshot();
            int heldSlow0 = attack == null ? 0 : attack.heldSlow(), heldIdle0 = attack == null ? 0 : attack.heldIdle();
            long w0 = System.nanoTime();
            run.recording(true);
            // the master's live agents every --live-every seconds (its wire line: agents=N live=L)
            long minLive = Long.MAX_VALUE;
            int liveReads = 0;
            long end = w0 + TimeUnit.SECONDS.toNanos(o.seconds());
            for (long now; (now = System.nanoTime()) < end; ) {
                Thread.sleep(Math.max(1, Math.min(TimeUnit.NANOSECONDS.toMillis(end - now), o.liveEvery() * 1000L)));
                if (System.nanoTime() < end) {
                    long live = parseLive(master.wire());
                    if (live >= 0) {
                        minLive = Math.min(minLive, live);
                        liveReads++;
                    }
                }
            }
            run.recording(false);
            double wall = (System.nanoTime() - w0) / 1e9;
            Map<String, Long> attack1 = attack == null ? null : attack.snapshot();
            int heldSlow1 = attack == null ? 0 : attack.heldSlow(), heldIdle1 = attack == null ? 0 : attack.heldIdle();
            double masterCpu = master.pid() > 0 ? Proc.cpuSeconds(master.pid()) - masterCpu0 : -1;
            double selfCpu = Proc.cpuSeconds(self) - selfCpu0;
            String wire = master.wire();
            long[] delivery = parseWire(wire);
            long[] deliveryBefore = parseWire(wireBefore);

            out.put("date", java.time.LocalDate.now().toString());
            out.put("master", master.kind());
            out.put("agents", o.agents());
            out.put("jobmasters", o.jobMasters());
            out.put("slots_per_agent", o.slotsPerAgent());
            out.put("heartbeat_ms", o.heartbeatMillis());
            out.put("work_ms", o.workMillis());
            out.put("exit_report", o.immediate() ? "immediate" : "heartbeat");
            out.put("measured_s", round(wall));
            out.put("register_s", round(registerSeconds));
            out.put("fill_s", round(fillSeconds));
            out.put("heartbeats", run.heartbeatRtt.count());
            out.put("heartbeat_p50_ms", round(run.heartbeatRtt.quantileMillis(0.5)));
            out.put("heartbeat_p99_ms", round(run.heartbeatRtt.quantileMillis(0.99)));
            out.put("heartbeat_max_ms", round(run.heartbeatRtt.maxMillis()));
            out.put("heartbeats_over_1s", run.heartbeatRtt.countAbove(1_000_000));
            out.put("exit_heartbeat_p50_ms", round(run.exitHeartbeatRtt.quantileMillis(0.5)));
            out.put("exit_heartbeat_p99_ms", round(run.exitHeartbeatRtt.quantileMillis(0.99)));
            out.put("slots_started_per_s", round((run.started.sum() - started0) / wall));
            out.put("cap_increase_per_s", round((run.capIncrease.sum() - inc0) / wall));
            out.put("exits_per_s", round((run.exitsSent.sum() - exits0) / wall));
            out.put("caps_per_s", round((run.caps.sum() - caps0) / wall));
            out.put("starts_on_cap", run.startsOnCap.sum() - onCap0);
            out.put("starts_on_ack", run.startsOnAck.sum() - onAck0);
            out.put("caps_over_node_capacity", run.overshoot.sum() - over0);
            out.put("turnarounds", run.turnaround.count());
            out.put("turnaround_p50_ms", round(run.turnaround.quantileMillis(0.5)));
            out.put("turnaround_p99_ms", round(run.turnaround.quantileMillis(0.99)));
            out.put("master_deliveries", delivery == null ? -1 : delivery[0] - (deliveryBefore == null ? 0 : deliveryBefore[0]));
            out.put("master_decided_sent_p50_ms", delivery == null ? -1 : delivery[1]);
            out.put("master_decided_sent_p99_ms", delivery == null ? -1 : delivery[2]);
            // news for the job masters, in hints: waits for the job master's next poll
            long[] hints = parseHints(wire);
            out.put("master_hint_sent_p50_ms", hints == null ? -1 : hints[1]);
            out.put("master_hint_sent_p99_ms", hints == null ? -1 : hints[2]);
            double[] posts = parsePosts(wire);
            // the master's share of a round trip: headers in to ack out, over its last 65,536 posts
            out.put("master_post_p50_ms", posts == null ? -1 : posts[0]);
            out.put("master_post_p99_ms", posts == null ? -1 : posts[1]);
            out.put("hints_per_s", round((run.hints.sum() - hints0) / wall));
            out.put("hint_placements_per_s", round((run.hintPlacements.sum() - place0) / wall));
            out.put("master_cpu_s_per_s", master.pid() > 0 ? round(masterCpu / wall) : -1);
            out.put("master_rss_mib", master.pid() > 0 ? round(Proc.rssMib(master.pid())) : -1);
            out.put("master_threads", master.pid() > 0 ? Proc.threads(master.pid()) : -1);
            out.put("loadgen_cpu_s_per_s", round(selfCpu / wall));
            out.put("loadgen_transport", o.transport());
            if (o.transport().equals("h2")) {
                out.put("loadgen_connections", o.h2Connections());
            }
            out.put("loadgen_rss_mib", round(Proc.rssMib(self)));
            out.put("errors", run.errors.get() - err0);
            out.put("refusals", run.refusals.get() - ref0);
            out.put("running_at_end", running(agents));
            long liveEnd = parseLive(wire);
            out.put("agents_live_at_end", liveEnd);
            out.put("agents_not_live_at_end", liveEnd < 0 ? -1 : o.agents() - liveEnd);
            out.put("agents_not_live_max", liveReads == 0 ? -1 : o.agents() - Math.min(minLive, liveEnd < 0 ? minLive : liveEnd));
            out.put("live_reads", liveReads + (liveEnd < 0 ? 0 : 1));
            out.put("re_registrations", run.reRegistrations.sum() - reReg0);
            out.put("heartbeats_refused", run.heartbeatsRefused.sum() - hbRef0);
            out.put("heartbeats_refused_lost", run.heartbeatsRefusedLost.sum() - hbLost0);
            out.put("attack_slow", o.attackSlow());
            out.put("attack_idle", o.attackIdle());
            if (attack != null) {
                out.put("attack_held_slow_start", heldSlow0);
                out.put("attack_held_idle_start", heldIdle0);
                out.put("attack_held_slow_end", heldSlow1);
                out.put("attack_held_idle_end", heldIdle1);
                for (Map.Entry<String, Long> e : attack1.entrySet()) {
                    out.put("attack_" + e.getKey(), e.getValue() - attack0.get(e.getKey())); // in the measured window
                }
                out.put("attack_last_answer", attack.lastStatus());
            }
            out.put("master_wire", wire == null ? "" : wire);
            if (wire != null && master.pid() == self) {
                out.put("note", "master in this JVM: its CPU and memory include the load generator's");
            }
            print(out);
            return out;
        } catch (Exception ex) {
            out.put("failed", String.valueOf(ex));
            System.err.println("wire: failed: " + ex);
            throw ex;
        } finally {
            if (attack != null) {
                attack.close();
            }
            agents.forEach(Peer::stop);
            jobMasters.forEach(Peer::stop);
            run.timer.shutdownNow();
            clients.forEach(Peer.Wire::close);
            master.close();
            pool.shutdownNow();
        }
    }

    private static long running(List<SimAgent> agents) {
        long n = 0;
        for (SimAgent a : agents) {
            n += a.running();
        }
        return n;
    }

    private static final Pattern LIVE = Pattern.compile("\\blive=(\\d+)");

    /** The live agents in a {@code granary:wire} line, or -1. */
    static long parseLive(String line) {
        if (line == null) {
            return -1;
        }
        Matcher m = LIVE.matcher(line);
        return m.find() ? Long.parseLong(m.group(1)) : -1;
    }

    private static final Pattern POSTS = Pattern.compile("postP50=(-?[\\d.]+)ms postP99=(-?[\\d.]+)ms");

    /** [p50, p99] of the master's post times in a {@code granary:wire} line, or null (a master that does not say them). */
    static double[] parsePosts(String line) {
        if (line == null) {
            return null;
        }
        Matcher m = POSTS.matcher(line);
        return m.find() ? new double[] {Double.parseDouble(m.group(1)), Double.parseDouble(m.group(2))} : null;
    }

    private static final Pattern WIRE = Pattern.compile("deliveries=(\\d+) deliveryP50=(-?\\d+)ms deliveryP99=(-?\\d+)ms");

    /** [count, p50, p99] of caps from a {@code granary:wire} line, or null. */
    static long[] parseWire(String line) {
        return three(WIRE, line);
    }

    /** The three numbers {@code pattern} finds in {@code line}, or null. */
    private static long[] three(Pattern pattern, String line) {
        if (line == null) {
            return null;
        }
        Matcher m = pattern.matcher(line);
        return m.find() ? new long[] {Long.parseLong(m.group(1)), Long.parseLong(m.group(2)), Long.parseLong(m.group(3))} : null;
    }

    private static final Pattern HINTS = Pattern.compile("hints=(\\d+) hintP50=(-?\\d+)ms hintP99=(-?\\d+)ms");

    /** [count, p50, p99] of hints from a {@code granary:wire} line, or null (a master before they were apart). */
    static long[] parseHints(String line) {
        return three(HINTS, line);
    }

    private static double round(double v) {
        return Math.round(v * 10) / 10.0;
    }

    private static void print(Map<String, Object> f) {
        StringBuilder s = new StringBuilder();
        s.append(String.format(Locale.ROOT, "%nWire load: %s agents × %s slots, %s job masters, heartbeat %s ms, work %s ms, exits %s; %s s measured%n",
                f.get("agents"), f.get("slots_per_agent"), f.get("jobmasters"), f.get("heartbeat_ms"), f.get("work_ms"),
                f.get("exit_report"), f.get("measured_s")));
        s.append("  master                       ").append(f.get("master")).append('\n');
        s.append(String.format(Locale.ROOT, "  heartbeat round trip         p50 %s ms, p99 %s ms (%s heartbeats; with exits: p50 %s, p99 %s ms)%n",
                f.get("heartbeat_p50_ms"), f.get("heartbeat_p99_ms"), f.get("heartbeats"), f.get("exit_heartbeat_p50_ms"), f.get("exit_heartbeat_p99_ms")));
        s.append(String.format(Locale.ROOT, "  heartbeat max, over 1 s      %s ms, %s; agents not live: at most %s, at the end %s; re-registrations %s%n",
                f.get("heartbeat_max_ms"), f.get("heartbeats_over_1s"), f.get("agents_not_live_max"), f.get("agents_not_live_at_end"),
                f.get("re_registrations")));
        if (f.containsKey("attack_held_slow_end")) {
            s.append(String.format(Locale.ROOT, "  attack %s slow, %s idle      held at the start %s + %s, at the end %s + %s; in the window: "
                            + "connects %s, 401 %s, 408 %s, other %s, resets %s, closed unanswered %s slow / %s idle%n",
                    f.get("attack_slow"), f.get("attack_idle"), f.get("attack_held_slow_start"), f.get("attack_held_idle_start"),
                    f.get("attack_held_slow_end"), f.get("attack_held_idle_end"), f.get("attack_connects"), f.get("attack_401"),
                    f.get("attack_408"), f.get("attack_other_status"), f.get("attack_resets"),
                    f.get("attack_closed_slow_unanswered"), f.get("attack_closed_idle")));
        }
        s.append(String.format(Locale.ROOT, "  slots started end to end     %s /s (cap increases %s /s, exits %s /s, caps %s /s)%n",
                f.get("slots_started_per_s"), f.get("cap_increase_per_s"), f.get("exits_per_s"), f.get("caps_per_s")));
        s.append(String.format(Locale.ROOT, "  master decided → sent        p50 %s ms, p99 %s ms (%s deliveries)%n",
                f.get("master_decided_sent_p50_ms"), f.get("master_decided_sent_p99_ms"), f.get("master_deliveries")));
        s.append(String.format(Locale.ROOT, "  news → hint sent             p50 %s ms, p99 %s ms%n",
                f.get("master_hint_sent_p50_ms"), f.get("master_hint_sent_p99_ms")));
        s.append(String.format(Locale.ROOT, "  master post in → ack out     p50 %s ms, p99 %s ms (the master's share of a round trip)%n",
                f.get("master_post_p50_ms"), f.get("master_post_p99_ms")));
        s.append(String.format(Locale.ROOT, "  slot turnaround              p50 %s ms, p99 %s ms (exit sent → worker started in the slot; %s)%n",
                f.get("turnaround_p50_ms"), f.get("turnaround_p99_ms"), f.get("turnarounds")));
        s.append(String.format(Locale.ROOT, "  master CPU / RSS / threads   %s s/s, %s MiB, %s%n",
                f.get("master_cpu_s_per_s"), f.get("master_rss_mib"), f.get("master_threads")));
        s.append(String.format(Locale.ROOT, "  load generator CPU / RSS     %s s/s, %s MiB%n", f.get("loadgen_cpu_s_per_s"), f.get("loadgen_rss_mib")));
        s.append(String.format(Locale.ROOT, "  errors / refusals            %s / %s; caps over node capacity %s; starts on cap %s, on ack %s%n",
                f.get("errors"), f.get("refusals"), f.get("caps_over_node_capacity"), f.get("starts_on_cap"), f.get("starts_on_ack")));
        System.out.print(s);
        StringBuilder j = new StringBuilder("WIRE-JSON {");
        boolean first = true;
        for (Map.Entry<String, Object> e : f.entrySet()) {
            if (!first) {
                j.append(',');
            }
            first = false;
            j.append('"').append(e.getKey()).append("\":");
            Object v = e.getValue();
            if (v instanceof Number) {
                j.append(v);
            } else {
                j.append('"').append(String.valueOf(v).replace("\\", "\\\\").replace("\"", "\\\"")).append('"');
            }
        }
        System.out.println(j.append('}'));
    }
}

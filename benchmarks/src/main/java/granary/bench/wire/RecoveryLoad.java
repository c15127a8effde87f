package granary.bench.wire;

import granary.protocol.link.Tokens;
import granary.recovery.RecoveryOptions;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Recovery: a master killed under full load and started again empty with a recovery window
 * (docs/recovery.md); how long until full service. See benchmarks/recovery.sh and
 * benchmarks/RESULTS.md, "Recovery".
 *
 * <ol>
 * <li>A master (WireMaster: {@code ProtocolMaster} + {@code JdkHttpServer} over the engine with the
 *     fifo policy; in a child JVM, or with {@code --same-jvm} in this one) on 127.0.0.1, a free port.
 * <li>N simulated agents of {@code --slots-per-agent} slots register (100 at a time), then M job
 *     masters each ask for one unit of {@code N × slots / M} slots (every {@code --online-every}-th
 *     one online): the cluster ends up full, N × slots grants. Workers never end.
 * <li>Once every slot is granted (engine count, agents' caps and job masters' holdings all agree) the
 *     master is killed ({@code destroyForcibly}; in this JVM: closed) and a fresh one started on the
 *     same port with a recovery window ({@code --window}, {@code --settle}).
 * <li>The peers see the new incarnation in its answers and start again: agents register with their
 *     caps, job masters send their full requests with their holdings.
 * </ol>
 * Times from the new master's start (the child process launched; the window opens when its
 * {@code ProtocolMaster} is made, a JVM start later): every agent registered again (acknowledged),
 * the window closed ({@code recovering()} false), and full service: every agent's caps equal to those
 * before the kill and the engine's granted slots equal to the count before the kill. Also: online
 * slots lost (must be 0).
 *
 * <pre>
 * java -Xmx2g -cp benchmarks/target/benchmarks.jar granary.bench.wire.RecoveryLoad [options]
 *   --agents=N (10000) --slots-per-agent=10 --jobmasters=100 --online-every=2 (every 2nd job master's unit is online)
 *   --window=S (60) --settle=S (2) --heartbeat-ms=5000 --clients=4
 *   --setup-timeout=S (900) --recovery-timeout=S (window + 300)
 *   --accept-partial             kill once engine, agents and job masters agree for 15 s, even below N × slots
 *   --same-jvm                   the master in this JVM (smoke test) instead of a child JVM
 *   --master-jvm="-Xmx2g ..."    options of the master's JVM
 *   --runtime=JAR                the runtime jar as the master (its default policies, HTTP/2; the window
 *                                from --config=granary.recovery:...) instead of WireMaster
 *   --master-cpus=LIST           the master's JVM under {@code taskset -c LIST}
 *   --transport=nio|h2           the peers' HTTP (default: h2 with --runtime, else nio; WireMaster speaks
 *                                HTTP/1.1 only, and over it 20,000 agents need 40,000 sockets)
 * </pre>
 * Prints a summary and one line {@code RECOVERY-JSON {...}}.
 */
public final class RecoveryLoad {

    /** The settings of one run. */
    public record Options(int agents, int slotsPerAgent, int jobMasters, int onlineEvery, double window, double settle,
                          int heartbeatMillis, int clients, int setupTimeout, int recoveryTimeout, boolean sameJvm,
                          List<String> masterJvm, boolean acceptPartial, Path runtime, String masterCpus, String transport) {

        public static Options parse(String... args) {
            int agents = 10_000, slots = 10, jms = 100, onlineEvery = 2, hb = 5000, clients = 4, setup = 900, recovery = -1;
            double window = 60, settle = 2;
            boolean same = false, partial = false;
            List<String> jvm = List.of("-Xmx2g");
            Path runtime = null;
            String cpus = null, transport = null;
            for (String a : args) {
                String v = a.contains("=") ? a.substring(a.indexOf('=') + 1) : "";
                String k = a.contains("=") ? a.substring(0, a.indexOf('=')) : a;
                switch (k) {
                    case "--agents" -> agents = Integer.parseInt(v);
                    case "--slots-per-agent" -> slots = Integer.parseInt(v);
                    case "--jobmasters" -> jms = Integer.parseInt(v);
                    case "--online-every" -> onlineEvery = Integer.parseInt(v);
                    case "--window" -> window = Double.parseDouble(v);
                    case "--settle" -> settle = Double.parseDouble(v);
                    case "--heartbeat-ms" -> hb = Integer.parseInt(v);
                    case "--clients" -> clients = Integer.parseInt(v);
                    case "--setup-timeout" -> setup = Integer.parseInt(v);
                    case "--recovery-timeout" -> recovery = Integer.parseInt(v);
                    case "--same-jvm" -> same = true;
                    case "--accept-partial" -> partial = true;
                    case "--master-jvm" -> jvm = List.of(v.trim().split("\\s+"));
                    case "--runtime" -> runtime = Path.of(v);
                    case "--master-cpus" -> cpus = v.isBlank() ? null : v;
                    case "--transport" -> {
                        if (!v.equals("nio") && !v.equals("h2")) {
                            throw new IllegalArgumentException("--transport=nio|h2, not " + v);
                        }
                        transport = v;
                    }
                    default -> throw new IllegalArgumentException("unknown option " + a + " (see the class comment of RecoveryLoad)");
                }
            }
            if (window <= 0) {
                throw new IllegalArgumentException("--window must be positive (the master must recover)");
            }
            if (recovery < 0) {
                recovery = (int) Math.ceil(window) + 300;
            }
            if (runtime != null && same) {
                throw new IllegalArgumentException("--runtime starts the runtime in a child JVM; --same-jvm runs WireMaster here: give one");
            }
            if (runtime != null && window != Math.rint(window)) {
                throw new IllegalArgumentException("the runtime's recovery window is whole seconds, got --window=" + window);
            }
            if (transport == null) {
                transport = runtime != null ? "h2" : "nio";   // WireMaster speaks HTTP/1.1 only
            } else if (transport.equals("h2") && runtime == null) {
                throw new IllegalArgumentException("--transport=h2 needs --runtime (WireMaster speaks HTTP/1.1 only)");
            }
            return new Options(agents, slots, jms, onlineEvery, window, settle, hb, clients, setup, recovery, same, jvm, partial,
                    runtime, cpus, transport);
        }
    }

    private RecoveryLoad() {
    }

    public static void main(String[] args) throws Exception {
        Options o;
        try {
            o = Options.parse(args);
        } catch (IllegalArgumentException ex) {
            System.err.println("recovery: " + ex.getMessage());
            System.exit(2);
            return;
        }
        Map<String, Object> r;
        try {
            r = run(o);
        } catch (Exception ex) {
            System.exit(1);
            return;
        }
        System.exit(r.containsKey("failed") ? 1 : 0);
    }

    /** One run: the figures, as printed in the JSON line. */
    public static Map<String, Object> run(Options o) throws Exception {
        Path dir = Files.createTempDirectory("granary-recovery");
        Path secret = dir.resolve("secret");
        dir.toFile().deleteOnExit();
        secret.toFile().deleteOnExit();
        Tokens tokens = Tokens.fromFile(secret); // creates the file
        int port = freePort();
        InetSocketAddress listen = new InetSocketAddress("127.0.0.1", port);
        RecoveryOptions recovery = new RecoveryOptions(Duration.ofMillis((long) (o.window() * 1000)),
                Duration.ofMillis((long) (o.settle() * 1000)));
        WireLoad.Options wo = WireLoad.Options.parse("--in-process", "--agents=" + o.agents(), "--jobmasters=" + o.jobMasters(),
                "--slots-per-agent=" + o.slotsPerAgent(), "--heartbeat-ms=" + o.heartbeatMillis(), "--work-ms=0",
                "--clients=" + o.clients(), "--report=heartbeat", "--transport=" + o.transport());
        ExecutorService pool = Executors.newFixedThreadPool(2, r -> {
            Thread t = new Thread(r, "recovery-http");
            t.setDaemon(true);
            return t;
        });
        Map<String, Object> out = new LinkedHashMap<>();
        List<SimAgent> agents = new ArrayList<>();
        List<SimJobMaster> jobMasters = new ArrayList<>();
        MasterHandle master = null;
        WireLoad.Run run = null;
        List<Peer.Wire> clients = new ArrayList<>(); // a loop and an HTTP client each, shared by the peers
        long self = ProcessHandle.current().pid();
        try {
            master = start(o, secret, listen, RecoveryOptions.none());
            System.err.println("recovery: master " + master.kind() + " at " + master.url() + " (pid " + master.pid() + ")");
            run = new WireLoad.Run(wo, master.url(), tokens);
            clients.addAll(Peer.Wire.of(o.clients(), pool, run, "recovery", wo.transport(), wo.h2Connections()));
            long setupDeadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(o.setupTimeout());
            long t0 = System.nanoTime();
            for (int i = 0; i < o.agents(); i++) {
                agents.add(new SimAgent(run, String.format("n%05d", i), clients.get(i % clients.size())));
            }
            for (int from = 0; from < agents.size(); from += 100) {
                List<SimAgent> batch = agents.subList(from, Math.min(agents.size(), from + 100));
                batch.forEach(SimAgent::start);
                CompletableFuture.allOf(batch.stream().map(a -> a.registered).toArray(CompletableFuture[]::new))
                        .get(Math.max(1, setupDeadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                if ((from + 100) % 1000 == 0) {
                    System.err.printf(Locale.ROOT, "recovery: %d agents registered after %.1f s%n", from + 100, (System.nanoTime() - t0) / 1e9);
                }
            }
            double registerSeconds = (System.nanoTime() - t0) / 1e9;
            System.err.printf(Locale.ROOT, "recovery: %d agents registered in %.1f s%n", o.agents(), registerSeconds);
            long grants = (long) o.agents() * o.slotsPerAgent();
            int per = (int) (grants / o.jobMasters());
            int extra = (int) (grants % o.jobMasters());
            for (int i = 0; i < o.jobMasters(); i++) {
                boolean online = o.onlineEvery() > 0 && i % o.onlineEvery() == 0;
                jobMasters.add(new SimJobMaster(run, String.format("jm%03d", i), per + (i < extra ? 1 : 0), online,
                        clients.get(i % clients.size())));
            }
            jobMasters.forEach(SimJobMaster::start);
            CompletableFuture.allOf(jobMasters.stream().map(j -> j.accepted).toArray(CompletableFuture[]::new))
                    .get(Math.max(1, setupDeadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            long f0 = System.nanoTime();
            MasterHandle m0 = master;
            String[] status = new String[1];
            long[] stable = {-1, 0}; // {count, since (nanoTime)}
            boolean full = waitFor(setupDeadline, 500, () -> {
                long a = heldByAgents(agents), j = heldByJobMasters(jobMasters);
                if (o.acceptPartial() && a == j && a > 0) {
                    // the engine may leave slots free: go on once agents, job masters and engine agree and
                    // nothing changed for 15 s
                    if (a != stable[0]) {
                        stable[0] = a;
                        stable[1] = System.nanoTime();
                        return false;
                    }
                    if (System.nanoTime() - stable[1] < TimeUnit.SECONDS.toNanos(15)) {
                        return false;
                    }
                    status[0] = m0.recovery();
                    return granted(status[0]) == a;
                }
                if (a < grants || j < grants) {
                    return false;
                }
                status[0] = m0.recovery();
                return granted(status[0]) == grants;
            });
            double fillSeconds = (System.nanoTime() - f0) / 1e9;
            if (!full) {
                throw new IllegalStateException("setup: not every slot granted within " + o.setupTimeout() + " s: agents hold "
                        + heldByAgents(agents) + ", job masters " + heldByJobMasters(jobMasters) + " of " + grants
                        + "; master: " + master.recovery());
            }
            long before = granted(status[0]);
            long onlineBefore = online(status[0]);
            int agentOnlineBefore = 0;
            for (SimAgent a : agents) {
                a.snapshot();
                agentOnlineBefore += a.onlineBefore();
            }
            System.err.printf(Locale.ROOT, "recovery: %d slots granted (%d online) %.1f s after the requests; killing the master%n",
                    before, onlineBefore, fillSeconds);
            run.quiet409 = true;

            // ---- the restart ----
            master.kill();
            long killedAt = System.currentTimeMillis();
            long launchedAt = System.currentTimeMillis();
            master = start(o, secret, listen, recovery);
            long listeningAt = System.currentTimeMillis();
            MasterHandle m1 = master;
            long openedAt = master.openedAt() > 0 ? master.openedAt() : launchedAt;
            System.err.println("recovery: new master (pid " + master.pid() + ") listening " + (listeningAt - launchedAt)
                    + " ms after launch; window " + o.window() + " s, settle " + o.settle() + " s");
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(o.recoveryTimeout());
            boolean allRegistered = waitFor(deadline, 20, () -> agents.stream().allMatch(a -> a.reRegisteredAt > 0)
                    && jobMasters.stream().allMatch(j -> j.reRequestedAt > 0));
            boolean windowClosed = waitFor(deadline, 20, () -> m1.recoveredAt() > 0);
            long[] fullAt = {-1};
            boolean whole = waitFor(deadline, 20, () -> agents.stream().allMatch(a -> a.wholeAt > 0));
            String after = null;
            if (whole) {
                String[] s = new String[1];
                boolean counted = waitFor(deadline, 200, () -> {
                    s[0] = m1.recovery();
                    return granted(s[0]) >= before;
                });
                after = s[0];
                if (counted && windowClosed) {
                    // The full caps go out inside the rebuild (the engine holds the grants by then), but the
                    // nodes stay closed to new grants until it ends (recovering() false): full service is the
                    // later of the last agent's caps whole again and the end of the rebuild.
                    fullAt[0] = Math.max(master.recoveredAt(), agents.stream().mapToLong(a -> a.wholeAt).max().orElse(-1));
                }
            }
            if (after == null) {
                after = master.recovery();
            }
            long lastRegistered = max(agents.stream().mapToLong(a -> a.reRegisteredAt).toArray());
            long lastRequest = max(jobMasters.stream().mapToLong(j -> j.reRequestedAt).toArray());
            long firstSeen = min(agents.stream().mapToLong(a -> a.restartSeenAt).toArray());
            long recoveredAt = master.recoveredAt();
            long dueAt = master.rebuildStartedAt();
            long capsWholeAt = max(agents.stream().mapToLong(a -> a.wholeAt).toArray());
            int onlineLost = 0;
            for (SimAgent a : agents) {
                onlineLost += a.onlineLost();
            }

            out.put("date", java.time.LocalDate.now().toString());
            out.put("master", master.kind());
            out.put("agents", o.agents());
            out.put("jobmasters", o.jobMasters());
            out.put("slots_per_agent", o.slotsPerAgent());
            out.put("grants", before);
            out.put("online_grants", onlineBefore);
            out.put("window_s", o.window());
            out.put("settle_s", o.settle());
            out.put("heartbeat_ms", o.heartbeatMillis());
            out.put("setup_register_s", round(registerSeconds));
            out.put("setup_fill_s", round(fillSeconds));
            out.put("kill_to_launch_ms", launchedAt - killedAt);
            out.put("launch_to_window_open_ms", openedAt - launchedAt);
            out.put("launch_to_listening_ms", listeningAt - launchedAt);
            out.put("first_peer_saw_restart_s", since(launchedAt, firstSeen));
            out.put("all_agents_registered_s", allRegistered ? since(launchedAt, lastRegistered) : -1);
            out.put("all_jobmasters_requested_s", allRegistered ? since(launchedAt, lastRequest) : -1);
            out.put("window_due_s", since(launchedAt, dueAt));
            out.put("window_length_s", since(openedAt, dueAt));
            out.put("all_caps_whole_s", since(launchedAt, capsWholeAt));
            out.put("recovering_false_s", windowClosed ? since(launchedAt, recoveredAt) : -1);
            out.put("rebuild_s", windowClosed ? since(dueAt, recoveredAt) : -1);
            out.put("full_service_s", fullAt[0] > 0 ? since(launchedAt, fullAt[0]) : -1);
            out.put("full_service_after_window_s", fullAt[0] > 0 ? since(dueAt, fullAt[0]) : -1);
            out.put("full_service_from_window_open_s", fullAt[0] > 0 ? since(openedAt, fullAt[0]) : -1);
            out.put("grants_after", granted(after));
            out.put("online_grants_after", online(after));
            out.put("online_slots_lost_at_agents", onlineLost);
            out.put("agents_whole", agents.stream().filter(a -> a.wholeAt > 0).count());
            out.put("agents_registered_again", agents.stream().filter(a -> a.reRegisteredAt > 0).count());
            out.put("errors", run.errors.get());
            out.put("refusals", run.refusals.get());
            run.refusalKinds.forEach((k, v) -> System.err.println("recovery: refused or failed posts: " + v.sum() + " × " + k));
            List<String> notWhole = new ArrayList<>();
            long fewer = 0, more = 0;
            for (SimAgent a : agents.stream().filter(a -> a.wholeAt < 0).toList()) {
                long now = a.held(), then = a.heldBefore();
                fewer += now < then ? 1 : 0;
                more += now > then ? 1 : 0;
                if (notWhole.size() < 5) {
                    String d = a.differences();
                    notWhole.add(a.self.id() + ": " + (d.isEmpty() ? "as before now, but not seen whole in time" : d));
                }
            }
            if (!notWhole.isEmpty()) {
                System.err.println("recovery: agents without their caps as before: " + fewer + " hold fewer slots, " + more
                        + " more; e.g. " + String.join("; ", notWhole));
            }
            out.put("agents_not_whole_fewer_slots", fewer);
            out.put("agents_not_whole_more_slots", more);
            out.put("master_rss_mib", master.pid() > 0 && master.pid() != self ? round(Proc.rssMib(master.pid())) : -1);
            out.put("loadgen_rss_mib", round(Proc.rssMib(self)));
            out.put("master_after", after == null ? "" : after);
            if (fullAt[0] < 0) {
                out.put("failed", "no full service within " + o.recoveryTimeout() + " s: " + out.get("agents_whole") + " of "
                        + o.agents() + " agents whole, registered again " + out.get("agents_registered_again")
                        + ", window closed " + windowClosed + ", master " + after);
            }
            print(out);
            return out;
        } catch (Exception ex) {
            out.put("failed", String.valueOf(ex));
            System.err.println("recovery: failed: " + ex);
            throw ex;
        } finally {
            agents.forEach(Peer::stop);
            jobMasters.forEach(Peer::stop);
            if (run != null) {
                run.timer.shutdownNow();
            }
            clients.forEach(Peer.Wire::close);
            if (master != null) {
                master.kill();
            }
            pool.shutdownNow();
        }
    }

    private static MasterHandle start(Options o, Path secret, InetSocketAddress listen, RecoveryOptions recovery) throws IOException {
        if (o.sameJvm()) {
            return MasterHandle.here(secret, listen, recovery);
        }
        if (o.runtime() != null) {
            // the runtime opens the window its recovery component is configured with at every start (0: none)
            return MasterHandle.runtime(o.runtime(), secret, o.masterJvm(), o.masterCpus(), List.of(
                    "--listen=127.0.0.1:" + listen.getPort(),
                    "--config=granary.recovery:windowSeconds=" + recovery.window().toSeconds(),
                    "--config=granary.recovery:settleMillis=" + recovery.settle().toMillis()));
        }
        List<String> args = new ArrayList<>(List.of("--listen=127.0.0.1:" + listen.getPort()));
        if (!recovery.window().isZero()) {
            args.add("--recovery-window=" + recovery.window().toMillis() / 1000.0);
            args.add("--recovery-settle=" + recovery.settle().toMillis() / 1000.0);
        }
        return MasterHandle.wireMaster(secret, o.masterJvm(), args);
    }

    private static int freePort() throws IOException {
        try (java.net.ServerSocket s = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    /** Polls {@code done} every {@code everyMillis} until it holds (true) or {@code deadline} (System.nanoTime) passes (false). */
    private static boolean waitFor(long deadline, long everyMillis, BooleanSupplier done) throws InterruptedException {
        while (true) {
            if (done.getAsBoolean()) {
                return true;
            }
            if (System.nanoTime() > deadline) {
                return false;
            }
            Thread.sleep(everyMillis);
        }
    }

    private static long heldByAgents(List<SimAgent> agents) {
        long n = 0;
        for (SimAgent a : agents) {
            n += a.held();
        }
        return n;
    }

    private static long heldByJobMasters(List<SimJobMaster> jms) {
        long n = 0;
        for (SimJobMaster j : jms) {
            n += j.held();
        }
        return n;
    }

    private static final Pattern GRANTED = Pattern.compile("granted=(-?\\d+) online=(-?\\d+)");

    static long granted(String line) {
        Matcher m = line == null ? null : GRANTED.matcher(line);
        return m != null && m.find() ? Long.parseLong(m.group(1)) : -1;
    }

    static long online(String line) {
        Matcher m = line == null ? null : GRANTED.matcher(line);
        return m != null && m.find() ? Long.parseLong(m.group(2)) : -1;
    }

    private static long max(long[] v) {
        long m = -1;
        for (long x : v) {
            if (x <= 0) {
                return -1;
            }
            m = Math.max(m, x);
        }
        return m;
    }

    private static long min(long[] v) {
        long m = Long.MAX_VALUE;
        for (long x : v) {
            if (x > 0) {
                m = Math.min(m, x);
            }
        }
        return m == Long.MAX_VALUE ? -1 : m;
    }

    private static double since(long from, long to) {
        return from <= 0 || to <= 0 ? -1 : round((to - from) / 1000.0);
    }

    private static double round(double v) {
        return Math.round(v * 100) / 100.0;
    }

    private static void print(Map<String, Object> f) {
        StringBuilder s = new StringBuilder();
        s.append(String.format(Locale.ROOT, "%nRecovery: %s agents × %s slots, %s job masters, %s grants (%s online), window %s s, settle %s s%n",
                f.get("agents"), f.get("slots_per_agent"), f.get("jobmasters"), f.get("grants"), f.get("online_grants"),
                f.get("window_s"), f.get("settle_s")));
        s.append("  master                        ").append(f.get("master")).append('\n');
        s.append(String.format(Locale.ROOT, "  setup                         registered in %s s, filled in %s s%n", f.get("setup_register_s"), f.get("setup_fill_s")));
        s.append(String.format(Locale.ROOT, "  new master: launch → window open %s ms, → listening %s ms%n",
                f.get("launch_to_window_open_ms"), f.get("launch_to_listening_ms")));
        s.append(String.format(Locale.ROOT, "  from launch: all agents registered %s s, all job masters %s s, window due (rebuild starts) %s s,%n"
                + "               all caps whole %s s, recovering() false %s s, full service %s s%n",
                f.get("all_agents_registered_s"), f.get("all_jobmasters_requested_s"), f.get("window_due_s"),
                f.get("all_caps_whole_s"), f.get("recovering_false_s"), f.get("full_service_s")));
        s.append(String.format(Locale.ROOT, "  window open → due %s s; rebuild %s s; full service − window due %s s%n",
                f.get("window_length_s"), f.get("rebuild_s"), f.get("full_service_after_window_s")));
        s.append(String.format(Locale.ROOT, "  grants before / after %s / %s (online %s / %s); online slots lost at agents %s%n",
                f.get("grants"), f.get("grants_after"), f.get("online_grants"), f.get("online_grants_after"), f.get("online_slots_lost_at_agents")));
        s.append(String.format(Locale.ROOT, "  errors / refusals %s / %s; master RSS %s MiB, load generator RSS %s MiB%n",
                f.get("errors"), f.get("refusals"), f.get("master_rss_mib"), f.get("loadgen_rss_mib")));
        if (f.containsKey("failed")) {
            s.append("  FAILED: ").append(f.get("failed")).append('\n');
        }
        System.out.print(s);
        StringBuilder j = new StringBuilder("RECOVERY-JSON {");
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
        System.out.flush();
    }
}

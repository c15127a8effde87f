package granary.jobmaster;

import granary.api.model.JobSpec;
import granary.api.model.Problem;
import granary.api.model.UnitId;
import granary.api.model.UnitSpec;
import granary.protocol.Ack;
import granary.protocol.Envelope;
import granary.protocol.Hint;
import granary.protocol.Message;
import granary.protocol.Plan;
import granary.protocol.Request;
import granary.protocol.Role;
import granary.protocol.Sender;
import granary.protocol.WireCodec;
import granary.protocol.link.Endpoint;
import granary.protocol.link.JdkHttpServer;
import granary.protocol.link.Reply;
import granary.protocol.link.Tokens;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Not the thing under test: a tiny master and agents on loopback. The master grants each unit up to
 * its desired count wherever a node has a free slot (every node has {@code slotsPerNode} slots of
 * any size), sends hints, and on a worker's exit releases its slot and lowers the desired count.
 * The agents check the job master's token and really run each launch's command (bounded, killed at
 * close), reporting its exit code to the master.
 */
final class FakeCluster implements AutoCloseable {

    static final Tokens TOKENS = new Tokens("fake cluster secret: 32 bytes...".getBytes());
    private static final Sender MASTER = new Sender(Role.MASTER, "fake");

    private final WireCodec masterCodec = new WireCodec(Role.MASTER);
    private final WireCodec agentCodec = new WireCodec(Role.AGENT);
    private final int slotsPerNode;
    private final JdkHttpServer master;
    private final Map<String, JdkHttpServer> agents = new LinkedHashMap<>();
    private final ExecutorService runner = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "fake agent worker");
        t.setDaemon(true);
        return t;
    });
    private final Set<Process> processes = ConcurrentHashMap.newKeySet();
    // guarded by this
    private final List<Request> requests = new ArrayList<>();
    private final List<String> launches = new ArrayList<>();
    private final List<Envelope> inbox = new ArrayList<>();
    private final Map<UnitId, Integer> desired = new HashMap<>();
    private final Map<UnitId, Map<String, Integer>> held = new HashMap<>();
    private int mostRunning;
    private int running;

    FakeCluster(int nodes, int slotsPerNode) throws IOException {
        this.slotsPerNode = slotsPerNode;
        master = JdkHttpServer.start(new InetSocketAddress("127.0.0.1", 0), new MasterSide(), null);
        for (int i = 1; i <= nodes; i++) {
            String name = "n" + i;
            agents.put(name, JdkHttpServer.start(new InetSocketAddress("127.0.0.1", 0), new AgentSide(name), null));
        }
    }

    static String token(String jobMaster) {
        return TOKENS.issue(new Sender(Role.JOB_MASTER, jobMaster));
    }

    URI url() {
        return master.url();
    }

    synchronized List<Request> requests() {
        return List.copyOf(requests);
    }

    /** Every launch as {@code node:task}, in order. */
    synchronized List<String> launches() {
        return List.copyOf(launches);
    }

    /** The most workers that ran at once. */
    synchronized int mostRunning() {
        return mostRunning;
    }

    // --- master -------------------------------------------------------------------------------

    private synchronized Ack request(long sequence, Request r) {
        requests.add(r);
        if (r.full()) {
            desired.clear();
            held.clear();
        }
        for (JobSpec j : r.jobs()) {
            for (UnitSpec u : j.units()) {
                desired.put(new UnitId(j.id(), u.name()), u.desired());
            }
        }
        r.desires().forEach(d -> desired.put(d.unit(), d.desired()));
        r.cancels().forEach(id -> {
            desired.keySet().removeIf(u -> u.job().equals(id));
            held.keySet().removeIf(u -> u.job().equals(id));
        });
        Map<UnitId, Map<String, Integer>> changed = new HashMap<>();
        for (Request.Release x : r.releases()) {
            int now = held(x.unit(), x.node()) - x.slots();
            if (now < 0) {
                return Ack.refused(sequence, List.of(Problem.of("unit " + x.unit(), "slots", "cannot release " + x.slots())));
            }
            held.computeIfAbsent(x.unit(), u -> new HashMap<>()).put(x.node(), now);
            desired.computeIfPresent(x.unit(), (u, n) -> Math.max(0, n - x.slots()));
            changed.computeIfAbsent(x.unit(), u -> new HashMap<>()).put(x.node(), now);
        }
        schedule(changed);
        if (r.full() || !changed.isEmpty()) {
            hint(changed, List.of());
        }
        return Ack.applied(sequence);
    }

    /**
     * The next {@code n} exits are lost as with a master that died holding them: the job master never
     * hears of them, and the slot stays the unit's (a new master rebuilds it from the agent's cap,
     * which was not lowered yet).
     */
    synchronized void dropExits(int n) {
        dropExits = n;
    }

    private int dropExits;

    /**
     * The next {@code n} exits reach the master {@code millis} late (the agent freed their slots at
     * once): as with a job master busy elsewhere, or a slow link. A job master that verifies within
     * that time runs such a task again; the late exit then comes for a task already finished.
     */
    synchronized void delayExits(int n, long millis) {
        delayExits = n;
        delayMillis = millis;
    }

    private int delayExits;
    private long delayMillis;
    private final ScheduledExecutorService late = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "fake master, late exits");
        t.setDaemon(true);
        return t;
    });

    private synchronized void exited(UnitId unit, String node, int slot, int code) {
        running--;
        if (dropExits > 0) {
            dropExits--;
            return;
        }
        if (delayExits > 0) {
            delayExits--;
            late.schedule(() -> released(unit, node, slot, code), delayMillis, TimeUnit.MILLISECONDS);
            return;
        }
        released(unit, node, slot, code);
    }

    /** The master side of an exit: the slot is released and the unit wants one fewer. */
    private synchronized void released(UnitId unit, String node, int slot, int code) {
        Map<UnitId, Map<String, Integer>> changed = new HashMap<>();
        int now = Math.max(0, held(unit, node) - 1);
        held.computeIfAbsent(unit, u -> new HashMap<>()).put(node, now);
        desired.computeIfPresent(unit, (u, n) -> Math.max(0, n - 1));
        changed.computeIfAbsent(unit, u -> new HashMap<>()).put(node, now);
        schedule(changed);
        hint(changed, List.of(new Hint.Exit(unit, node, slot, code)));
    }

    /** Grants free slots to units that want more. */
    private void schedule(Map<UnitId, Map<String, Integer>> changed) {
        for (Map.Entry<UnitId, Integer> d : desired.entrySet()) {
            UnitId u = d.getKey();
            for (String node : agents.keySet()) {
                while (total(u) < d.getValue() && used(node) < slotsPerNode) {
                    int now = held(u, node) + 1;
                    held.computeIfAbsent(u, x -> new HashMap<>()).put(node, now);
                    changed.computeIfAbsent(u, x -> new HashMap<>()).put(node, now);
                }
            }
        }
    }

    private void hint(Map<UnitId, Map<String, Integer>> changed, List<Hint.Exit> exits) {
        List<Hint.Placement> placements = new ArrayList<>();
        changed.forEach((u, m) -> m.forEach((node, n) ->
                placements.add(new Hint.Placement(u, node, n, agents.get(node).url().toString()))));
        // a plan pass per node, as a master gives them (docs/security.md, "Plan passes"); this fake's agents check them
        List<Hint.Pass> passes = placements.stream().map(Hint.Placement::node).distinct().map(n -> new Hint.Pass(n,
                granary.protocol.link.PlanPass.issue(TOKENS.agentKey(n), new granary.protocol.link.PlanPass.Claims(jobMaster, jobMasterIncarnation, n, "k",
                        System.currentTimeMillis() + 600_000)))).toList();
        inbox.add(Envelope.of(MASTER, 1, inbox.size() + 1, new Hint(placements, exits, List.of(), 0, passes)));
        notifyAll();
    }

    private int held(UnitId u, String node) {
        return held.getOrDefault(u, Map.of()).getOrDefault(node, 0);
    }

    private int total(UnitId u) {
        return held.getOrDefault(u, Map.of()).values().stream().mapToInt(Integer::intValue).sum();
    }

    private int used(String node) {
        return held.values().stream().mapToInt(m -> m.getOrDefault(node, 0)).sum();
    }

    private synchronized Reply next(long after, long waitMillis) {
        long deadline = System.currentTimeMillis() + Math.min(waitMillis, 2_000);
        while (after >= inbox.size()) {
            long left = deadline - System.currentTimeMillis();
            if (left <= 0) {
                return Reply.empty();
            }
            try {
                wait(left);
            } catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                return Reply.empty();
            }
        }
        return new Reply(200, masterCodec.encode(inbox.get((int) after)));
    }

    /** The job master this fake master serves (the sender of its requests). */
    private String jobMaster = "";
    private long jobMasterIncarnation;

    private final class MasterSide implements Endpoint {
        @Override
        public Reply post(String authorization, byte[] body, String remote) {
            Envelope e = masterCodec.decode(body, remote);
            if (!e.sender().equals(TOKENS.verify(Tokens.bearer(authorization)))) {
                return ack(masterCodec, MASTER, 401, Ack.refused(e.sequence(), List.of(Problem.of("fake master", "token", "refused"))));
            }
            synchronized (FakeCluster.this) {
                jobMaster = e.sender().id(); // whose plans the passes it hands out authorise
                jobMasterIncarnation = e.incarnation();
            }
            return ack(masterCodec, MASTER, 200, request(e.sequence(), (Request) e.message()));
        }

        @Override
        public CompletableFuture<Reply> poll(String authorization, long after, long waitMillis, String remote) {
            if (TOKENS.verify(Tokens.bearer(authorization)) == null) {
                return CompletableFuture.completedFuture(ack(masterCodec, MASTER, 401,
                        Ack.refused(0, List.of(Problem.of("fake master", "token", "refused")))));
            }
            return CompletableFuture.completedFuture(next(after, waitMillis));
        }
    }

    // --- agents -------------------------------------------------------------------------------

    private final class AgentSide implements Endpoint {
        private final String node;
        private final Sender self;

        AgentSide(String node) {
            this.node = node;
            this.self = new Sender(Role.AGENT, node);
        }

        @Override
        public Reply post(String authorization, byte[] body, String remote) {
            Envelope e = agentCodec.decode(body, remote);
            granary.protocol.link.PlanPass.Claims pass = granary.protocol.link.PlanPass.verify(TOKENS.agentKey(node), Tokens.bearer(authorization));
            if (pass == null || !pass.node().equals(node) || !pass.jobMaster().equals(e.sender().id())
                    || pass.incarnation() != e.incarnation()) {
                return ack(agentCodec, self, 401, Ack.refused(e.sequence(), List.of(Problem.of("fake agent", "token", "refused"))));
            }
            for (Plan.Launch l : ((Plan) e.message()).launches()) {
                synchronized (FakeCluster.this) {
                    launches.add(node + ":" + l.slot());
                    mostRunning = Math.max(mostRunning, ++running);
                }
                runner.execute(() -> exited(l.unit(), node, l.slot(), run(l)));
            }
            return ack(agentCodec, self, 200, Ack.applied(e.sequence()));
        }

        @Override
        public CompletableFuture<Reply> poll(String authorization, long after, long waitMillis, String remote) {
            return CompletableFuture.completedFuture(new Reply(404, new byte[0]));
        }
    }

    /** Runs one launch for real, at most 20 s; its exit code (137 when killed). */
    private int run(Plan.Launch l) {
        Process p = null;
        try {
            ProcessBuilder b = new ProcessBuilder(l.command()).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD);
            b.environment().putAll(l.environment());
            if (!l.workingDirectory().isEmpty()) {
                b.directory(new java.io.File(l.workingDirectory())); // empty: the worker's own directory, here the test's
            }
            p = b.start();
            processes.add(p);
            return p.waitFor(20, TimeUnit.SECONDS) ? p.exitValue() : 137;
        } catch (IOException ex) {
            return 127;
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            return 137;
        } finally {
            if (p != null) {
                p.destroyForcibly();
                processes.remove(p);
            }
        }
    }

    private static Reply ack(WireCodec codec, Sender from, int status, Message ack) {
        return new Reply(status, codec.encode(Envelope.of(from, 1, 0, ack)));
    }

    @Override
    public void close() {
        processes.forEach(Process::destroyForcibly);
        runner.shutdownNow();
        late.shutdownNow();
        master.close();
        agents.values().forEach(JdkHttpServer::close);
    }
}

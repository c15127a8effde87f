package granary.conformance;

import granary.api.model.JobSpec;
import granary.api.model.Resources;
import granary.api.model.UnitId;
import granary.api.model.UnitKind;
import granary.api.model.UnitSpec;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The 17 failover and timeout cases of docs/recovery.md ("The 17 cases"), each on the same cluster:
 * four agents of eight slots, job master {@code jm1} with an online service of 4 slots and a batch
 * of 12 tasks, job master {@code jm2} (which checkpoints its hints) with an online service of 3
 * slots and a batch of 8 tasks, job master {@code jm3} with a one-slot online service (on one node
 * only: when that node and jm3 are both away through a master failover, nobody else knows of it). A case injects its faults into the running cluster; then the world
 * settles, the batches finish, and {@link #check} reports what went wrong.
 */
public final class Cases {

    static final long TASK_MILLIS = 3_000;

    private Cases() {
    }

    /** The standard cluster, running and granted. */
    public static World cluster(long seed) {
        World w = new World(seed, World.Settings.defaults());
        Resources node = Resources.of(800, 8_192);
        for (int i = 1; i <= 4; i++) {
            w.addAgent("n" + i, node);
        }
        w.addJobMaster("jm1", false, true, TASK_MILLIS,
                job("svc1", "web", 4, UnitKind.ONLINE), job("batch1", "map", 12, UnitKind.OFFLINE));
        w.addJobMaster("jm2", true, true, TASK_MILLIS,
                job("svc2", "api", 3, UnitKind.ONLINE), job("batch2", "reduce", 8, UnitKind.OFFLINE));
        w.addJobMaster("jm3", false, TASK_MILLIS, job("svc3", "db", 1, UnitKind.ONLINE));
        w.run(2_000);
        return w;
    }

    static JobSpec job(String id, String unit, int slots, UnitKind kind) {
        return JobSpec.of(id, JobSpec.DEFAULT_GROUP, UnitSpec.builder(unit).slot(100, 1_024).desired(slots).kind(kind).build());
    }

    /** The agent running the most online workers of {@code jobMaster}'s service (the one to hurt). */
    static String busiest(World w, String service) {
        String best = "n1";
        int most = -1;
        for (SimAgent a : w.agents.values()) {
            int n = (int) a.workers.stream().filter(x -> x.online() && x.unit().job().equals(service)).count();
            if (n > most) {
                most = n;
                best = a.node;
            }
        }
        return best;
    }

    /** After the window closed while {@code node} was away: its online slots of {@code service} are kept, not granted again elsewhere. */
    static void expectKept(World w, String node, String service, String unit, int desired) {
        UnitId id = new UnitId(service, unit);
        Map<String, Integer> held = w.engineHoldings(id);
        int elsewhere = held.values().stream().mapToInt(Integer::intValue).sum();
        int away = (int) w.agents.get(node).workers.stream().filter(x -> x.unit().equals(id)).count();
        if (elsewhere + away > desired) {
            w.violation("while " + node + " was away the master granted " + id + " " + elsewhere + " slots elsewhere on top of the "
                    + away + " running there: more than the " + desired + " it wants");
        }
    }

    public static List<Case> all() {
        List<Case> c = new ArrayList<>();
        c.add(new Case("1", "M failover", "master restarts empty", World::restartMaster));
        c.add(new Case("2", "AM failover", "jm1 restarts (memory lost)", w -> w.restartJobMaster("jm1")));
        c.add(new Case("3", "AM timeout", "jm1 (restartable) unreachable 12 s (timeout 8 s): the master starts it again",
                w -> {
                    w.cut("jm1", 12_000);
                    w.run(8_000);
                    if (w.launches("jm1") != 0) {
                        w.violation("case 3: the master started jm1 again within its timeout");
                    }
                    w.run(4_500);
                    if (w.launches("jm1") != 1) {
                        w.violation("case 3: after its timeout jm1 was started again " + w.launches("jm1") + " times, not once");
                    }
                    if (w.fencedJobMasters < 1) {
                        w.violation("case 3: jm1's old incarnation, back after its cut, was not refused as fenced");
                    }
                }));
        c.add(new Case("4", "A failover", "busiest agent restarts (checkpoint kept, workers kept)",
                w -> w.restartAgent(busiest(w, "svc1"))));
        c.add(new Case("5", "A timeout", "busiest agent unreachable 7 s (timeout 5 s)",
                w -> w.cut(busiest(w, "svc1"), 7_000)));
        c.add(new Case("6", "AM failover + A failover", "jm1 and an agent restart",
                w -> {
                    w.restartJobMaster("jm1");
                    w.restartAgent(busiest(w, "svc1"));
                }));
        c.add(new Case("7", "AM failover + A timeout", "jm1 restarts, an agent unreachable 7 s",
                w -> {
                    w.restartJobMaster("jm1");
                    w.cut(busiest(w, "svc1"), 7_000);
                }));
        c.add(new Case("8", "AM timeout + A failover", "jm1 unreachable 10 s, an agent restarts",
                w -> {
                    w.cut("jm1", 10_000);
                    w.restartAgent(busiest(w, "svc1"));
                }));
        c.add(new Case("9", "AM timeout + A timeout", "jm1 unreachable 10 s, an agent 7 s",
                w -> {
                    w.cut("jm1", 10_000);
                    w.cut(busiest(w, "svc1"), 7_000);
                }));
        c.add(new Case("10", "M failover + AM failover", "master and jm1 restart",
                w -> {
                    w.restartMaster();
                    w.restartJobMaster("jm1");
                }));
        c.add(new Case("11", "M failover + AM timeout", "master restarts while jm1 is unreachable 12 s (past the 6 s window)",
                w -> {
                    w.cut("jm1", 12_000);
                    w.restartMaster();
                    w.run(9_000);
                    if (w.engineJob("svc1") == null) {
                        w.violation("case 11: after the window the master holds no mock of jm1's job svc1");
                    }
                    int held = w.engineHoldings(new UnitId("svc1", "web")).values().stream().mapToInt(Integer::intValue).sum();
                    if (held != 4) {
                        w.violation("case 11: the mock of svc1/web holds " + held + " slots, not the 4 capped");
                    }
                }));
        c.add(new Case("12", "M failover + A restart", "master and an agent restart",
                w -> {
                    w.restartMaster();
                    w.restartAgent(busiest(w, "svc1"));
                }));
        c.add(new Case("13", "M failover + A timeout", "master restarts while an agent is unreachable 9 s",
                w -> {
                    String n = busiest(w, "svc1");
                    w.cut(n, 9_000);
                    w.restartMaster();
                    w.run(7_500);
                    expectKept(w, n, "svc1", "web", 4);
                }));
        c.add(new Case("14", "M + AM + A failover", "master, jm1 and an agent restart",
                w -> {
                    w.restartMaster();
                    w.restartJobMaster("jm1");
                    w.restartAgent(busiest(w, "svc1"));
                }));
        c.add(new Case("15", "M failover + AM failover + A timeout", "master and jm2 (which checkpoints hints) restart, an agent unreachable 9 s",
                w -> {
                    String n = busiest(w, "svc2");
                    w.cut(n, 9_000);
                    w.restartMaster();
                    w.restartJobMaster("jm2");
                    w.run(7_500);
                    expectKept(w, n, "svc2", "api", 3);
                }));
        c.add(new Case("16", "M failover + AM timeout + A failover", "master restarts, jm1 unreachable 12 s, an agent restarts",
                w -> {
                    w.cut("jm1", 12_000);
                    w.restartMaster();
                    w.restartAgent(busiest(w, "svc1"));
                }));
        c.add(new Case("17a", "M failover + AM timeout + A timeout, AM back first", "master restarts; jm1 away 10 s, an agent 14 s",
                w -> {
                    String n = busiest(w, "svc1");
                    w.cut("jm1", 10_000);
                    w.cut(n, 14_000);
                    w.restartMaster();
                }));
        c.add(new Case("17b", "M failover + AM timeout + A timeout, A back first", "master restarts; an agent away 10 s, jm1 14 s",
                w -> {
                    String n = busiest(w, "svc1");
                    w.cut(n, 10_000);
                    w.cut("jm1", 14_000);
                    w.restartMaster();
                }));
        c.add(new Case("17c", "M failover + AM timeout + A timeout, A back first, only it knows the job",
                "master restarts; jm3 away 16 s; the one agent running jm3's service away 10 s",
                w -> {
                    String n = busiest(w, "svc3");
                    w.cut(n, 10_000);
                    w.cut("jm3", 16_000);
                    w.restartMaster();
                    w.run(13_000);
                    if (w.engineHoldings(new UnitId("svc3", "db")).getOrDefault(n, 0) != 1) {
                        w.violation("case 17c: after " + n + " returned, its caps of absent jm3 hold no mock of svc3/db there");
                    }
                }));
        return c;
    }

    /** What running a case (or a schedule) found. */
    public record Outcome(String id, String title, String injected, List<String> violations, List<String> log,
                          Map<String, Long> counters) {
        public boolean passed() {
            return violations.isEmpty();
        }
    }

    /** Runs case {@code c} on the standard cluster with {@code seed}. */
    public static Outcome run(Case c, long seed) {
        try (World w = cluster(seed)) {
            Map<String, List<String>> online = w.onlineWorkers();
            c.inject().accept(w);
            return finish(w, c.id(), c.title(), c.injected(), online);
        }
    }

    /** Settles the world, lets the batches finish and checks the end state against {@code onlineBefore}. */
    static Outcome finish(World w, String id, String title, String injected, Map<String, List<String>> onlineBefore) {
        List<String> problems = new ArrayList<>();
        if (!w.settle(60_000)) {
            problems.add("the master and the peers still disagree after 60 s without faults: " + Invariants.agreement(w));
        }
        if (!w.finish(120_000)) {
            problems.add("the batches did not finish within 120 s: " + w.jobMasters.values().stream().map(j -> j.id() + " " + j.remaining).toList());
        } else if (!w.settle(30_000)) {
            problems.add("after the batches: the master and the peers disagree: " + Invariants.agreement(w));
        }
        Map<String, List<String>> after = w.onlineWorkers();
        onlineBefore.forEach((node, ws) -> {
            for (String worker : ws) {
                if (!after.getOrDefault(node, List.of()).contains(worker) && !w.stoppedOnRequest.contains(node + "/" + worker)) {
                    problems.add("online worker " + worker + " on " + node + " no longer runs");
                }
            }
        });
        List<String> all = new ArrayList<>(w.violations());
        all.addAll(problems);
        return new Outcome(id, title, injected, all, w.log(), w.counters());
    }
}

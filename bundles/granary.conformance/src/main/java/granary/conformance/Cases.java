package granary.conformance;

import granary.api.model.Resources;
import granary.api.model.UnitId;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * The 17 failover and timeout cases of docs/recovery.md ("The 17 cases"), and the real failures
 * they must survive (a paused agent, an agent restarted while the master is away, a torn
 * checkpoint, a master with another secret, a gap with no leader), each on the same cluster: four
 * agents of sixteen slots; job master {@code jm1} (restartable, keeps its state) running job j1, a
 * service of 4 slots and a batch of 200 tasks of 6 s; {@code jm2} (the same) running j2, a service of
 * 3 and a batch of 60 (the batches run through the faults); {@code jm3}, with no state and not restartable, running j3, a one-slot service and
 * one long task (on one node only: when that node and jm3 are both away through a master
 * failover, nobody else knows of it). A case injects its faults into the running cluster; then the
 * world settles, the batches finish, and {@link #finish} reports what went wrong.
 */
public final class Cases {

    static final long TASK_MILLIS = 6_000;

    private Cases() {
    }

    /** The standard cluster, running, its services started. */
    public static World cluster(long seed) {
        World w = new World(seed, World.Settings.defaults());
        Resources node = Resources.of(1_600, 16_384);
        for (int i = 1; i <= 4; i++) {
            w.addAgent("n" + i, node);
        }
        // in this order, so that the services find room before the batches take the rest (FIFO)
        w.addJobMaster(new JobMasterProcess.Spec("jm3", "j3", 1, 1, 45_000, false, false));
        w.addJobMaster(new JobMasterProcess.Spec("jm2", "j2", 60, 3, TASK_MILLIS, true, true));
        w.addJobMaster(new JobMasterProcess.Spec("jm1", "j1", 200, 4, TASK_MILLIS, true, true));
        for (int i = 0; i < 60 && !servicesUp(w); i++) {
            w.run(500);
        }
        return w;
    }

    private static boolean servicesUp(World w) {
        Map<String, List<Long>> s = Invariants.services(w);
        return s.getOrDefault("j1", List.of()).size() == 4 && s.getOrDefault("j2", List.of()).size() == 3
                && s.getOrDefault("j3", List.of()).size() == 1;
    }

    /** The node running the most service workers of {@code job} (the one to hurt). */
    static String busiest(World w, String job) {
        String best = "n1";
        int most = -1;
        for (SimNode n : w.nodes.values()) {
            int c = (int) n.os.alive().stream().filter(p -> p.record.online() && p.record.unit().job().equals(job)).count();
            if (c > most) {
                most = c;
                best = n.name;
            }
        }
        return best;
    }

    /** After the window closed while {@code node} was away: its service slots of {@code job} are kept, not granted again elsewhere. */
    static void expectKept(World w, String node, String job, int desired) {
        UnitId id = new UnitId(job, "service");
        int elsewhere = w.engineHoldings(id).entrySet().stream().filter(e -> !e.getKey().equals(node))
                .mapToInt(Map.Entry::getValue).sum();
        int away = (int) w.nodes.get(node).os.alive().stream().filter(p -> p.record.unit().equals(id)).count();
        if (elsewhere + away > desired) {
            w.violation("while " + node + " was away the master granted " + id + " " + elsewhere + " slots elsewhere on top of the "
                    + away + " running there: more than the " + desired + " it wants");
        }
    }

    private static Case c(String id, String title, String injected, Consumer<World> inject) {
        return new Case(id, title, injected, inject);
    }

    public static List<Case> all() {
        List<Case> c = new ArrayList<>();
        c.add(c("1", "M failover", "master restarts empty", World::restartMaster));
        c.add(c("2", "AM failover", "jm1 restarts (kill -9, its state kept)", w -> w.restartJobMaster("jm1")));
        c.add(c("3", "AM timeout", "jm1 (restartable) unreachable 12 s (timeout 8 s): the master starts it again",
                w -> {
                    w.cut("jm1", 12_000);
                    w.run(8_000);
                    if (w.jobMasterLaunches != 0) {
                        w.violation("case 3: the master started jm1 again within its timeout");
                    }
                    w.run(4_500);
                    if (w.jobMasterLaunches != 1) {
                        w.violation("case 3: after its timeout jm1 was started again " + w.jobMasterLaunches + " times, not once");
                    }
                    w.run(3_000);
                    if (w.fencedJobMasters < 1) {
                        w.violation("case 3: jm1's old incarnation, back after its cut, was not fenced");
                    }
                }));
        c.add(c("4", "A failover", "busiest agent restarts (kill -9; checkpoint and workers kept)",
                w -> w.restartAgent(busiest(w, "j1"))));
        c.add(c("5", "A timeout", "busiest agent unreachable 7 s (timeout 5 s)", w -> w.cut(busiest(w, "j1"), 7_000)));
        c.add(c("5p", "A timeout by a pause", "busiest agent paused (SIGSTOP) 7 s, past its timeout, then resumed",
                w -> w.pause(busiest(w, "j1"), 7_000)));
        c.add(c("6", "AM failover + A failover", "jm1 and an agent restart", w -> {
            w.restartJobMaster("jm1");
            w.restartAgent(busiest(w, "j1"));
        }));
        c.add(c("7", "AM failover + A timeout", "jm1 restarts, an agent unreachable 7 s", w -> {
            w.restartJobMaster("jm1");
            w.cut(busiest(w, "j1"), 7_000);
        }));
        c.add(c("8", "AM timeout + A failover", "jm1 unreachable 10 s, an agent restarts", w -> {
            w.cut("jm1", 10_000);
            w.restartAgent(busiest(w, "j1"));
        }));
        c.add(c("9", "AM timeout + A timeout", "jm1 unreachable 10 s, an agent 7 s", w -> {
            w.cut("jm1", 10_000);
            w.cut(busiest(w, "j1"), 7_000);
        }));
        c.add(c("10", "M failover + AM failover", "master and jm1 restart", w -> {
            w.restartMaster();
            w.restartJobMaster("jm1");
        }));
        c.add(c("11", "M failover + AM timeout", "master restarts while jm1 is unreachable 12 s (past the 6 s window)", w -> {
            w.cut("jm1", 12_000);
            w.restartMaster();
            w.run(7_500);
            if (w.engineJob("j1") == null) {
                w.violation("case 11: after the window the master holds no mock of jm1's job j1");
            }
            int service = w.engineHoldings(new UnitId("j1", "service")).values().stream().mapToInt(Integer::intValue).sum();
            if (service != 4) {
                w.violation("case 11: the mock of j1/service holds " + service + " slots, not the 4 capped");
            }
            int tasks = w.engineHoldings(new UnitId("j1", "tasks")).values().stream().mapToInt(Integer::intValue).sum();
            if (tasks != 0) {
                w.violation("case 11: the mock holds " + tasks + " offline slots of j1/tasks: a job master that did not report has its offline grants dropped");
            }
        }));
        c.add(c("12", "M failover + A restart", "master and an agent restart", w -> {
            w.restartMaster();
            w.restartAgent(busiest(w, "j1"));
        }));
        c.add(c("12o", "M away + A restart", "master down 12 s; the busiest agent restarted by its supervisor meanwhile", w -> {
            w.masterOutage(12_000);
            w.run(2_000);
            w.restartAgent(busiest(w, "j1"));
        }));
        c.add(c("12t", "M failover + A restart, torn checkpoint", "master and the busiest agent restart; its checkpoint is torn", w -> {
            String n = busiest(w, "j1");
            w.damageCheckpoint(n, "tear");
            w.restartMaster();
            w.restartAgent(n);
        }));
        c.add(c("12s", "M with another secret + A restart", "master restarts with another secret for 10 s (401s); an agent restarts meanwhile", w -> {
            w.masterWithOtherSecret(10_000);
            w.run(2_000);
            w.restartAgent(busiest(w, "j1"));
        }));
        c.add(c("12h", "no leader + A restart", "the leader dies, no leader for 9 s (503s); an agent restarts meanwhile", w -> {
            w.takeover(9_000);
            w.run(2_000);
            w.restartAgent(busiest(w, "j1"));
        }));
        c.add(c("13", "M failover + A timeout", "master restarts while an agent is unreachable 9 s", w -> {
            String n = busiest(w, "j1");
            w.cut(n, 9_000);
            w.restartMaster();
            w.run(7_500);
            expectKept(w, n, "j1", 4);
        }));
        c.add(c("13p", "M failover + A timeout by a pause", "an agent paused (SIGSTOP) 9 s; the master restarts meanwhile", w -> {
            String n = busiest(w, "j1");
            w.pause(n, 9_000);
            w.restartMaster();
            w.run(7_500);
            expectKept(w, n, "j1", 4);
        }));
        c.add(c("14", "M + AM + A failover", "master, jm1 and an agent restart", w -> {
            w.restartMaster();
            w.restartJobMaster("jm1");
            w.restartAgent(busiest(w, "j1"));
        }));
        c.add(c("15", "M failover + AM failover + A timeout", "master and jm2 (which keeps its hints) restart, an agent unreachable 9 s", w -> {
            String n = busiest(w, "j2");
            w.cut(n, 9_000);
            w.restartMaster();
            w.restartJobMaster("jm2");
            w.run(7_500);
            expectKept(w, n, "j2", 3);
        }));
        c.add(c("16", "M failover + AM timeout + A failover", "master restarts, jm1 unreachable 12 s, an agent restarts", w -> {
            w.cut("jm1", 12_000);
            w.restartMaster();
            w.restartAgent(busiest(w, "j1"));
        }));
        c.add(c("17a", "M failover + AM timeout + A timeout, AM back first", "master restarts; jm1 away 10 s, an agent 14 s", w -> {
            String n = busiest(w, "j1");
            w.cut("jm1", 10_000);
            w.cut(n, 14_000);
            w.restartMaster();
        }));
        c.add(c("17b", "M failover + AM timeout + A timeout, A back first", "master restarts; an agent away 10 s, jm1 14 s", w -> {
            String n = busiest(w, "j1");
            w.cut(n, 10_000);
            w.cut("jm1", 14_000);
            w.restartMaster();
        }));
        c.add(c("17c", "M failover + AM timeout + A timeout, A back first, only it knows the job",
                "master restarts; jm3 away 16 s; the one agent running jm3's service away 10 s", w -> {
                    String n = busiest(w, "j3");
                    w.cut(n, 10_000);
                    w.cut("jm3", 16_000);
                    w.restartMaster();
                    w.run(13_000);
                    if (w.engineHoldings(new UnitId("j3", "service")).getOrDefault(n, 0) != 1) {
                        w.violation("case 17c: after " + n + " returned, its caps of absent jm3 hold no mock of j3/service there");
                    }
                }));
        c.add(c("O", "M away past the verify period", "master down 15 s while batches run: no task runs twice", w -> w.masterOutage(15_000)));
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
            Map<String, List<Long>> services = Invariants.services(w);
            c.inject().accept(w);
            return finish(w, c.id(), c.title(), c.injected(), services);
        }
    }

    /**
     * Settles the world, checks that the master and the peers agree and that no worker runs without
     * a grant, that every service worker that ran before the faults still runs (the same process),
     * lets the batches finish, and checks that no worker outlived its job.
     */
    static Outcome finish(World w, String id, String title, String injected, Map<String, List<Long>> servicesBefore) {
        List<String> problems = new ArrayList<>();
        if (!w.settle(60_000)) {
            problems.add("the master and the peers still disagree after 60 s without faults: " + Invariants.agreement(w));
            problems.addAll(Invariants.workers(w));
        } else {
            servicesBefore.forEach((job, pids) -> {
                for (long pid : pids) {
                    SimOs.Proc p = w.proc(pid);
                    long ended = w.jobEnded.getOrDefault(job, Long.MAX_VALUE);
                    // it may stop once its job ended; a disk fault on its node may cost it its identity
                    if (p != null && !p.alive && p.ended < ended && !w.nodes.get(p.node()).damaged) {
                        problems.add("service worker pid " + pid + " of job " + job + " on " + p.node() + " stopped at t="
                                + w.rel(p.ended) + "ms with code " + p.code + ", before its job ended");
                    }
                }
            });
        }
        if (!w.finish(150_000)) {
            problems.add("the batches did not finish within 150 s: " + w.specs.keySet().stream().filter(j -> !w.finished.containsKey(j))
                    .map(j -> j + " " + (w.current(j) == null ? "-" : w.current(j).jm.status()) + " " + w.unitState(j)).toList());
        } else {
            w.finished.forEach((jm, code) -> {
                if (code != 0) {
                    problems.add("job master " + jm + " ended with " + code + ": tasks failed");
                }
            });
            w.run(10_000);
            problems.addAll(Invariants.outlived(w));
        }
        List<String> all = new ArrayList<>(w.violations());
        all.addAll(problems);
        List<String> log = new ArrayList<>(w.log());
        if (!all.isEmpty()) {
            log.add("--- the last lines the processes printed ---");
            List<String> t = w.trace();
            log.addAll(t.subList(Math.max(0, t.size() - (System.getProperty("granary.trace") != null ? t.size() : 400)), t.size()));
        }
        return new Outcome(id, title, injected, all, log, w.counters());
    }
}

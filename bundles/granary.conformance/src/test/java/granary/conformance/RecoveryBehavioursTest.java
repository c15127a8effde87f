package granary.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import granary.api.model.Resources;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;

/**
 * Single recovery behaviours end to end, on a small world of the shipped roles (docs/recovery.md):
 * what each role says (its trace) and where it stands afterwards, where a unit test would need a
 * stand-in for the other roles' own recovery.
 */
class RecoveryBehavioursTest {

    private static World world(JobMasterProcess.Spec spec) {
        World w = new World(11, World.Settings.defaults());
        w.addAgent("n1", Resources.of(800, 8_192));
        w.addAgent("n2", Resources.of(800, 8_192));
        w.addJobMaster(spec);
        for (int i = 0; i < 40 && Invariants.services(w).getOrDefault(spec.job(), List.of()).size() < spec.online(); i++) {
            w.run(500);
        }
        assertEquals(spec.online(), Invariants.services(w).getOrDefault(spec.job(), List.of()).size(), "services up: " + w.log());
        return w;
    }

    /** The index of the first trace line of {@code who} (a prefix of the process's name) that {@code line} matches, or -1. */
    private static int first(List<String> trace, String who, Predicate<String> line) {
        for (int i = 0; i < trace.size(); i++) {
            String t = trace.get(i);
            int at = t.indexOf(' ' + who);
            if (at >= 0 && line.test(t.substring(t.indexOf(": ", at) + 2))) {
                return i;
            }
        }
        return -1;
    }

    /**
     * An agent cut off past its timeout is declared lost: when it is heard again its heartbeat is
     * refused, it registers again at once (a new epoch) and keeps its workers; its job master is told
     * the node is lost and then back, and keeps its service workers there (docs/recovery.md, "A silent
     * node", "The agent rides out its master").
     */
    @Test
    void anAgentCutOffPastItsTimeoutRegistersAgainKeepingItsWorkersAndItsJobMasterHearsLostThenBack() {
        try (World w = world(new JobMasterProcess.Spec("jm1", "j1", 200, 2, 3_000, false, true))) {
            String node = Cases.busiest(w, "j1");
            Map<String, List<Long>> before = Invariants.services(w);
            w.cut(node, 8_000);
            w.run(20_000); // the cut ends at 8 s; the agent's link tries again within its backoff (at most 5 s)

            List<String> trace = w.trace();
            int refused = first(trace, "agent " + node, l -> l.startsWith("heartbeat-refused") && l.contains("was declared lost"));
            int lost = first(trace, "agent " + node, l -> l.startsWith("declared-lost epoch="));
            assertTrue(refused >= 0 && lost > refused, "the agent learns it was declared lost from a refused heartbeat: " + trace);
            int again = first(trace.subList(lost, trace.size()), "agent " + node, l -> l.startsWith("registered node=" + node));
            assertTrue(again >= 0, "and registers again: " + trace.subList(lost, trace.size()));
            int toldLost = first(trace, "job master jm1", l -> l.equals("node node=" + node + " state=lost"));
            int toldBack = first(trace, "job master jm1", l -> l.equals("node node=" + node + " state=back"));
            assertTrue(toldLost >= 0 && toldBack > toldLost, "the job master hears lost, then back: " + trace);
            assertEquals(before, Invariants.services(w), "every service worker runs on, the same processes");

            assertTrue(w.settle(30_000), "settled: " + Invariants.agreement(w));
            assertEquals(List.of(), w.violations());
        }
    }

    /**
     * A restartable job master frozen (SIGSTOP) past its timeout is started again by the master; when
     * the frozen one thaws it learns it was replaced (fenced by the master, or superseded in its
     * progress) and exits with 7, and its successor finishes the batch (docs/recovery.md,
     * "Restarting a lost job master", "Ending a job").
     */
    @Test
    void aRestartableJobMasterFrozenPastItsTimeoutIsStartedAgainAndExitsAsFencedWhenItThaws() {
        try (World w = world(new JobMasterProcess.Spec("jm1", "j1", 20, 1, 3_000, true, true))) {
            JobMasterProcess frozen = w.current("jm1");
            w.pause("jm1", 14_000);
            w.run(16_000);

            assertEquals(1, w.jobMasterLaunches, "started again once, by the master: " + w.log());
            assertTrue(frozen.exited, "the thawed one ended: " + w.log());
            assertEquals(7, frozen.exitCode, w.log().toString());
            assertTrue(w.finish(120_000), "the batch finishes: " + w.log());
            JobMasterProcess successor = w.current("jm1");
            assertTrue(successor != frozen && successor.exited && successor.exitCode == 0, "its successor finished it: " + w.log());
            assertEquals(0, (int) w.finished.get("jm1"));
            assertEquals(List.of(), w.violations());
        }
    }
}

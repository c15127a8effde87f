package granary.recovery;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import granary.api.model.JobSpec;
import granary.api.model.NodeSpec;
import granary.api.model.Resources;
import granary.api.model.UnitId;
import granary.api.model.UnitKind;
import granary.api.model.UnitSpec;
import granary.protocol.Cap;
import granary.protocol.Request;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/** The rules of docs/recovery.md, "Rebuilding" and "Peers that return late", on the recovery engine alone. */
class RecoveryWindowTest {

    static final Resources SLOT = Resources.of(100, 100);
    static final UnitId WEB = new UnitId("svc", "web");
    static final UnitId MAP = new UnitId("batch", "map");

    static NodeSpec node(String name, int slots) {
        return new NodeSpec(name, "r1", SLOT.times(slots));
    }

    static Cap.Grant cap(String jm, UnitId unit, int slots, boolean online) {
        return new Cap.Grant(jm, unit, slots, "key", SLOT, online);
    }

    static JobSpec job(String id, String unit, int desired, UnitKind kind) {
        return JobSpec.of(id, JobSpec.DEFAULT_GROUP, UnitSpec.builder(unit).slot(SLOT).desired(desired).kind(kind).build());
    }

    final RecoveryWindow w = new RecoveryWindow(new RecoveryOptions(Duration.ofSeconds(60), Duration.ofSeconds(2)), 0);

    @Test
    void capsWinOverHoldingsAndHoldingsKeepOnlineSlotsOfAgentsThatDidNotReport() {
        w.agent(new AgentReport(node("n1", 4), List.of(cap("jm", WEB, 1, true), cap("jm", MAP, 1, false))), 10);
        w.jobMaster(new JobMasterReport("jm", List.of(job("svc", "web", 2, UnitKind.ONLINE), job("batch", "map", 4, UnitKind.OFFLINE)),
                List.of(new Request.Holding(WEB, "n1", 1), new Request.Holding(WEB, "n2", 1),
                        new Request.Holding(MAP, "n1", 3), new Request.Holding(MAP, "n2", 2))), 20);
        assertEquals(Set.of("n2"), w.missingAgents());
        Rebuild b = w.close();
        assertEquals(List.of(new Adoption(WEB, "n1", 1, true), new Adoption(MAP, "n1", 1, false)), b.adoptions());
        assertEquals(List.of(new Adoption(WEB, "n2", 1, true)), b.awaiting(), "online slots of the absent agent are kept");
        // the service asks the engine for 1 (1 more is kept on n2), the batch for all 4
        JobSpec svc = b.jobs().stream().filter(j -> j.id().equals("svc")).findFirst().orElseThrow();
        assertEquals(1, svc.units().get(0).desired());
        assertTrue(b.dropped().stream().anyMatch(d -> d.unit().equals(MAP) && d.node().equals("n1") && d.slots() == 2
                && d.reason().contains("the agent's caps win")), b.dropped()::toString);
        assertTrue(b.dropped().stream().anyMatch(d -> d.unit().equals(MAP) && d.node().equals("n2") && !d.online()
                && d.reason().contains("did not report")), b.dropped()::toString);
    }

    @Test
    void capsOfAJobMasterThatDidNotReportBecomeAMockThatWantsWhatItHolds() {
        w.agent(new AgentReport(node("n1", 4), List.of(cap("gone", WEB, 2, true))), 10);
        w.agent(new AgentReport(node("n2", 4), List.of(cap("gone", WEB, 1, true))), 10);
        assertEquals(Set.of("gone"), w.missingJobMasters());
        Rebuild b = w.close();
        assertEquals(Set.of("svc"), b.mocks());
        assertEquals("gone", b.owners().get("svc"));
        assertEquals(3, b.jobs().get(0).units().get(0).desired());
        assertEquals(UnitKind.ONLINE, b.jobs().get(0).units().get(0).kind());
        Recovered r = new Recovered(b);
        Recovered.Conversion c = r.convert(job("svc", "web", 5, UnitKind.ONLINE));
        assertEquals(5, c.desires().get(WEB), "the real request replaces the mock's desired count");
        assertFalse(r.isMock("svc"));
    }

    @Test
    void noNodeIsFilledBeyondWhatItReportsOnlineFirst() {
        w.agent(new AgentReport(node("n1", 2), List.of(cap("jm", MAP, 2, false), cap("jm", WEB, 1, true))), 10);
        w.jobMaster(new JobMasterReport("jm", List.of(job("svc", "web", 1, UnitKind.ONLINE), job("batch", "map", 5, UnitKind.OFFLINE)),
                List.of()), 10);
        Rebuild b = w.close();
        assertEquals(List.of(new Adoption(WEB, "n1", 1, true), new Adoption(MAP, "n1", 1, false)), b.adoptions());
        assertTrue(b.dropped().stream().anyMatch(d -> d.unit().equals(MAP) && d.slots() == 1 && d.reason().contains("room for only 1")));
    }

    @Test
    void adoptionsAreOnlineFirstThenByNodeThenByTheUnitsText() {
        // "a-b/x" reads before "a/x" ('-' < '/'), though job "a" sorts before job "a-b"
        UnitId ax = new UnitId("a", "x");
        UnitId abx = new UnitId("a-b", "x");
        UnitId ay = new UnitId("a", "y");
        w.agent(new AgentReport(node("n2", 8), List.of(cap("jm", ay, 1, false), cap("jm", ax, 1, false), cap("jm", WEB, 1, true))), 10);
        w.agent(new AgentReport(node("n1", 8), List.of(cap("jm", ax, 1, false), cap("jm", abx, 1, false))), 10);
        w.jobMaster(new JobMasterReport("jm", List.of(job("svc", "web", 1, UnitKind.ONLINE),
                JobSpec.of("a", JobSpec.DEFAULT_GROUP, UnitSpec.builder("x").slot(SLOT).desired(2).build(),
                        UnitSpec.builder("y").slot(SLOT).desired(1).build()),
                job("a-b", "x", 1, UnitKind.OFFLINE)), List.of()), 10);
        assertEquals(List.of(new Adoption(WEB, "n2", 1, true), new Adoption(abx, "n1", 1, false), new Adoption(ax, "n1", 1, false),
                new Adoption(ax, "n2", 1, false), new Adoption(ay, "n2", 1, false)), w.close().adoptions());
    }

    @Test
    void unitsCompareAsTheirTextWithoutMakingIt() {
        List<UnitId> ids = List.of(new UnitId("a", "x"), new UnitId("a-b", "x"), new UnitId("a", "x-1"), new UnitId("a", ""),
                new UnitId("ab", "x"), new UnitId("a0", "x"), new UnitId("", "a"), new UnitId("a", "b/c"), new UnitId("a/b", "c"),
                new UnitId("job-10", "map"), new UnitId("job-9", "map"), new UnitId("job-1", "map"), new UnitId("job-1", "reduce"));
        for (UnitId x : ids) {
            for (UnitId y : ids) {
                assertEquals(Integer.signum(x.toString().compareTo(y.toString())), Integer.signum(RecoveryWindow.asText(x, y)), x + " vs " + y);
            }
        }
    }

    @Test
    void theWindowClosesWhenItsTimeIsUpOrOnceEveryNamedPeerReportedAndTheSettleTimePassed() {
        assertFalse(w.due(59_999), "nobody reported yet: wait for the whole window");
        assertTrue(w.due(60_000));
        RecoveryWindow v = new RecoveryWindow(new RecoveryOptions(Duration.ofSeconds(60), Duration.ofSeconds(2)), 0);
        v.agent(new AgentReport(node("n1", 4), List.of(cap("jm", WEB, 1, true))), 1_000);
        assertFalse(v.due(10_000), "jm is named by a cap and has not reported");
        v.jobMaster(new JobMasterReport("jm", List.of(job("svc", "web", 1, UnitKind.ONLINE)), List.of()), 11_000);
        assertFalse(v.due(12_999), "settling");
        assertTrue(v.due(13_000));
    }

    @Test
    void aLateAgentKeepsItsOnlineCapsAndLosesItsOfflineOnes() {
        w.jobMaster(new JobMasterReport("jm", List.of(job("svc", "web", 2, UnitKind.ONLINE)),
                List.of(new Request.Holding(WEB, "n9", 1))), 10);
        Recovered r = new Recovered(w.close());
        assertEquals(1, r.reserved(WEB));
        Recovered.AgentReturn back = r.agentReturned("n9", List.of(cap("jm", WEB, 1, true), cap("jm", MAP, 2, false)),
                u -> u.equals(WEB) ? UnitKind.ONLINE : u.equals(MAP) ? UnitKind.OFFLINE : null);
        assertEquals(List.of(new Adoption(WEB, "n9", 1, true)), back.adopt());
        assertEquals(1, back.withdraw().size());
        assertEquals(0, r.reserved(WEB), "kept no more: adopted");
    }

    @Test
    void aJobWhoseSlotsAreAllOnAbsentNodesWaitsOutsideTheEngineForThem() {
        w.jobMaster(new JobMasterReport("jm", List.of(job("svc", "web", 1, UnitKind.ONLINE)),
                List.of(new Request.Holding(WEB, "n9", 1))), 10);
        Rebuild b = w.close();
        assertTrue(b.jobs().isEmpty(), "the engine takes no job that wants nothing");
        assertEquals("svc", b.deferred().get(0).id());
        Recovered r = new Recovered(b);
        Recovered.AgentReturn back = r.agentReturned("n9", List.of(cap("jm", WEB, 1, true)), u -> null, jm -> true, j -> false);
        assertEquals("svc", back.mocks().get(0).id());
        assertEquals(1, back.mocks().get(0).units().get(0).desired());
        assertEquals(List.of(new Adoption(WEB, "n9", 1, true)), back.mockGrants());
        assertFalse(r.isDeferred("svc"));
    }

    /**
     * Who is missing is kept as reports come (due() is asked after every message): over random
     * reports, reports sent again with other caps or holdings, it equals what the reports name.
     */
    @Test
    void theMissingPeersFollowEveryReportAndEveryReportSentAgain() {
        for (long seed = 1; seed <= 30; seed++) {
            Random rnd = new Random(seed);
            RecoveryWindow v = new RecoveryWindow(new RecoveryOptions(Duration.ofSeconds(60), Duration.ofSeconds(2)), 0);
            Map<String, AgentReport> agents = new HashMap<>();
            Map<String, JobMasterReport> jms = new HashMap<>();
            for (int step = 0; step < 60; step++) {
                long now = step * 100L;
                if (rnd.nextBoolean()) {
                    List<Cap.Grant> caps = new ArrayList<>();
                    for (int k = rnd.nextInt(4); k > 0; k--) {
                        caps.add(cap("jm" + rnd.nextInt(5), WEB, 1, rnd.nextBoolean()));
                    }
                    AgentReport a = new AgentReport(node("n" + rnd.nextInt(6), 4), caps);
                    agents.put(a.node().name(), a);
                    v.agent(a, now);
                } else {
                    List<Request.Holding> held = new ArrayList<>();
                    for (int k = rnd.nextInt(4); k > 0; k--) {
                        held.add(new Request.Holding(MAP, "n" + rnd.nextInt(6), 1));
                    }
                    JobMasterReport j = new JobMasterReport("jm" + rnd.nextInt(5), List.of(), held);
                    jms.put(j.id(), j);
                    v.jobMaster(j, now);
                }
                Set<String> missingAgents = new TreeSet<>();
                jms.values().forEach(j -> j.holdings().stream().map(Request.Holding::node)
                        .filter(n -> !agents.containsKey(n)).forEach(missingAgents::add));
                Set<String> missingJms = new TreeSet<>();
                agents.values().forEach(a -> a.caps().stream().map(Cap.Grant::jobMaster)
                        .filter(j -> !jms.containsKey(j)).forEach(missingJms::add));
                String at = "seed " + seed + " step " + step;
                assertEquals(missingAgents, v.missingAgents(), at);
                assertEquals(missingJms, v.missingJobMasters(), at);
                assertEquals(missingAgents.isEmpty() && missingJms.isEmpty(), v.due(now + 2_000), at + ": due once settled");
            }
        }
    }
}

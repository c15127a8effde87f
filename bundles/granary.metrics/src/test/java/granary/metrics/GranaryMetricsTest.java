package granary.metrics;

import static granary.testkit.Jobs.job;
import static granary.testkit.Jobs.slots;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.Function;

import granary.api.event.GrantReleased;
import granary.api.event.InputEvent;
import granary.api.event.JobSubmitted;
import granary.api.event.JobsSubmitted;
import granary.api.event.NodeAdded;
import granary.api.event.NodeRemoved;
import granary.api.event.OutputEvent;
import granary.api.event.PolicyActivated;
import granary.api.event.PolicyFailed;
import granary.api.event.Receipt;
import granary.api.event.Scheduler;
import granary.api.model.UnitId;
import granary.api.model.UnitKind;
import granary.api.spi.EngineView;
import granary.api.spi.Policy;
import granary.api.spi.PolicyDeclaration;
import granary.master.DeliveryStats;
import granary.master.MasterMonitor;
import granary.master.PeerStatus;
import granary.master.RecoveryState;
import granary.policy.fifo.FifoPolicy;
import granary.policy.quota.QuotaProvider;
import granary.testkit.Clusters;
import granary.testkit.LiveEngine;
import granary.testkit.TestFiles;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The metrics against a real engine behind a real event loop: submit, scrape, parse, check. */
class GranaryMetricsTest {

    private LiveEngine live;
    private GranaryMetrics metrics;

    @AfterEach
    void close() {
        if (metrics != null) {
            metrics.close();
        }
        if (live != null) {
            live.close();
        }
    }

    private GranaryMetrics metricsOf(LiveEngine l, List<PolicyDeclaration> declarations, MasterMonitor master) {
        return new GranaryMetrics(l.loop, l.loop, () -> declarations, () -> master, Duration.ofSeconds(5), false);
    }

    private Exposition scrape() throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        metrics.write(out);
        return Exposition.parse(out.toString(StandardCharsets.UTF_8));
    }

    @Test
    void grantsWaitingWorkAndEventsOfARealEngineAppearInTheScrape() throws Exception {
        live = new LiveEngine(List.of("fifo"), List.of("fifo"), new FifoPolicy());
        metrics = metricsOf(live, List.of(), null);
        Clusters.slotNodes(2, 4).forEach(n -> live.submit(new NodeAdded(n)));
        live.submit(new JobSubmitted(job("svc", "web", slots(1, UnitKind.ONLINE))));
        live.submit(new JobSubmitted(job("j1", "batch", slots(10))));

        Exposition e = scrape();
        // 8 slots on two nodes: the service's 1 (submitted first), then 7 of the batch unit's 10
        assertEquals(8, e.get("granary_used_slots"));
        assertEquals(8, e.get("granary_granted_slots_total", "kind", "offline") + e.get("granary_granted_slots_total", "kind", "online"));
        assertEquals(1, e.get("granary_granted_slots_total", "kind", "online"));
        double grants = e.get("granary_grants_total", "kind", "offline") + e.get("granary_grants_total", "kind", "online");
        assertTrue(grants >= 3, "one grant per unit and node at least: " + grants);
        assertEquals(grants, e.get("granary_engine_decisions_total"), "the engine's own count agrees");
        assertEquals(2, e.get("granary_nodes"));
        assertEquals(2, e.get("granary_jobs"));
        assertEquals(1, e.get("granary_waiting_units"));
        assertEquals(3, e.get("granary_waiting_slots"));
        assertEquals(3, e.get("granary_group_waiting_slots", "group", "batch"));
        assertEquals(1, e.get("granary_group_waiting_units", "group", "batch"));
        assertEquals(0, e.get("granary_group_waiting_slots", "group", "web"));
        assertEquals(1, e.get("granary_group_used_slots", "group", "web"));
        assertEquals(7, e.get("granary_group_used_slots", "group", "batch"));
        assertEquals(7, e.get("granary_group_used", "group", "batch", "resource", "cpu", "unit", "core"));
        assertEquals(700 * 1024.0 * 1024.0, e.get("granary_group_used", "group", "batch", "resource", "memory", "unit", "byte"));
        assertEquals(8, e.get("granary_cluster_capacity", "resource", "cpu", "unit", "core"));
        assertEquals(0, e.get("granary_cluster_free", "resource", "cpu", "unit", "core"));
        assertEquals(1, e.get("granary_policy_in_effect", "point", "unit-order", "policy", "fifo"));
        assertEquals(0, e.get("granary_engine_held"));
        assertEquals(0, e.get("granary_scrape_engine_timeout"));

        // every input event, with its outcome and its duration
        assertEquals(2, e.get("granary_engine_events_total", "event", "NodeAdded", "outcome", "accepted"));
        assertEquals(2, e.get("granary_engine_events_total", "event", "JobSubmitted", "outcome", "accepted"));
        assertEquals(2, e.get("granary_engine_event_duration_seconds_count", "event", "JobSubmitted"));
        assertEquals(2, e.get("granary_engine_event_duration_seconds_bucket", "event", "JobSubmitted", "le", "+Inf"));
        assertTrue(e.get("granary_engine_event_duration_seconds_sum", "event", "JobSubmitted") > 0);
        assertEquals("histogram", e.type("granary_engine_event_duration_seconds"));
        assertEquals("counter", e.types().getOrDefault("granary_grants_total", e.type("granary_grants")));

        // a job master gives two slots back (their work is done), and a refused event
        UnitId u = new UnitId("j1", "u");
        String node = live.query(v -> v.unit(u).allocations().keySet().iterator().next());
        live.submit(new GrantReleased(u, node, 2));
        assertThrows(AssertionError.class, () -> live.submit(new NodeRemoved("no-such-node", false)));
        Exposition after = scrape();
        assertEquals(0, after.get("granary_submissions_refused_total", "submission", "job", "reason", "duplicate"),
                "no submission was refused yet");
        // a job whose id is taken, alone and in a batch: both refused, nothing accepted
        assertThrows(AssertionError.class, () -> live.submit(new JobSubmitted(job("j1", "batch", slots(1)))));
        assertThrows(AssertionError.class, () -> live.submit(new JobsSubmitted(
                List.of(job("j2", "batch", slots(1)), job("j1", "batch", slots(1))))));
        Exposition refused = scrape();
        // by reason: the id in use; the series of the engine's other reasons are there at 0
        assertEquals(1, refused.get("granary_submissions_refused_total", "submission", "job", "reason", "duplicate"));
        assertEquals(1, refused.get("granary_submissions_refused_total", "submission", "batch", "reason", "duplicate"));
        assertEquals(0, refused.get("granary_submissions_refused_total", "submission", "job", "reason", "too_large"));
        assertEquals(3, refused.get("granary_refused_jobs_total", "reason", "duplicate"));
        assertEquals(0, refused.get("granary_refused_jobs_total", "reason", "invalid"));
        // a slot larger than every node
        assertThrows(AssertionError.class, () -> live.submit(new JobSubmitted(job("huge", "batch",
                granary.testkit.Jobs.unit("u", 100_000, 100, 1).build()))));
        assertEquals(1, scrape().get("granary_refused_jobs_total", "reason", "too_large"));
        assertEquals(2, refused.get("granary_jobs"), "a refused job is never among the jobs");
        assertEquals(1, after.get("granary_releases_total"));
        assertEquals(2, after.get("granary_released_slots_total"));
        // the unit wants two fewer (10 - 2) and holds 5; the two freed slots go to its waiting rest at once
        assertEquals(9, after.get("granary_granted_slots_total", "kind", "offline"));
        assertEquals(1, after.get("granary_waiting_slots"));
        assertEquals(1, after.get("granary_engine_events_total", "event", "NodeRemoved", "outcome", "refused"));
    }

    @Test
    void policyChangesAreCountedAsTheyHappen() throws Exception {
        live = new LiveEngine(List.of("fifo"), List.of("fifo"), new FifoPolicy());
        metrics = metricsOf(live, List.of(), null);
        live.submit(new PolicyActivated("fifo"));
        live.submit(new PolicyFailed("quota", "Config Admin PID granary.policy.quota: tableFile: no such file"));
        Exposition e = scrape();
        assertEquals(1, e.get("granary_policy_changes_total", "change", "activated"));
        assertEquals(1, e.get("granary_policy_changes_total", "change", "failed"));
        assertEquals(0, e.get("granary_policy_changes_total", "change", "deactivated"), "every series is there from the start");
        assertEquals(1, e.get("granary_policy_configuration_refused", "policy", "quota"));
    }

    @Test
    void theQuotaReportOfAPolicyInEffectGivesEachGroupsMinAndMax(@TempDir Path dir) throws Exception {
        Path table = TestFiles.write(dir, "quota.json", """
                { "default": { "g1": {"GroupId":1,"MaxQuota":6,"MinQuota":2},
                               "g2": {"GroupId":2,"MaxQuota":8,"MinQuota":4} } }
                """);
        Policy quota = QuotaProvider.DECLARATION.create(Map.of("tableFile", table.toString(), "workerSpans", "default:12"));
        live = new LiveEngine(List.of("fifo", "quota"), List.of("fifo"), new FifoPolicy(), quota);
        metrics = metricsOf(live, List.of(QuotaProvider.DECLARATION), null);
        Clusters.slotNodes(3, 4).forEach(n -> live.submit(new NodeAdded(n)));
        live.submit(new JobSubmitted(job("a", "g1", slots(9))));

        Exposition e = scrape();
        assertEquals(2, e.get("granary_group_quota_min", "policy", "quota", "group", "g1", "resource", "slots", "unit", "integer"));
        assertEquals(6, e.get("granary_group_quota_max", "policy", "quota", "group", "g1", "resource", "slots", "unit", "integer"));
        assertEquals(4, e.get("granary_group_quota_min", "policy", "quota", "group", "g2", "resource", "slots", "unit", "integer"));
        assertEquals(8, e.get("granary_group_quota_max", "policy", "quota", "group", "g2", "resource", "slots", "unit", "integer"));
        // preemption's cost, from the same report: nothing taken yet, but each group's series is there
        assertEquals(0, e.get("granary_group_preempted_slots", "policy", "quota", "group", "g1"));
        assertEquals(0, e.get("granary_group_preempted_work_slot_seconds", "policy", "quota", "group", "g2"));
        String g1 = live.query(v -> v.resolveGroup("g1"));
        assertTrue(e.get("granary_group_used_slots", "group", g1) <= 6, "quota holds g1 within its max");
    }

    @Test
    void aPolicyNotInEffectShowsNoBounds(@TempDir Path dir) throws Exception {
        Path table = TestFiles.write(dir, "quota.json", """
                { "default": { "g1": {"GroupId":1,"MaxQuota":6,"MinQuota":2} } }
                """);
        Policy quota = QuotaProvider.DECLARATION.create(Map.of("tableFile", table.toString(), "workerSpans", "default:6"));
        live = new LiveEngine(List.of("fifo"), List.of("fifo"), new FifoPolicy(), quota); // installed, not selected
        metrics = metricsOf(live, List.of(QuotaProvider.DECLARATION), null);
        Exposition e = scrape();
        assertNull(e.value("granary_group_quota_min", "policy", "quota", "group", "g1", "resource", "slots", "unit", "integer"));
    }

    /** A unit order the endpoint has never heard of, with a report of every waiting unit's wait and a metric of it. */
    static final class Waits implements granary.api.spi.UnitOrder {
        @Override
        public String name() {
            return "waits";
        }

        @Override
        public int compare(granary.api.spi.UnitView a, granary.api.spi.UnitView b) {
            return Long.compare(a.submitTime(), b.submitTime());
        }
    }

    static final PolicyDeclaration WAITS = PolicyDeclaration.of("waits", Waits.class)
            .factory(s -> new Waits())
            .report("waits", "waiting slots per unit", (p, v) -> granary.api.report.Report.of(granary.api.report.Section.table(
                    "units", v.jobs().stream().flatMap(j -> j.units().stream()).map(u -> granary.api.report.Row.of(
                            granary.api.report.Cell.bare("schedule_unit", u.id().toString()),
                            granary.api.report.Cell.of("waiting", u.remaining()))).toList(), "none")))
            .metric(granary.api.spi.MetricSpec.number("granary_unit_waiting_slots", "Slots a unit waits for.", "waits",
                    "units", List.of("schedule_unit"), "waiting"))
            .build();

    @Test
    void aPolicyTheEndpointDoesNotKnowExportsTheMetricItDeclares() throws Exception {
        live = new LiveEngine(List.of("waits"), List.of("waits"), new Waits());
        metrics = metricsOf(live, List.of(WAITS), null);
        Clusters.slotNodes(1, 2).forEach(n -> live.submit(new NodeAdded(n)));
        live.submit(new JobSubmitted(job("a", "g1", slots(5))));
        Exposition e = scrape();
        assertEquals(3, e.get("granary_unit_waiting_slots", "policy", "waits", "schedule_unit", "a/u"));
    }

    /** An engine that never answers a query: the scrape serves the counters and says so. */
    @Test
    void aScrapeDoesNotWaitLongerThanItsBoundForABusyEngine() throws Exception {
        AtomicInteger queries = new AtomicInteger();
        Scheduler stuck = new Scheduler() {
            @Override
            public CompletableFuture<Receipt> submit(InputEvent event) {
                return new CompletableFuture<>();
            }

            @Override
            public <T> CompletableFuture<T> query(Function<? super EngineView, T> query) {
                queries.incrementAndGet();
                return new CompletableFuture<>();
            }

            @Override
            public <T> CompletableFuture<T> onEngine(Function<? super granary.api.event.EngineAccess, T> work) {
                return new CompletableFuture<>();
            }

            @Override
            public AutoCloseable subscribe(Consumer<? super OutputEvent> listener) {
                return () -> { };
            }
        };
        metrics = new GranaryMetrics(stuck, null, List::of, () -> null, Duration.ofMillis(200), false);
        long start = System.nanoTime();
        Exposition e = scrape();
        long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertTrue(tookMillis < 2_000, "bounded: " + tookMillis + " ms");
        assertEquals(1, e.get("granary_scrape_engine_timeout"));
        assertNull(e.value("granary_nodes"), "no engine state without the engine's answer");
        assertEquals(0, e.get("granary_releases_total"), "the counters are served");
        assertEquals(0, e.get("granary_master_active"));
        scrape();
        assertEquals(1, queries.get(), "a query still queued is waited for, not queued again");
    }

    @Test
    void theMastersPeersRecoveryAndDeliveryLatency() throws Exception {
        live = new LiveEngine(List.of("fifo"), List.of("fifo"), new FifoPolicy());
        MasterMonitor master = new MasterMonitor() {
            @Override
            public List<PeerStatus> agents() {
                return List.of(new PeerStatus("agent", "n1", "live", 1, 1200, 0, 0, 0, 0, "-", "",
                                granary.api.model.Resources.of(150, 512), "3 launches failed in a row"),
                        new PeerStatus("agent", "n2", "live", 1, 300, 0, 0, 0, 0, "-", "", granary.api.model.Resources.of(50, 256), ""),
                        peer("agent", "n4", "live", 300),
                        new PeerStatus("agent", "n3", "lost", 1, 90_000, 0, 0, 0, 0, "-", "", granary.api.model.Resources.of(999, 999), "gone"));
            }

            @Override
            public List<PeerStatus> jobMasters() {
                return List.of(peer("job-master", "jm1", "live", 50));
            }

            @Override
            public RecoveryState recoveryState() {
                return RecoveryState.WINDOW_OPEN;
            }

            @Override
            public DeliveryStats deliveryStats() {
                return new DeliveryStats(40, 2000, 20, 450);
            }

            @Override
            public DeliveryStats hintStats() {
                return new DeliveryStats(5, 1000, 100, 900);
            }

            @Override
            public Batches batches() {
                return new Batches(7, 30, 2);
            }

            @Override
            public Rebuilt lastRebuild() {
                return new Rebuilt(1_000, 1_750_000_000L, 200_000, 12);
            }
        };
        metrics = metricsOf(live, List.of(), master);
        Exposition e = scrape();
        assertEquals(1, e.get("granary_master_active"));
        assertEquals(3, e.get("granary_agents", "state", "live"));
        assertEquals(1, e.get("granary_agents", "state", "lost"));
        // what the live nodes use (n4 does not say; the lost n3 is not counted), and how many are unfit
        assertEquals(2.0, e.get("granary_cluster_in_use", "resource", "cpu", "unit", "core"), 1e-9);
        assertEquals(768.0 * 1024 * 1024, e.get("granary_cluster_in_use", "resource", "memory", "unit", "byte"), 1e-3);
        assertEquals(2, e.get("granary_agents_reporting_usage"));
        assertEquals(1, e.get("granary_agents_unhealthy"));
        assertEquals(1, e.get("granary_job_masters", "state", "live"));
        assertEquals(0, e.get("granary_job_masters", "state", "lost"));
        assertEquals(1.2, e.get("granary_master_peer_silence_max_seconds", "role", "agent"), 1e-9);
        assertEquals(0.05, e.get("granary_master_peer_silence_max_seconds", "role", "job_master"), 1e-9);
        assertEquals(1, e.get("granary_master_recovery_state", "state", "window_open"));
        assertEquals(0, e.get("granary_master_recovery_state", "state", "serving"));
        assertEquals(30.0, e.get("granary_master_messages_total"), 1e-9);
        assertEquals(1.75, e.get("granary_master_recovery_rebuild_seconds"), 1e-9);
        assertEquals(7.0, e.get("granary_master_message_turns_total"), 1e-9);
        assertEquals(2.0, e.get("granary_master_messages_expired_total"), 1e-9);
        assertEquals("summary", e.type("granary_master_delivery_latency_seconds"));
        // caps to agents and hints to job masters apart: the hints wait for their job master's next poll
        assertEquals(40, e.get("granary_master_delivery_latency_seconds_count", "role", "agent"));
        assertEquals(2.0, e.get("granary_master_delivery_latency_seconds_sum", "role", "agent"), 1e-9);
        assertEquals(0.45, e.get("granary_master_delivery_latency_seconds", "role", "agent", "quantile", "0.99"), 1e-9);
        assertEquals(5, e.get("granary_master_delivery_latency_seconds_count", "role", "job_master"));
        assertEquals(0.9, e.get("granary_master_delivery_latency_seconds", "role", "job_master", "quantile", "0.99"), 1e-9);
    }

    @Test
    void everyFamilyHasHelpAndAGranaryOrStandardName() throws Exception {
        live = new LiveEngine(List.of("fifo"), List.of("fifo"), new FifoPolicy());
        metrics = new GranaryMetrics(live.loop, live.loop, List::of, () -> null, Duration.ofSeconds(5), true);
        Exposition e = scrape();
        assertFalse(e.types().isEmpty());
        for (String family : e.types().keySet()) {
            assertTrue(family.startsWith("granary_") || family.startsWith("jvm_") || family.startsWith("process_"), family);
            assertFalse(String.valueOf(e.help(family)).isBlank(), "HELP of " + family);
        }
        assertTrue(e.get("jvm_memory_used_bytes", "area", "heap") > 0, "the JVM's metrics when asked for");
        assertEquals("text/plain; version=0.0.4; charset=utf-8", GranaryMetrics.CONTENT_TYPE);
    }

    @Test
    void closingStopsCounting() throws Exception {
        live = new LiveEngine(List.of("fifo"), List.of("fifo"), new FifoPolicy());
        metrics = metricsOf(live, List.of(), null);
        metrics.close();
        live.submit(new NodeAdded(Clusters.node("n0").slots(2).build()));
        live.submit(new JobSubmitted(job("j", null, slots(1))));
        Exposition e = scrape();
        assertNull(e.value("granary_engine_events_total", "event", "NodeAdded", "outcome", "accepted"));
        assertEquals(0, e.get("granary_grants_total", "kind", "offline"));
        assertEquals(1, e.get("granary_engine_decisions_total"), "the engine's own count goes on");
    }

    private static PeerStatus peer(String role, String id, String state, long silentMillis) {
        return new PeerStatus(role, id, state, 1, silentMillis, 0, 0, 0, 0, "-");
    }
}

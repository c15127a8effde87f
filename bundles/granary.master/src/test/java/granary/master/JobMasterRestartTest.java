package granary.master;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import granary.api.model.JobSpec;
import granary.api.model.Resources;
import granary.api.model.UnitId;
import granary.api.model.UnitKind;
import granary.api.model.UnitSpec;
import granary.protocol.Cap;
import granary.protocol.Envelope;
import granary.protocol.Heartbeat;
import granary.protocol.Program;
import granary.protocol.Register;
import granary.protocol.Request;
import granary.protocol.Role;
import granary.protocol.Sender;
import granary.protocol.WireCodec;
import granary.protocol.link.Paths;
import granary.protocol.link.SyncLink;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Spec case 3 on the master: a job master that gave a restart spec and is declared lost is started
 * again through the engine, on another node, by a cap that carries the launch; its old incarnation
 * is fenced (docs/recovery.md, "Restarting a lost job master"). Real engine, real HTTP, manual clock
 * and manual ticks: the timeout happens when the test calls {@code expire()}.
 */
class JobMasterRestartTest {

    private static final Sender JM = new Sender(Role.JOB_MASTER, "jm1");
    private static final Program PROGRAM = new Program(List.of("java", "-jar", "jm.jar", "--restartable"), Map.of("X", "1"), "");
    private final MasterHarness h;
    private final WireCodec codec = new WireCodec(Role.JOB_MASTER);
    private final HttpClient http = HttpClient.newHttpClient();
    private final String token;

    JobMasterRestartTest() throws Exception {
        h = new MasterHarness(MasterOptions.defaults().withIncarnation(77)
                .withTimeouts(Duration.ofSeconds(30), Duration.ofSeconds(60)).withManualTicks());
        token = h.tokens.issue(JM);
    }

    @AfterEach
    void close() {
        h.close();
    }

    private static JobSpec jobs() {
        return JobSpec.of("j1", "default",
                UnitSpec.builder("svc").slot(100, 100).desired(1).kind(UnitKind.ONLINE).build(),
                UnitSpec.builder("tasks").slot(100, 100).desired(1).build());
    }

    /** A batch-only job: cancelled at the timeout of a job master that cannot be restarted. */
    private static JobSpec batch() {
        return JobSpec.of("j2", "default", UnitSpec.builder("tasks").slot(100, 100).desired(1).build());
    }

    private static Request full(Request.Restart restart) {
        return new Request(true, List.of(jobs()), List.of(), List.of(), List.of(), List.of(), restart);
    }

    private static Request fullWithBatch(Request.Restart restart) {
        return new Request(true, List.of(jobs(), batch()), List.of(), List.of(), List.of(), List.of(), restart);
    }

    private SyncLink agent(String node, long cpu) {
        SyncLink a = h.link(Role.AGENT, node, 1);
        assertFalse(a.send(new Register(node, "r1", Map.of(), Resources.of(cpu, 1024), "http://127.0.0.1:9/" + node)).isRefusal());
        return a;
    }

    private HttpResponse<byte[]> post(long incarnation, long sequence, Request r) throws Exception {
        byte[] body = codec.encode(Envelope.of(JM, incarnation, sequence, r));
        HttpRequest req = HttpRequest.newBuilder(URI.create(h.server.url() + Paths.MESSAGES)).timeout(Duration.ofSeconds(10))
                .header("Authorization", "Bearer " + token).POST(HttpRequest.BodyPublishers.ofByteArray(body)).build();
        return http.send(req, HttpResponse.BodyHandlers.ofByteArray());
    }

    /** The first grant carrying a launch in the caps {@code a} is sent within 10 s, or null. */
    private static Cap.Grant launchIn(SyncLink a, int polls) {
        for (int i = 0; i < polls; i++) {
            Optional<Envelope> e = a.poll(200);
            if (e.isPresent() && e.get().message() instanceof Cap c) {
                for (Cap.Grant g : c.grants()) {
                    if (g.launch() != null) {
                        return g;
                    }
                }
            }
        }
        return null;
    }

    /** Ages the job master past its timeout while the agents stay live, then runs the master's timeout check. */
    private void jobMasterSilentPastItsTimeout(SyncLink... agents) {
        h.clock.advance(61_000);
        for (SyncLink a : agents) {
            assertFalse(a.send(new Heartbeat(List.of(), List.of(), null)).isRefusal());
        }
        h.master.expire();
    }

    private static final Request.Restart ON_N1 = new Request.Restart(PROGRAM, Resources.of(50, 64), "n1");

    /**
     * jm1 (incarnation 5, its spec naming n1) sends {@code first}, then is silent past its timeout
     * while agents n1 and n2 stay live; returns the cap that launches its restart, on n2.
     */
    private Cap.Grant lostAndLaunchedOnN2(SyncLink n1, SyncLink n2, Request first) throws Exception {
        assertEquals(200, post(5, 1, first).statusCode());
        jobMasterSilentPastItsTimeout(n1, n2);
        Cap.Grant launch = launchIn(n2, 25);
        assertNotNull(launch, "n2, not the node jm1 said it ran on, gets the cap that launches it");
        return launch;
    }

    /** Agent {@code a} reports the restart's worker started and, if {@code exitCode} is given, ended with it. */
    private static void reported(SyncLink a, Cap.Grant launch, Integer exitCode) {
        List<Heartbeat.Exit> exits = exitCode == null ? List.of() : List.of(new Heartbeat.Exit(launch.unit(), 0, exitCode));
        assertFalse(a.send(new Heartbeat(List.of(new Heartbeat.Worker(launch.unit(), 0)), exits, null)).isRefusal());
    }

    private PeerStatus status() {
        return h.master.jobMasters().get(0);
    }

    /**
     * A restartable job master whose batch is done (its one task exited, so its job ended in the
     * engine) and which then exits is finished, not lost: past its timeout nothing starts it again,
     * and its status says so, with no job running.
     */
    @Test
    void aJobMasterWhoseJobsAllEndedIsFinishedNotStartedAgain() throws Exception {
        SyncLink n1 = agent("n1", 300);
        SyncLink n2 = agent("n2", 300);
        assertEquals(200, post(5, 1, new Request(true, List.of(batch()), List.of(), List.of(), List.of(), List.of(), ON_N1)).statusCode());
        UnitId tasks = new UnitId("j2", "tasks");
        String node = h.live.<String>query(v -> v.unit(tasks).allocations().keySet().iterator().next());
        SyncLink where = node.equals("n1") ? n1 : n2;
        assertFalse(where.send(new Heartbeat(List.of(), List.of(new Heartbeat.Exit(tasks, 0, 0)), null)).isRefusal());
        assertEquals(null, h.live.<Object>query(v -> v.job("j2")), "the batch is done: the engine ended its job");
        PeerStatus done = h.master.jobMasters().get(0);
        assertEquals("finished", done.state(), done.line());
        assertEquals(0, done.jobs(), done.line());

        jobMasterSilentPastItsTimeout(n1, n2);
        assertNull(launchIn(n1, 3), "nothing starts it again on n1");
        assertNull(launchIn(n2, 3), "nor on n2");
        PeerStatus after = h.master.jobMasters().get(0);
        assertEquals("finished", after.state(), after.line());
        assertEquals("", after.restart(), after.line());
    }

    @Test
    void aLostRestartableJobMasterIsStartedOnAnotherNodeAndItsOldIncarnationIsFenced() throws Exception {
        SyncLink n2 = agent("n2", 300);
        Cap.Grant launch = lostAndLaunchedOnN2(agent("n1", 300), n2, fullWithBatch(ON_N1));
        assertEquals(PROGRAM, launch.launch());
        assertEquals(Restarts.OWNER, launch.jobMaster());
        assertTrue(launch.online());
        assertEquals(Resources.of(50, 64), launch.size());
        assertEquals(1, launch.slots());
        assertEquals("restarting", status().state());
        assertTrue(status().line().contains("restart=\"launched on n2, waiting for its full request\""), status().line());
        // Its jobs wait for it, the offline one too: the restarted job master's full request takes them over (case 2).
        assertNotNull(h.live.query(v -> v.job("j2")));

        // Fenced once its successor runs: the agent reports the launched worker started.
        reported(n2, launch, null);
        HttpResponse<byte[]> old = post(5, 2, new Request(false, List.of(), List.of(), List.of(), List.of()));
        assertEquals(409, old.statusCode());
        String text = new String(old.body(), StandardCharsets.UTF_8);
        assertTrue(text.contains("incarnation 5 is fenced: job master jm1 was declared lost after 60 s of silence and the master"
                + " started it again; this process must exit"), text);
        assertEquals(409, post(5, 1, full(null)).statusCode(), "not even a full request revives a fenced incarnation");

        assertEquals(200, post(9, 1, fullWithBatch(new Request.Restart(PROGRAM, Resources.of(50, 64), "n2"))).statusCode());
        assertEquals("live", status().state());
        assertTrue(status().line().contains("restart=\"runs on n2 (started by the master)\""), status().line());

        // The restarted process exits: its slot is kept, its cap holding the launch on n2 until a next
        // start runs or the job master speaks (a master failing over meanwhile learns the spec there).
        reported(n2, launch, 3);
        assertEquals(1, (int) h.live.query(v -> v.cluster().node("n2").slotsOf(launch.unit())));
        assertEquals("its process on n2 exited with 3; started again unless another incarnation speaks within 3000 ms",
                status().restart());
    }

    /**
     * The process the master started ran, then died (not exit 0): it is started again after a short
     * grace, not a timeout later — until then only this master's memory holds its spec, and a failover
     * in between would leave its jobs to nobody (kit seed 5). Another incarnation that speaks within
     * the grace calls it off.
     */
    @Test
    void aStartedJobMasterThatDiesIsStartedAgainAfterAGraceUnlessAnotherIncarnationSpeaks() throws Exception {
        SyncLink n1 = agent("n1", 300);
        SyncLink n2 = agent("n2", 300);
        Cap.Grant launch = lostAndLaunchedOnN2(n1, n2, fullWithBatch(ON_N1));
        reported(n2, launch, null);
        Request.Restart onN2 = new Request.Restart(PROGRAM, Resources.of(50, 64), "n2");
        assertEquals(200, post(9, 1, fullWithBatch(onN2)).statusCode());
        reported(n2, launch, 137); // killed

        h.clock.advance(2_000);
        h.master.expire();
        assertNull(launchIn(n1, 2), "not within the grace");
        h.clock.advance(1_500);
        assertFalse(n1.send(new Heartbeat(List.of(), List.of(), null)).isRefusal());
        h.master.expire();
        Cap.Grant again = launchIn(n1, 25);
        assertNotNull(again, "started again, away from n2 where it died");
        assertEquals(Restarts.PREFIX + "2@jm1", again.unit().job());
        assertNotNull(h.live.query(v -> v.job(launch.unit().job())), "the dead start's cap keeps the launch until the next one runs");

        // Its process reports, then dies; this time its operator's incarnation speaks within the grace.
        reported(n1, again, null);
        assertNull(h.live.query(v -> v.job(launch.unit().job())), "the next start runs: the dead one's slot is freed");
        assertEquals(200, post(11, 1, fullWithBatch(new Request.Restart(PROGRAM, Resources.of(50, 64), "n1"))).statusCode());
        reported(n1, again, 1);
        h.clock.advance(1_000);
        assertEquals(200, post(12, 1, fullWithBatch(onN2)).statusCode());
        h.clock.advance(2_500);
        h.master.expire();
        assertNull(launchIn(n2, 3), "another incarnation speaks for it: nothing is started");
        assertEquals("", status().restart());
    }

    /**
     * The lost incarnation is fenced only once its successor runs: back before that (here: its start
     * placed, the launch on its way), it goes on, and the start is called off. Fenced at once, it would
     * have exited, and a master that died before the launch reached an agent would leave nobody
     * running its jobs (found by the kit's random schedules, seeds 2571 and 4916 of 5,000).
     */
    @Test
    void aLostJobMasterBackBeforeItsSuccessorRunsGoesOnAndItsStartIsCalledOff() throws Exception {
        Cap.Grant launch = lostAndLaunchedOnN2(agent("n1", 300), agent("n2", 300), fullWithBatch(ON_N1));
        assertNotNull(h.live.query(v -> v.job(launch.unit().job())));

        assertEquals(200, post(5, 2, fullWithBatch(ON_N1)).statusCode(),
                "the lost incarnation, back before its successor ran, is not fenced");
        assertEquals("live", status().state());
        assertNull(h.live.query(v -> v.job(launch.unit().job())), "its start is called off");
        assertEquals(200, post(5, 3, new Request(false, List.of(), List.of(), List.of(), List.of())).statusCode());

        // The launch had started a process already: when it speaks, it is told to exit, and the one back goes on.
        var late = post(9, 1, fullWithBatch(new Request.Restart(PROGRAM, Resources.of(50, 64), "n2")));
        assertEquals(409, late.statusCode());
        String text = new String(late.body(), StandardCharsets.UTF_8);
        assertTrue(text.contains("incarnation 9 is fenced: the master started it on n2 for job master jm1, then called that start"
                + " off when incarnation 5 came back; this process must exit"), text);
        assertEquals(200, post(5, 4, new Request(false, List.of(), List.of(), List.of(), List.of())).statusCode());
    }

    /** The restart's process exits (code 1) before its job master reported back: tried again after one more timeout. */
    @Test
    void aStartThatFailsIsTriedAgainAfterAnotherTimeout() throws Exception {
        SyncLink n1 = agent("n1", 300);
        SyncLink n2 = agent("n2", 300);
        Cap.Grant first = lostAndLaunchedOnN2(n1, n2, full(ON_N1));
        reported(n2, first, 1);
        assertNull(h.live.query(v -> v.job(first.unit().job())), "the failed start's job is gone");
        assertEquals("its start on n2 exited with 1; trying again", status().restart());

        jobMasterSilentPastItsTimeout(n1, n2);
        Cap.Grant second = launchIn(n2, 25);
        assertNotNull(second, "started again once another timeout passed");
        assertEquals(Restarts.PREFIX + "2@jm1", second.unit().job());
    }

    /** Exit 0 is a job master that ended on purpose: its slot is released and it is not started again. */
    @Test
    void aStartThatEndsWithZeroIsNotStartedAgain() throws Exception {
        SyncLink n1 = agent("n1", 300);
        SyncLink n2 = agent("n2", 300);
        reported(n2, lostAndLaunchedOnN2(n1, n2, full(ON_N1)), 0);
        assertEquals("", status().restart());

        jobMasterSilentPastItsTimeout(n1, n2);
        assertNull(launchIn(n1, 5));
        assertNull(launchIn(n2, 5));
        assertNull(h.live.query(v -> v.job(Restarts.PREFIX + "2@jm1")), "no second start");
    }

    /**
     * A start that runs but never reports back (no full request within another timeout) hangs: its
     * slot is taken back, which stops it, and the next start avoids its node.
     */
    @Test
    void aStartThatHangsIsStoppedAndStartedAgainElsewhere() throws Exception {
        SyncLink n1 = agent("n1", 300);
        SyncLink n2 = agent("n2", 300);
        Cap.Grant first = lostAndLaunchedOnN2(n1, n2, full(ON_N1));
        reported(n2, first, null);

        jobMasterSilentPastItsTimeout(n1, n2);
        assertNull(h.live.query(v -> v.job(first.unit().job())), "the hung start's job is cancelled: its cap is withdrawn");
        Cap.Grant second = launchIn(n1, 25);
        assertNotNull(second, "the next start avoids n2, where the last one hung");
        assertEquals(Restarts.PREFIX + "2@jm1", second.unit().job());
    }

    /**
     * A node full of the lost job master's own slots: one of its offline slots, which nobody plans
     * into while it is away, is taken back to start it (its unit still wants the slot: it is granted
     * again later). Without this a batch that filled the cluster would keep its job master from ever
     * being started again (found by the conformance kit running the sample job master).
     */
    @Test
    void aNodeFullOfTheLostJobMastersSlotsGivesUpAnOfflineOneForTheRestart() throws Exception {
        SyncLink n1 = agent("n1", 200);
        assertEquals(200, post(5, 1, full(new Request.Restart(PROGRAM, Resources.of(100, 64), "n1"))).statusCode());

        jobMasterSilentPastItsTimeout(n1);

        Cap.Grant launch = launchIn(n1, 25);
        assertNotNull(launch, "the restart got the slot of the batch task");
        UnitId tasks = new UnitId("j1", "tasks");
        assertEquals(0, (int) h.live.<Integer>query(v -> v.unit(tasks).granted()), "the offline slot was taken back");
        assertEquals(1, (int) h.live.<Integer>query(v -> v.unit(tasks).desired()), "and the unit still wants it");
        assertEquals(1, (int) h.live.<Integer>query(v -> v.unit(new UnitId("j1", "svc")).granted()), "online slots are never taken");
    }

    @Test
    void withoutRoomTheRestartWaitsAndSaysWhy() throws Exception {
        SyncLink n1 = agent("n1", 200);
        JobSpec services = JobSpec.of("j1", "default", UnitSpec.builder("svc").slot(100, 100).desired(2).kind(UnitKind.ONLINE).build());
        assertEquals(200, post(5, 1, new Request(true, List.of(services), List.of(), List.of(), List.of(), List.of(),
                new Request.Restart(PROGRAM, Resources.of(100, 64), "n1"))).statusCode());

        jobMasterSilentPastItsTimeout(n1);

        // n1 is the only node: it is not avoided, but it is full of online slots, which are never taken.
        assertNull(launchIn(n1, 3));
        assertEquals("restarting", status().state());
        assertEquals("waiting for a node with room for " + Resources.of(100, 64), status().restart());
        assertEquals(1, (int) h.live.<Integer>query(v -> v.unit(new UnitId(Restarts.PREFIX + "1@jm1", Restarts.UNIT)).desired()));

        // A second node joins: the restart goes there.
        SyncLink n2 = agent("n2", 200);
        assertNotNull(launchIn(n2, 25));
    }

    /** Found by FailoverIT: a first full request that arrives during the recovery window carries the spec too. */
    @Test
    void aRestartSpecSentDuringTheRecoveryWindowHolds() throws Exception {
        h.close();
        MasterHarness w = new MasterHarness(MasterOptions.defaults().withIncarnation(78)
                .withTimeouts(Duration.ofSeconds(30), Duration.ofSeconds(60)).withManualTicks(),
                granary.recovery.Recovery.of(new granary.recovery.RecoveryOptions(Duration.ofSeconds(5), Duration.ofSeconds(1))));
        try {
            SyncLink n1 = w.link(Role.AGENT, "n1", 1);
            assertFalse(n1.send(new Register("n1", "r1", Map.of(), Resources.of(400, 1024), "http://127.0.0.1:9/n1")).isRefusal());
            SyncLink jm = w.link(Role.JOB_MASTER, "jm1", 5);
            assertFalse(jm.send(full(new Request.Restart(PROGRAM, Resources.of(50, 64), null))).isRefusal());
            w.clock.advance(6_000);
            w.master.tick(); // the window closes: the master rebuilds and serves
            w.clock.advance(61_000);
            assertFalse(n1.send(new Heartbeat(List.of(), List.of(), null)).isRefusal());
            w.master.expire();
            assertEquals("restarting", w.master.jobMasters().get(0).state());
            assertNotNull(launchIn(n1, 25), "the spec of the window's full request started it again");
        } finally {
            w.close();
        }
    }

    /**
     * Case 3 across a failover of the master: the new master finds the restart in the cap its agent
     * holds (the cap carries the launch), takes it on as its own run, and when the restarted process
     * reports from that node the incarnations before it are fenced — the lost one goes on until then.
     */
    @Test
    void aRestartSurvivesAFailoverOfTheMasterAndItsProcessFencesTheLostIncarnation() throws Exception {
        SyncLink n1 = agent("n1", 300);
        SyncLink n2 = agent("n2", 300);
        Cap.Grant launch = lostAndLaunchedOnN2(n1, n2, fullWithBatch(ON_N1));
        h.close();

        MasterHarness w = new MasterHarness(MasterOptions.defaults().withIncarnation(78)
                .withTimeouts(Duration.ofSeconds(30), Duration.ofSeconds(60)).withManualTicks(),
                granary.recovery.Recovery.of(new granary.recovery.RecoveryOptions(Duration.ofSeconds(5), Duration.ofSeconds(1))));
        try {
            SyncLink a1 = w.link(Role.AGENT, "n1", 2);
            SyncLink a2 = w.link(Role.AGENT, "n2", 2);
            assertFalse(a1.send(new Register("n1", "r1", Map.of(), Resources.of(300, 1024), "http://127.0.0.1:9/n1")).isRefusal());
            assertFalse(a2.send(new Register("n2", "r1", Map.of(), Resources.of(300, 1024), "http://127.0.0.1:9/n2",
                    List.of(launch), 2)).isRefusal());
            w.clock.advance(6_000);
            w.master.tick(); // the window closes: the rebuild takes the restart on
            assertNotNull(w.live.query(v -> v.job(launch.unit().job())), "the restart's slot is kept on n2");

            String wToken = w.tokens.issue(JM);
            assertEquals(200, postTo(w, wToken, 5, 1, fullWithBatch(ON_N1)).statusCode(), "the lost one, back first, goes on");
            Request.Restart onN2 = new Request.Restart(PROGRAM, Resources.of(50, 64), "n2");
            assertEquals(200, postTo(w, wToken, 9, 1, fullWithBatch(onN2)).statusCode(), "the restarted process reports from n2");
            HttpResponse<byte[]> old = postTo(w, wToken, 5, 2, fullWithBatch(ON_N1));
            assertEquals(409, old.statusCode());
            assertTrue(new String(old.body(), StandardCharsets.UTF_8).contains("incarnation 5 is fenced"),
                    new String(old.body(), StandardCharsets.UTF_8));

            // Its process exits with 0: the run ends and its slot goes, as before the failover.
            assertFalse(a2.send(new Heartbeat(List.of(), List.of(new Heartbeat.Exit(launch.unit(), 0, 0)), null)).isRefusal());
            assertNull(w.live.query(v -> v.job(launch.unit().job())), "the restart's job is gone with its process");
        } finally {
            w.close();
        }
    }

    private HttpResponse<byte[]> postTo(MasterHarness m, String tok, long incarnation, long sequence, Request r) throws Exception {
        byte[] body = codec.encode(Envelope.of(JM, incarnation, sequence, r));
        HttpRequest req = HttpRequest.newBuilder(URI.create(m.server.url() + Paths.MESSAGES)).timeout(Duration.ofSeconds(10))
                .header("Authorization", "Bearer " + tok).POST(HttpRequest.BodyPublishers.ofByteArray(body)).build();
        return http.send(req, HttpResponse.BodyHandlers.ofByteArray());
    }

    @Test
    void aJobMasterWithoutARestartSpecIsNotRestartedAndItsOfflineJobsAreCancelled() throws Exception {
        SyncLink n1 = agent("n1", 300);
        assertEquals(200, post(5, 1, fullWithBatch(null)).statusCode());
        jobMasterSilentPastItsTimeout(n1);
        assertEquals("lost", status().state());
        assertNull(h.live.query(v -> v.job("j2")), "its batch job is cancelled");
        assertNotNull(h.live.query(v -> v.job("j1")), "its service is kept");
        assertNull(launchIn(n1, 3));
    }

    @Test
    void aJobMasterMayNotUseTheMastersRestartJobIdsOrItsReservedId() throws Exception {
        agent("n1", 300);
        Request r = new Request(true, List.of(JobSpec.of(Restarts.PREFIX + "1@jm1", "default",
                UnitSpec.builder("job-master").slot(1, 1).desired(1).build())), List.of(), List.of(), List.of());
        HttpResponse<byte[]> refused = post(5, 1, r);
        assertEquals(400, refused.statusCode());
        assertTrue(new String(refused.body(), StandardCharsets.UTF_8).contains(
                "job ids starting with granary.restart- are the master's restarts of lost job masters"));
    }
}

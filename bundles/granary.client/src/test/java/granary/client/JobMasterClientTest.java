package granary.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import granary.api.model.InvalidRequestException;
import granary.api.model.JobSpec;
import granary.api.model.Problem;
import granary.api.model.UnitId;
import granary.api.model.UnitSpec;
import granary.protocol.Heartbeat;
import granary.protocol.Hint;
import granary.protocol.Plan;
import granary.protocol.Request;
import granary.protocol.link.LinkException;
import granary.protocol.link.PlanPass;
import granary.protocol.link.Link;
import java.net.ServerSocket;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

@Timeout(30)
class JobMasterClientTest {

    static final UnitId MAP = new UnitId("wc", "map");
    static final JobSpec WC = JobSpec.of("wc", "default", UnitSpec.builder("map").slot(100, 256).desired(3).build());
    static final JobMasterClient.Options FAST = JobMasterClient.Options.defaults()
            .withLink(Link.Options.defaults().withRequestTimeout(Duration.ofSeconds(3)).withBackoff(Duration.ofMillis(20), Duration.ofMillis(200)))
            .withPollWait(Duration.ofMillis(300)).withMaxPause(Duration.ofMillis(200)).withConnectPatience(Duration.ofSeconds(2));

    /** Waits for a request's future (at most 10 s); its failure is thrown as it is. */
    static void done(java.util.concurrent.CompletableFuture<Void> f) {
        try {
            f.get(10, TimeUnit.SECONDS);
        } catch (java.util.concurrent.ExecutionException ex) {
            if (ex.getCause() instanceof RuntimeException r) {
                throw r;
            }
            throw new IllegalStateException(ex.getCause());
        } catch (InterruptedException | java.util.concurrent.TimeoutException ex) {
            throw new IllegalStateException(ex);
        }
    }

    /** Every callback as one line, e.g. {@code placement wc/map n1 0->2}. */
    static final class Recorder implements Listener {
        final BlockingQueue<String> events = new LinkedBlockingQueue<>();

        @Override
        public void placementChanged(UnitId unit, String node, String endpoint, int oldSlots, int newSlots) {
            events.add("placement " + unit + " " + node + " " + oldSlots + "->" + newSlots);
        }

        @Override
        public void workerExited(UnitId unit, String node, int slot, int exitCode) {
            events.add("exit " + unit + " " + node + " slot=" + slot + " code=" + exitCode);
        }

        @Override
        public void workerOutOfMemory(UnitId unit, String node, int slot, long limitMiB, long peakMiB) {
            events.add("oom " + unit + " " + node + " slot=" + slot + " limit=" + limitMiB + " peak=" + peakMiB);
        }

        @Override
        public void resynced(long masterIncarnation) {
            events.add("resynced " + masterIncarnation);
        }

        @Override
        public void fenced(LinkException why) {
            events.add("fenced " + why.kind());
        }

        @Override
        public void linkFailed(LinkException failure) {
            events.add("failed " + failure.kind());
        }

        @Override
        public void nodeChanged(String node, String state) {
            events.add("node " + node + " " + state);
        }

        /** The next event that is not a link failure, waiting at most 10 s. */
        String next() throws InterruptedException {
            while (true) {
                String e = events.poll(10, TimeUnit.SECONDS);
                assertNotNull(e, "no event within 10 s");
                if (!e.startsWith("failed ")) {
                    return e;
                }
            }
        }
    }

    FakeMaster master;
    final Recorder heard = new Recorder();
    final List<AutoCloseable> open = new ArrayList<>();

    @BeforeEach
    void start() throws Exception {
        master = new FakeMaster();
        open.add(master);
    }

    @AfterEach
    void stop() throws Exception {
        for (int i = open.size() - 1; i >= 0; i--) {
            open.get(i).close();
        }
    }

    JobMasterClient connect(String id) {
        JobMasterClient c = JobMasterClient.connect(master.url(), id, FakeMaster.token(id), System.currentTimeMillis(), FAST, heard);
        open.add(c);
        return c;
    }

    @Test
    void theFirstRequestIsFullAndLaterOnesAreDeltas() {
        JobMasterClient c = connect("jm1");
        done(c.submit(WC));
        done(c.desire(MAP, 5));
        done(c.cancel("wc"));

        List<Request> got = master.requests();
        assertEquals(4, got.size(), got.toString());
        assertEquals(new Request(true, List.of(), List.of(), List.of(), List.of()).withMark(1), got.get(0));
        assertEquals(new Request(false, List.of(WC), List.of(), List.of(), List.of()).withMark(2), got.get(1));
        assertEquals(List.of(1L, 2L, 3L, 4L), got.stream().map(Request::mark).toList(), "each request has a larger mark");
        assertEquals(List.of(new Request.Desire(MAP, 5)), got.get(2).desires());
        assertFalse(got.get(2).full());
        assertEquals(List.of("wc"), got.get(3).cancels());
        assertEquals(-1, c.desired(MAP));
    }

    @Test
    void aJobMasterThatRestartsNamesItsJobsInItsFirstRequest() {
        // A first full request without the jobs would tell the master this job master runs none,
        // and the master would drop them, online work included (found by killing a real job master).
        JobMasterClient c = JobMasterClient.connect(List.of(master.url()), "jm1", FakeMaster.token("jm1"),
                System.currentTimeMillis(), FAST, heard, List.of(WC));
        open.add(c);
        List<Request> got = master.requests();
        assertEquals(1, got.size(), got.toString());
        assertEquals(new Request(true, List.of(WC), List.of(), List.of(), List.of()).withMark(1), got.get(0));
        assertTrue(c.desired(MAP) >= 0, "the client books the job it was given");
    }

    /**
     * A restartable job master's full requests carry its restart spec; once the master fenced its
     * incarnation (it started it again elsewhere, docs/recovery.md) the client stops, tells the
     * listener, and every further change fails as FENCED.
     */
    @Test
    void aRestartSpecGoesWithEveryFullRequestAndAFencedIncarnationIsToldToExit() throws Exception {
        granary.protocol.Request.Restart spec = new granary.protocol.Request.Restart(
                new granary.protocol.Program(List.of("java", "-jar", "jm.jar"), java.util.Map.of(), ""),
                granary.api.model.Resources.of(100, 256), null);
        long life = System.currentTimeMillis();
        JobMasterClient c = JobMasterClient.connect(master.url(), "jm1", FakeMaster.token("jm1"), life,
                FAST.withRestart(spec), heard);
        open.add(c);
        assertEquals(spec, master.requests().get(0).restart());
        done(c.submit(WC));
        assertEquals(null, master.requests().get(1).restart(), "a delta carries none");

        master.fence(life);
        assertEquals("fenced FENCED", heard.next());
        LinkException refused = assertThrows(LinkException.class, () -> done(c.desire(MAP, 1)));
        assertEquals(LinkException.Kind.FENCED, refused.kind());
    }

    @Test
    void placementsAndExitsReachTheListenerInOrder() throws Exception {
        JobMasterClient c = connect("jm1");
        done(c.submit(WC));
        master.hint(new Hint(List.of(new Hint.Placement(MAP, "n1", 2, "http://127.0.0.1:1")), List.of()));
        assertEquals("placement wc/map n1 0->2", heard.next());

        master.hint(new Hint(List.of(new Hint.Placement(MAP, "n1", 1, "http://127.0.0.1:1")),
                List.of(new Hint.Exit(MAP, "n1", 0, 0), new Hint.Exit(MAP, "n1", 1, 3))));
        assertEquals("placement wc/map n1 2->1", heard.next());
        assertEquals("exit wc/map n1 slot=0 code=0", heard.next());
        assertEquals("placement wc/map n1 1->0", heard.next());
        assertEquals("exit wc/map n1 slot=1 code=3", heard.next());
        assertEquals("placement wc/map n1 0->1", heard.next());
        assertEquals(1, c.desired(MAP), "each exit lowers the desired count, as the master did");
        assertEquals(1, c.slots(MAP, "n1"));
    }

    /** A worker its memory limit ended reaches the listener as such, just before its exit (docs/agent.md, "Isolation"). */
    @Test
    void anOutOfMemoryEndReachesTheListenerBeforeItsExit() throws Exception {
        JobMasterClient c = connect("jm1");
        done(c.submit(WC));
        master.hint(new Hint(List.of(new Hint.Placement(MAP, "n1", 1, "http://127.0.0.1:1")), List.of()));
        assertEquals("placement wc/map n1 0->1", heard.next());
        master.hint(new Hint(List.of(), List.of(new Hint.Exit(MAP, "n1", 0, 137, false, new Heartbeat.Oom(256, 256)))));
        assertEquals("placement wc/map n1 1->0", heard.next());
        assertEquals("oom wc/map n1 slot=0 limit=256 peak=256", heard.next());
        assertEquals("exit wc/map n1 slot=0 code=137", heard.next());
    }

    @Test
    void afterAMasterRestartTheClientSendsEveryJobWithItsCurrentDesire() throws Exception {
        JobMasterClient c = connect("jm1");
        done(c.submit(WC));
        master.hint(new Hint(List.of(new Hint.Placement(MAP, "n1", 2, "http://127.0.0.1:1")), List.of()));
        assertEquals("placement wc/map n1 0->2", heard.next());
        master.hint(new Hint(List.of(), List.of(new Hint.Exit(MAP, "n1", 0, 0))));
        assertEquals("placement wc/map n1 2->1", heard.next());
        assertEquals("exit wc/map n1 slot=0 code=0", heard.next());

        master.restart(true);

        // The holdings stay (a restarted master rebuilds from them and answers every pair with its
        // full hint), and go along with the full request (docs/recovery.md).
        assertEquals("resynced 1001", heard.next());
        Request last = master.requests().get(master.requests().size() - 1);
        assertTrue(last.full());
        assertEquals(2, last.jobs().get(0).unit("map").desired(), "3 desired, one worker ended");
        assertEquals(List.of(new Request.Holding(MAP, "n1", 1)), last.holdings());
        assertEquals(1, c.slots(MAP, "n1"));

        done(c.desire(MAP, 4));
        Request delta = master.requests().get(master.requests().size() - 1);
        assertFalse(delta.full(), "after the re-sync, deltas again");
        master.hint(new Hint(List.of(new Hint.Placement(MAP, "n2", 1, "http://127.0.0.1:2")), List.of()));
        assertEquals("placement wc/map n2 0->1", heard.next());
    }

    @Test
    void aRestartSeenBySendingTurnsTheChangeIntoAFullRequest() throws Exception {
        JobMasterClient c = connect("jm1");
        done(c.submit(WC));
        master.restart(false);

        done(c.desire(MAP, 7));

        Request last = master.requests().get(master.requests().size() - 1);
        assertTrue(last.full(), master.requests().toString());
        assertEquals(7, last.jobs().get(0).unit("map").desired());
        assertEquals("resynced 1001", heard.next());
        assertEquals(7, c.desired(MAP));
    }

    /**
     * Plans carry the pass the master gave for that agent's node, never the job master's own token
     * (docs/security.md, "Plan passes"); with no pass yet nothing is sent.
     */
    @Test
    void plansGoToTheNamedAgentWithItsPassNotTheJobMastersToken() throws Exception {
        FakeAgent a1 = new FakeAgent();
        open.add(a1);
        FakeAgent a2 = new FakeAgent();
        open.add(a2);
        JobMasterClient c = connect("jm1");
        done(c.submit(WC));
        Plan.Launch l = new Plan.Launch(MAP, 0, List.of("/bin/true"), Map.of("GRANARY_TASK", "0"), "/tmp");

        LinkException none = assertThrows(LinkException.class, () -> done(c.launch(a1.url(), List.of(l))));
        assertTrue(none.getMessage().contains("no plan pass for the agent at " + a1.url()), none.getMessage());
        assertEquals(List.of(), a1.received());

        String pass = PlanPass.issue(FakeMaster.TOKENS.agentKey("n1"), new PlanPass.Claims("jm1", c.incarnation(), "n1", "k", Long.MAX_VALUE));
        master.hint(new Hint(List.of(new Hint.Placement(MAP, "n1", 2, a1.url())), List.of(), List.of(), 0,
                List.of(new Hint.Pass("n1", pass))));
        assertEquals("placement wc/map n1 0->2", heard.next());
        done(c.launch(a1.url(), List.of(l)));
        done(c.launch(a1.url(), List.of(l)));

        assertEquals(2, a1.received().size());
        assertEquals(List.of(), a2.received());
        FakeAgent.Received r = a1.received().get(0);
        assertEquals("Bearer " + pass, r.authorization());
        assertEquals(c.self(), r.sender());
        assertEquals(List.of(l), r.plan().launches());

        String renewed = PlanPass.issue(FakeMaster.TOKENS.agentKey("n1"), new PlanPass.Claims("jm1", c.incarnation(), "n1", "k", Long.MAX_VALUE - 1));
        master.hint(new Hint(List.of(new Hint.Placement(MAP, "n1", 3, a1.url())), List.of(), List.of(), 0,
                List.of(new Hint.Pass("n1", renewed))));
        assertEquals("placement wc/map n1 2->3", heard.next());
        done(c.launch(a1.url(), List.of(l)));
        assertEquals("Bearer " + renewed, a1.received().get(2).authorization(), "a renewed pass goes with later plans");
    }

    @Test
    void aRefusedRequestThrowsWithTheMastersProblemsAndChangesNothing() {
        JobMasterClient c = connect("jm1");
        Problem taken = Problem.of("job wc", "id", "belongs to job master jm2");
        master.judge(r -> r.jobs().isEmpty() ? List.of() : List.of(taken));

        InvalidRequestException ex = assertThrows(InvalidRequestException.class, () -> done(c.submit(WC)));

        assertEquals(List.of(taken), ex.problems());
        assertEquals(-1, c.desired(MAP));
    }

    /**
     * A cancel refused only because the master runs no such job (it ended there, or a master that
     * restarted never heard of it) has its effect: the client's book drops the job, so that the full
     * request it sends a later master does not name it and start it anew (kit seed 4411: a service
     * outlived its job after such a refusal). Any other refusal of a cancel changes nothing.
     */
    @Test
    void aCancelOfAJobTheMasterDoesNotRunDropsItFromTheBook() throws Exception {
        JobMasterClient c = connect("jm1");
        done(c.submit(WC));
        Problem unknown = Problem.of("job-master jm1", "$.message.cancels[0]", "job wc is not known to this master");
        master.judge(r -> r.cancels().isEmpty() ? List.of() : List.of(unknown));
        done(c.cancel("wc"));
        assertEquals(-1, c.desired(MAP), "the job is no longer booked");

        master.judge(r -> List.of());
        master.restart(false);
        JobSpec other = JobSpec.of("other", "default", UnitSpec.builder("u").slot(100, 100).desired(1).build());
        done(c.submit(other)); // the restart seen by sending: the change goes in a full request
        Request full = master.requests().get(master.requests().size() - 1);
        assertTrue(full.full(), master.requests().toString());
        assertEquals(List.of("other"), full.jobs().stream().map(JobSpec::id).toList(), "a later master is not asked to run wc again");
    }

    @Test
    void aCancelRefusedForAnotherReasonChangesNothing() {
        JobMasterClient c = connect("jm1");
        done(c.submit(WC));
        Problem other = Problem.of("job-master jm1", "$.message.cancels[0]", "job wc belongs to job master jm2");
        master.judge(r -> r.cancels().isEmpty() ? List.of() : List.of(other));
        InvalidRequestException ex = assertThrows(InvalidRequestException.class, () -> done(c.cancel("wc")));
        assertEquals(List.of(other), ex.problems());
        assertTrue(c.desired(MAP) >= 0, "still booked");
    }

    @Test
    void aRefusedTokenFailsTheConnect() {
        LinkException ex = assertThrows(LinkException.class, () -> JobMasterClient.connect(master.url(), "jm1",
                FakeMaster.token("jm2"), 1, FAST, heard));
        assertEquals(LinkException.Kind.UNAUTHORIZED, ex.kind());
    }

    @Test
    void anUnreachableMasterFailsTheConnect() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        LinkException ex = assertThrows(LinkException.class, () -> JobMasterClient.connect(
                URI.create("http://127.0.0.1:" + port), "jm1", "t", 1, FAST, heard));
        assertEquals(LinkException.Kind.UNREACHABLE, ex.kind());
    }

    // ---- recovery (docs/recovery.md, docs/protocol.md "Marks", "Exits") ---------------------------

    private static Hint.Placement at(String node, int slots) {
        return new Hint.Placement(MAP, node, slots, "http://127.0.0.1:1");
    }

    private Request lastRequest() {
        List<Request> got = master.requests();
        return got.get(got.size() - 1);
    }

    /**
     * The client meets a master restart first by sending: the new master answers its change, the
     * client resyncs with a full request — while its poll of the old master is still out. When that
     * poll fails as RESTARTED the client polls the new master (a regression: it stopped polling, and
     * never heard a hint again).
     */
    @Test
    void afterAMasterRestartItResyncedWithBeforeItsOldPollFailedTheClientPollsTheNewMaster() throws Exception {
        JobMasterClient c = connect("jm1");
        done(c.submit(WC));
        master.hint(new Hint(List.of(at("n1", 2)), List.of()));
        assertEquals("placement wc/map n1 0->2", heard.next());
        master.holdPolls();
        assertTrue(master.awaitHeldPoll(10_000), "the client's next poll is out");

        master.restart(false);
        done(c.desire(MAP, 5)); // the new master answers: the client resyncs, the change in its full request
        assertEquals("resynced 1001", heard.next());
        assertTrue(lastRequest().full());
        assertEquals(5, lastRequest().jobs().get(0).unit("map").desired());

        master.hint(new Hint(List.of(at("n2", 1)), List.of()));
        master.releasePolls(); // the old poll ends: the link's numbering started again meanwhile
        assertEquals("placement wc/map n2 0->1", heard.next(), "the client polls the new master");
    }

    /**
     * A refused release took nothing: the slots taken off at once are put back. An accepted release
     * stays taken off until a hint through its mark: a hint written before the master applied it
     * (through a smaller mark) does not give the slots back — the job master would give them back a
     * second time, and the master would take running workers' slots (docs/protocol.md, "Marks").
     */
    @Test
    void aRefusedReleasePutsTheSlotsBackAndOnlyAHintThroughItsMarkSettlesAnAcceptedOne() throws Exception {
        JobMasterClient c = connect("jm1");
        done(c.submit(WC));
        master.hint(new Hint(List.of(at("n1", 3)), List.of(), List.of(), 2));
        assertEquals("placement wc/map n1 0->3", heard.next());

        Problem tooMany = new Problem("job master jm1", "$.message.releases[0].slots",
                "unit wc/map holds 2 slots on node n1, cannot release 3", 2L, 3L);
        master.judge(r -> r.releases().isEmpty() ? List.of() : List.of(tooMany));
        InvalidRequestException refused = assertThrows(InvalidRequestException.class, () -> done(c.release(MAP, "n1", 3)));
        assertEquals(List.of(tooMany), refused.problems());
        assertEquals("placement wc/map n1 3->0", heard.next(), "taken off at once");
        assertEquals("placement wc/map n1 0->3", heard.next(), "and put back when refused");
        assertEquals(3, c.slots(MAP, "n1"));
        assertEquals(3, c.desired(MAP), "a refused release lowers no desire");

        master.judge(r -> List.of());
        done(c.release(MAP, "n1", 1));
        assertEquals("placement wc/map n1 3->2", heard.next());
        long mark = lastRequest().mark();
        master.hint(new Hint(List.of(at("n1", 3)), List.of(), List.of(), mark - 1)); // written before the release was applied
        master.hint(new Hint(List.of(at("n1", 2)), List.of(), List.of(), mark));     // written after: it counts the release
        master.hint(new Hint(List.of(at("n2", 1)), List.of(), List.of(), mark));
        assertEquals("placement wc/map n2 0->1", heard.next(), "neither hint of n1 changed what the client holds there");
        assertEquals(2, c.slots(MAP, "n1"));

        master.hint(new Hint(List.of(at("n1", 3)), List.of(), List.of(), mark));
        assertEquals("placement wc/map n1 2->3", heard.next(), "settled: a later grant there counts again");
    }

    /**
     * A request the master refuses because it wants a full one (problem field {@code $.message.full},
     * or HTTP 409: it declared the job master lost, or does not know it) makes the client say
     * everything again in a full request that carries the change; the change completes
     * (docs/recovery.md, "Timeouts").
     */
    @ParameterizedTest(name = "HTTP {0}, problem field {1}")
    @CsvSource({"400, $.message.full", "409, $"})
    void aRequestRefusedForWantOfAFullRequestIsCarriedByAResyncAndCompletes(int status, String field) throws Exception {
        JobMasterClient c = connect("jm1");
        done(c.submit(WC));
        boolean[] first = {true};
        master.judge(r -> {
            if (r.full() || !first[0]) {
                return List.of();
            }
            first[0] = false;
            return List.of(Problem.of("job master jm1", field, "job master jm1 was declared lost after 60 s of silence: send a full request"));
        }, status);

        done(c.desire(MAP, 5));

        Request full = lastRequest();
        assertTrue(full.full(), master.requests().toString());
        assertEquals(5, full.jobs().get(0).unit("map").desired(), "the full request carries the change");
        assertEquals("resynced 1000", heard.next());
        assertEquals(5, c.desired(MAP));
        done(c.desire(MAP, 6));
        assertFalse(lastRequest().full(), "deltas again after the resync");
    }

    /**
     * A worker its agent stopped (stopped=true: its slot went with the lower cap) lowers neither the
     * unit's desired count nor the holdings — whatever its code, 0 for one stopped as it finished;
     * any other exit lowers both by one, as the master did (docs/protocol.md, "Exits").
     */
    @Test
    void aStoppedExitLowersNeitherTheDesireNorTheHoldingsAndAnyOtherExitLowersBoth() throws Exception {
        JobMasterClient c = connect("jm1");
        done(c.submit(WC));
        master.hint(new Hint(List.of(at("n1", 3)), List.of()));
        assertEquals("placement wc/map n1 0->3", heard.next());

        master.hint(new Hint(List.of(), List.of(new Hint.Exit(MAP, "n1", 0, 0, true))));
        assertEquals("exit wc/map n1 slot=0 code=0", heard.next());
        assertEquals(3, c.desired(MAP));
        assertEquals(3, c.slots(MAP, "n1"));
        master.hint(new Hint(List.of(), List.of(new Hint.Exit(MAP, "n1", 1, Heartbeat.STOPPED))));
        assertEquals("exit wc/map n1 slot=1 code=-15", heard.next());
        assertEquals(3, c.desired(MAP));
        assertEquals(3, c.slots(MAP, "n1"));

        master.hint(new Hint(List.of(), List.of(new Hint.Exit(MAP, "n1", 2, 0))));
        assertEquals("placement wc/map n1 3->2", heard.next());
        assertEquals("exit wc/map n1 slot=2 code=0", heard.next());
        assertEquals(2, c.desired(MAP));
        assertEquals(2, c.slots(MAP, "n1"));
    }

    /** A hint's node states reach the listener as nodeChanged, after its placements (docs/recovery.md, "A silent node"). */
    @Test
    void aHintsNodeStatesReachTheListener() throws Exception {
        connect("jm1");
        master.hint(new Hint(List.of(at("n1", 1)), List.of(), List.of(new Hint.NodeState("n1", Hint.NodeState.LOST))));
        assertEquals("placement wc/map n1 0->1", heard.next());
        assertEquals("node n1 lost", heard.next());
        master.hint(new Hint(List.of(), List.of(), List.of(new Hint.NodeState("n1", Hint.NodeState.BACK))));
        assertEquals("node n1 back", heard.next());
    }
}

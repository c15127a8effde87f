package granary.jobmaster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import granary.api.model.JobSpec;
import granary.api.model.ManualClock;
import granary.api.model.Problem;
import granary.api.model.UnitId;
import granary.client.JobMasterClient;
import granary.protocol.Hint;
import granary.protocol.Request;
import granary.protocol.disk.Disk;
import granary.protocol.disk.FileDisk;
import granary.protocol.link.ManualLoop;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The sample job master's own recovery rules (docs/recovery.md, "Ending a job"), the shipped
 * {@link SampleJobMaster} on the shipped client, on a manual loop, against a scripted master and
 * agent ({@link ScriptedCluster}) whose answers the test orders.
 */
class SampleJobMasterRecoveryTest {

    private static final UnitId TASKS = new UnitId("j", SampleJobMaster.UNIT);
    private static final UnitId SERVICE = new UnitId("j", SampleJobMaster.SERVICE);
    private static final String AGENT = ScriptedCluster.AGENT;

    @TempDir
    Path dir;

    private final ManualLoop loop = new ManualLoop(new ManualClock(1_000_000));
    private final ScriptedCluster cluster = new ScriptedCluster();
    private final List<String> out = new CopyOnWriteArrayList<>();
    private final List<String> err = new CopyOnWriteArrayList<>();

    // ---- 15: progress across incarnations ------------------------------------------------------

    /**
     * An incarnation never writes over the progress of a later one: a job master frozen, declared
     * lost and started again elsewhere must not, when it thaws, put back its older view (its successor
     * would run again what it finished meanwhile). A later one takes over the file (docs/recovery.md,
     * "Ending a job").
     */
    @Test
    void anEarlierIncarnationNeverWritesOverTheProgressOfALaterOne() throws Exception {
        Progress p = new Progress(new FileDisk(dir));
        TaskBoard tasks = new TaskBoard(2, 0);
        TaskBoard services = new TaskBoard(0, Integer.MAX_VALUE);
        p.store("j", 9, tasks, services);
        tasks.launch(0, "n1");
        tasks.ended(tasks.slot(0), "n1", 0);

        Progress.Superseded ex = assertThrows(Progress.Superseded.class, () -> p.store("j", 5, tasks, services));
        assertTrue(ex.getMessage().startsWith("incarnation 9 of this job master writes"), ex.getMessage());
        Progress.State kept = p.load(0).state();
        assertEquals(9, kept.incarnation());
        assertEquals(TaskBoard.State.WAITING, kept.tasks().get(0).state(), "the later incarnation's view stays");

        p.store("j", 12, tasks, services);
        assertEquals(12, p.load(0).state().incarnation(), "a later incarnation takes the file over");
        assertEquals(TaskBoard.State.SUCCEEDED, p.load(0).state().tasks().get(0).state());
    }

    /**
     * A running job master that finds its progress written by a later incarnation stops: its outcome
     * is the fenced exit (7), it says "superseded", and the file keeps the later incarnation's view
     * (docs/recovery.md, "Ending a job").
     */
    @Test
    void aJobMasterWhoseProgressALaterIncarnationWritesExitsAsFencedAndLeavesThatProgressAlone() throws Exception {
        Disk disk = new FileDisk(dir);
        SampleJobMaster jm = start(settings("--tasks=2"), disk, 5);
        cluster.hint(new Hint(List.of(at(TASKS, 2)), List.of()));
        loop.advance(300, 50);
        assertEquals(2, cluster.launches().size(), out.toString());
        assertEquals(5, new Progress(disk).load(0).state().incarnation());

        // started again elsewhere while this one was frozen, the next incarnation writes its progress
        new Progress(disk).store("j", 9, new TaskBoard(2, 0), new TaskBoard(0, Integer.MAX_VALUE));
        cluster.hint(new Hint(List.of(at(TASKS, 1)), List.of(new Hint.Exit(TASKS, "n1", 0, 0))));
        loop.advance(300, 50);

        assertTrue(jm.outcome().isDone(), out.toString());
        assertEquals(Main.FENCED, jm.outcome().getNow(null).code());
        assertTrue(out.stream().anyMatch(l -> l.startsWith("superseded incarnation 9 of this job master writes")), out.toString());
        Progress.State s = new Progress(disk).load(0).state();
        assertEquals(9, s.incarnation());
        assertEquals(List.of(TaskBoard.State.WAITING, TaskBoard.State.WAITING), s.tasks().stream().map(TaskBoard.Entry::state).toList(),
                "the later incarnation's progress is not overwritten");
    }

    /**
     * A job master that learns it is superseded as its last task ends sends nothing more: in
     * particular not the cancel of the job that its successor now runs (docs/recovery.md, "Ending a
     * job": an incarnation superseded by a later one exits instead).
     */
    @Test
    void aJobMasterSupersededAsItsLastTaskEndsDoesNotCancelTheJobItsSuccessorRuns() throws Exception {
        Disk disk = new FileDisk(dir);
        SampleJobMaster jm = start(settings("--tasks=1", "--online=1"), disk, 5);
        cluster.hint(new Hint(List.of(at(SERVICE, 1), at(TASKS, 1)), List.of()));
        loop.advance(300, 50);
        int asked = cluster.requests().size();

        new Progress(disk).store("j", 9, new TaskBoard(1, 0), new TaskBoard(1, Integer.MAX_VALUE));
        cluster.hint(new Hint(List.of(at(TASKS, 0)), List.of(new Hint.Exit(TASKS, "n1", 0, 0))));
        loop.advance(300, 50);

        assertEquals(Main.FENCED, jm.outcome().getNow(null).code(), out.toString());
        assertEquals(List.of(), cluster.requests().subList(asked, cluster.requests().size()),
                "a superseded job master says nothing more to the master");
    }

    /**
     * A job master started again with all its tasks done asks for nothing: neither tasks nor its
     * service, whose workers its predecessor may have been stopping (docs/recovery.md, "Ending a job").
     */
    @Test
    void aJobMasterRestartedWithAllItsTasksDoneAsksForNoServiceSlots() throws Exception {
        Disk disk = new FileDisk(dir);
        TaskBoard tasks = new TaskBoard(2, 0);
        for (int t = 0; t < 2; t++) {
            tasks.launch(t, "n1");
            tasks.ended(tasks.slot(t), "n1", 0);
        }
        TaskBoard services = new TaskBoard(2, Integer.MAX_VALUE);
        services.launch(0, "n1");
        services.launch(1, "n2");
        new Progress(disk).store("j", 5, tasks, services);
        Settings s = settings("--tasks=2", "--online=2");

        JobSpec fresh = new SampleJobMaster(s, loop, null, out::add, err::add).jobs().get(0);
        assertEquals(2, fresh.unit(SampleJobMaster.SERVICE).desired());
        assertEquals(2, fresh.unit(SampleJobMaster.UNIT).desired());

        SampleJobMaster again = new SampleJobMaster(s, loop, disk, out::add, err::add);
        again.load();
        JobSpec resumed = again.jobs().get(0);
        assertEquals(0, resumed.unit(SampleJobMaster.SERVICE).desired(), "no service for a job that is done");
        assertEquals(0, resumed.unit(SampleJobMaster.UNIT).desired());
    }

    // ---- 16: a cancelled job stays cancelled ---------------------------------------------------

    /**
     * A desire sent while the job ran (its service worker crashed) and refused after the job ended
     * and was cancelled does not submit the job again: the job is over (docs/recovery.md, "Ending a
     * job"; the finishing guards of SampleJobMaster).
     */
    @Test
    void aDesireRefusedAfterTheJobEndedDoesNotSubmitTheCancelledJobAgain() throws Exception {
        SampleJobMaster jm = start(settings("--tasks=1", "--online=1"), null, 5);
        cluster.hint(new Hint(List.of(at(SERVICE, 1), at(TASKS, 1)), List.of()));
        loop.advance(300, 50);
        assertEquals(2, cluster.launches().size(), out.toString());

        cluster.holdNext(r -> !r.desires().isEmpty());
        cluster.hint(new Hint(List.of(at(SERVICE, 0)), List.of(new Hint.Exit(SERVICE, "n1", 0, 1))));
        loop.advance(300, 50);
        assertNotNull(cluster.held(), "the service's slot is asked for again: " + cluster.requests());
        assertEquals(List.of(new Request.Desire(SERVICE, 1)), cluster.held().desires());

        cluster.hint(new Hint(List.of(at(TASKS, 0)), List.of(new Hint.Exit(TASKS, "n1", 0, 0))));
        loop.advance(300, 50); // the only task succeeded: the job is done, its cancel waits behind the held request
        cluster.judge(r -> r.desires().isEmpty() ? List.of()
                : List.of(Problem.of("job master jm1", "$.message.desires[0].unit", "job j is not known to this master")));
        cluster.release();
        loop.advance(1_000, 50);

        List<Request> after = cluster.requests().subList(1, cluster.requests().size());
        assertTrue(after.stream().anyMatch(r -> r.cancels().equals(List.of("j"))), after.toString());
        assertTrue(after.stream().allMatch(r -> !r.full() && r.jobs().isEmpty()), "never submitted again: " + after);
        assertTrue(jm.outcome().isDone(), out.toString());
        assertEquals(Main.SUCCEEDED, jm.outcome().getNow(null).code());
    }

    /**
     * An exit that comes again after the job was cancelled (a master that restarted reports it
     * twice) asks for no slot and submits nothing; the job master ends once its service worker's
     * end came (docs/recovery.md, "Ending a job").
     */
    @Test
    void anExitThatComesAgainAfterTheCancelAsksForNothing() throws Exception {
        SampleJobMaster jm = start(settings("--tasks=1", "--online=1"), null, 5);
        cluster.hint(new Hint(List.of(at(SERVICE, 1), at(TASKS, 1)), List.of()));
        loop.advance(300, 50);
        cluster.hint(new Hint(List.of(at(TASKS, 0)), List.of(new Hint.Exit(TASKS, "n1", 0, 0))));
        loop.advance(300, 50);
        assertTrue(out.contains("cancelled job=j service=1"), out.toString());
        assertTrue(!jm.outcome().isDone(), "its service worker has not ended yet");
        int asked = cluster.requests().size();

        cluster.hint(new Hint(List.of(), List.of(new Hint.Exit(TASKS, "n1", 0, 0))));
        loop.advance(300, 50);
        assertEquals(asked, cluster.requests().size(), "nothing asked, nothing submitted: " + cluster.requests());

        cluster.hint(new Hint(List.of(at(SERVICE, 0)), List.of(new Hint.Exit(SERVICE, "n1", 0, -15))));
        loop.advance(300, 50);
        assertEquals(Main.SUCCEEDED, jm.outcome().getNow(null).code(), out.toString());
        assertEquals(asked, cluster.requests().size());
    }

    // ---- helpers -----------------------------------------------------------------------------------

    private static Settings settings(String... extra) {
        List<String> args = new ArrayList<>(List.of("--master=" + ScriptedCluster.MASTER, "--token-file=unused", "--job=j",
                "--id=jm1", "--command=true", "--verify=0", "--restartable=off", "--state=off"));
        args.addAll(List.of(extra));
        return Settings.parse(args.toArray(new String[0]));
    }

    private static Hint.Placement at(UnitId unit, int slots) {
        return new Hint.Placement(unit, "n1", slots, AGENT);
    }

    /** Starts the job master (its progress on {@code state}, or none) as incarnation {@code incarnation}, connected. */
    private SampleJobMaster start(Settings s, Disk state, long incarnation) throws IOException {
        SampleJobMaster jm = new SampleJobMaster(s, loop, state, out::add, err::add);
        jm.load();
        JobMasterClient.Options o = JobMasterClient.Options.defaults().withPollWait(Duration.ZERO)
                .withPollPause(Duration.ofMillis(100)).withLaunchPatience(Duration.ofSeconds(3))
                .withConnectPatience(Duration.ofSeconds(60));
        JobMasterClient client = JobMasterClient.start(List.of(URI.create(ScriptedCluster.MASTER)), "jm1", FakeCluster.token("jm1"),
                incarnation, o, jm, jm.jobs(), loop, cluster);
        client.connected().whenComplete((v, ex) -> {
            if (ex == null) {
                jm.start(client);
            }
        });
        loop.runDue();
        assertTrue(client.connected().isDone() && !client.connected().isCompletedExceptionally(), out + " " + err);
        assertTrue(cluster.requests().get(0).full());
        return jm;
    }
}

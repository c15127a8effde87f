package granary.planner.push;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import granary.planner.MasterProcess;
import granary.planner.connect.ConnectionViewModel;
import granary.planner.master.ApiError;
import granary.planner.master.MasterClient;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Import and push against a real master (the runnable jar on a loopback port, quota policy with the
 * article's table in force): connect, import the table in force, dry run → diff, apply → in force;
 * a reader's token, an invalid table and a table changed by someone else in between are refused with
 * the master's problems and change nothing (docs/planner.md, "Pushing a table").
 */
class PushIT {

    static final String ARTICLE = """
            { "default": { "group1": {"GroupId":1,"MaxQuota":5000,"MinQuota":3000},
                           "group2": {"GroupId":2,"MaxQuota":5000,"MinQuota":2000} },
              "0-9":     { "group1": {"GroupId":1,"MaxQuota":15000,"MinQuota":10000},
                           "group3": {"GroupId":3,"MaxQuota":3000,"MinQuota":3000} } }
            """;
    static final String SPANS = "default:5000,0-9:15000";

    @TempDir
    static Path dir;
    static MasterProcess master;
    static String admin;
    static String reader;

    /** The UI thread of these tests: every update a view model publishes is run here, in order. */
    private final LinkedBlockingQueue<Runnable> uiQueue = new LinkedBlockingQueue<>();
    private final Executor ui = uiQueue::add;
    private static final ExecutorService background = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "push-it");
        t.setDaemon(true);
        return t;
    });

    @BeforeAll
    static void start() throws Exception {
        Files.writeString(dir.resolve("quota.json"), ARTICLE);
        master = MasterProcess.start(dir, "--demo=false",
                "--config=granary.policy.quota:tableFile=" + dir.resolve("quota.json") + ",workerSpans=" + SPANS);
        admin = master.token("admin/planner");
        reader = master.token("reader/rita");
    }

    @AfterAll
    static void stop() throws Exception {
        if (master != null) {
            master.close();
        }
        background.shutdownNow();
    }

    /** Runs UI updates until {@code done}, with a deadline. */
    private void until(String what, BooleanSupplier done) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!done.getAsBoolean()) {
            long left = deadline - System.nanoTime();
            assertTrue(left > 0, "timed out waiting for " + what + "; master log:\n" + master.log());
            Runnable r = uiQueue.poll(Math.min(left, TimeUnit.MILLISECONDS.toNanos(200)), TimeUnit.NANOSECONDS);
            if (r != null) {
                r.run();
            }
        }
    }

    private ConnectionViewModel connected(String token) throws InterruptedException {
        ConnectionViewModel c = new ConnectionViewModel(ui, background);
        c.urlProperty().set(master.url());
        c.tokenProperty().set(token);
        c.connect();
        until("connected", () -> c.clientProperty().get() != null || !c.busyProperty().get());
        assertNotNull(c.clientProperty().get(), c.stateProperty().get());
        assertTrue(c.stateProperty().get().startsWith("connected: "), c.stateProperty().get());
        return c;
    }

    @Test
    void importDryRunConfirmApply() throws Exception {
        ConnectionViewModel c = connected(admin);
        List<MasterClient.InForce> imported = new ArrayList<>();
        List<String> failed = new ArrayList<>();
        c.importTable(imported::add, failed::add);
        until("imported", () -> !imported.isEmpty() || !failed.isEmpty());
        assertEquals(List.of(), failed);
        assertTrue(imported.get(0).tableJson().contains("\"group3\""), imported.get(0).tableJson());
        assertEquals(SPANS, imported.get(0).workerSpans());

        String draft = ARTICLE.replace("\"MaxQuota\":3000,\"MinQuota\":3000", "\"MaxQuota\":4000,\"MinQuota\":3000");
        PushViewModel push = new PushViewModel(ui, background);
        push.masterProperty().bind(c.clientProperty());
        push.draftSource(() -> new PushViewModel.Draft(draft, SPANS));
        push.preview();
        until("the dry run", () -> push.stepProperty().get() != PushViewModel.Step.CHECKING);
        assertEquals(PushViewModel.Step.REVIEW, push.stepProperty().get(), push.messageProperty().get());
        assertEquals(List.of("~ $[\"0-9\"].group3.MaxQuota: 3000 -> 4000"), push.diff());
        assertEquals(List.of("group3 00:00-09:00: 3000/3000 -> 3000/4000"), push.effect(), "the effect per group and hour, before the diff");
        push.requestApply();
        assertTrue(push.confirmingProperty().get(), "Apply asks once");
        assertTrue(push.messageProperty().get().startsWith("apply 1 change(s) to the master's table in force? 1 change(s) of a group's quota"),
                push.messageProperty().get());
        assertTrue(master.token("reader/x") != null);
        assertTrue(new MasterClient(URI.create(master.url()), reader).table().tableJson().contains("3000"),
                "a dry run changes nothing");

        push.apply();
        until("the load", () -> push.stepProperty().get() != PushViewModel.Step.APPLYING);
        assertEquals(PushViewModel.Step.APPLIED, push.stepProperty().get(), push.messageProperty().get() + " " + push.problems());
        assertTrue(new MasterClient(URI.create(master.url()), reader).table().tableJson().contains("\"MaxQuota\":4000"),
                "the draft is in force");

        // back to the article's table, for the other tests
        new MasterClient(URI.create(master.url()), admin).putTable(ARTICLE, SPANS, null, false);
    }

    @Test
    void refusalsAreShownWithTheMastersProblemsAndChangeNothing() throws Exception {
        MasterClient probe = new MasterClient(URI.create(master.url()), reader);
        String before = probe.table().revision();

        PushViewModel asReader = new PushViewModel(ui, background);
        asReader.masterProperty().bind(connected(reader).clientProperty());
        asReader.draftSource(() -> new PushViewModel.Draft(ARTICLE, SPANS));
        asReader.preview();
        until("refused", () -> asReader.stepProperty().get() == PushViewModel.Step.REFUSED);
        assertTrue(asReader.messageProperty().get().startsWith("this token may not push: the master refused (403 forbidden)"), asReader.messageProperty().get());

        PushViewModel push = new PushViewModel(ui, background);
        push.masterProperty().bind(connected(admin).clientProperty());
        String tooMuchMin = ARTICLE.replace("\"MaxQuota\":15000,\"MinQuota\":10000", "\"MaxQuota\":15000,\"MinQuota\":14000");
        push.draftSource(() -> new PushViewModel.Draft(tooMuchMin, SPANS));
        push.preview();
        until("refused", () -> push.stepProperty().get() == PushViewModel.Step.REFUSED);
        assertTrue(push.messageProperty().get().contains("400 invalid-request"), push.messageProperty().get());
        assertTrue(push.problems().stream().anyMatch(p -> p.contains("slice 0-9") && p.contains("sum of MinQuota 17000 > WorkerSpans 15000")),
                push.problems().toString());

        // someone else loads a table between the dry run and Apply: the stale draft is refused
        String mine = ARTICLE.replace("\"MaxQuota\":5000,\"MinQuota\":2000", "\"MaxQuota\":6000,\"MinQuota\":2000");
        push.draftSource(() -> new PushViewModel.Draft(mine, SPANS));
        push.preview();
        until("the dry run", () -> push.stepProperty().get() == PushViewModel.Step.REVIEW);
        String theirs = ARTICLE.replace("\"MaxQuota\":5000,\"MinQuota\":3000", "\"MaxQuota\":7000,\"MinQuota\":3000");
        new MasterClient(URI.create(master.url()), admin).putTable(theirs, SPANS, null, false);
        push.apply();
        until("refused", () -> push.stepProperty().get() == PushViewModel.Step.REFUSED);
        assertTrue(push.messageProperty().get().contains("409 stale-revision"), push.messageProperty().get());
        assertTrue(probe.table().tableJson().contains("\"MaxQuota\":7000"), "their table stays in force");

        push.draftSource(() -> null);
        push.preview();
        assertEquals(PushViewModel.Step.REFUSED, push.stepProperty().get());
        assertTrue(push.messageProperty().get().contains("the draft has problems"), push.messageProperty().get());

        new MasterClient(URI.create(master.url()), admin).putTable(ARTICLE, SPANS, null, false);
        assertEquals(before, probe.table().revision(), "the article's table again, the same revision");
    }

    @Test
    void aWrongTokenOrAddressSaysWhat() throws Exception {
        ConnectionViewModel c = new ConnectionViewModel(ui, background);
        c.urlProperty().set(master.url());
        c.tokenProperty().set("forged.token");
        c.connect();
        until("refused", () -> !c.busyProperty().get());
        assertEquals(null, c.clientProperty().get());
        assertTrue(c.stateProperty().get().contains("refused the token (401)"), c.stateProperty().get());

        c.urlProperty().set("127.0.0.1:7070");
        c.connect();
        assertTrue(c.stateProperty().get().contains("is not a URL such as http://127.0.0.1:7070"), c.stateProperty().get());

        try {
            new MasterClient(URI.create("http://127.0.0.1:1"), admin).status();
        } catch (ApiError e) {
            assertEquals(0, e.status());
            assertEquals("the master at http://127.0.0.1:1 is not reachable: nothing answers there (is it running, and is this its "
                    + "address and port?)", e.getMessage(), "in a planner's words");
            assertTrue(e.details().startsWith("ConnectException"), "the cause on the details line: " + e.details());
            return;
        }
        throw new AssertionError("port 1 answered");
    }
}

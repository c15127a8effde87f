package granary.planner.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import javafx.scene.control.Label;
import javafx.scene.control.TabPane;

import granary.planner.MasterProcess;
import granary.planner.master.MasterClient;
import granary.planner.push.PushViewModel;
import granary.policy.quota.api.TimeSlice;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.testfx.api.FxRobot;
import org.testfx.api.FxToolkit;
import org.testfx.util.WaitForAsyncUtils;

/**
 * The "done when", end to end, in the whole planner window (headless) against a real master
 * process (the demo cluster for traffic, the article's table in force): connect from the command
 * line, import the table in force, see a WorkerSpans violation appear and disappear as a slice is
 * resized, replay the bundled Alibaba trace through the draft against the table in force, push the
 * draft (dry run, diff, apply), and watch the heatmap's frames move.
 */
class PlannerIT {

    static final String SPANS = "default:5000,0-9:15000";

    @TempDir
    static Path dir;
    static MasterProcess master;
    static PlannerApp app;
    static final FxRobot robot = new FxRobot();

    @BeforeAll
    static void start() throws Exception {
        Path article = Path.of("examples/article-table.json");
        // the demo cluster's jobs go to the table's groups: funded, they are granted, and the heatmap moves
        master = MasterProcess.start(dir, "--config=granary.policy.quota:tableFile=" + article.toAbsolutePath() + ",workerSpans=" + SPANS,
                "--config=granary.demo:groups=group1|group2|group3");
        String admin = master.token("admin/planner");
        FxToolkit.registerPrimaryStage();
        app = (PlannerApp) FxToolkit.setupApplication(PlannerApp.class, "--master=" + master.url(), "--token=" + admin,
                "--trace=" + Path.of("../bundles/granary.sim/src/test/resources/traces/alibaba-v2017-batch-task/batch_task.csv.gz").toAbsolutePath(),
                "--max-jobs=150");
    }

    @AfterAll
    static void stop() throws Exception {
        try {
            FxToolkit.cleanupApplication(app);
            FxToolkit.cleanupStages();
        } finally {
            if (master != null) {
                master.close();
            }
        }
    }

    private static void await(String what, int seconds, Callable<Boolean> done, Supplier<String> state) throws Exception {
        try {
            WaitForAsyncUtils.waitFor(seconds, TimeUnit.SECONDS, () -> WaitForAsyncUtils.asyncFx(done).get());
        } catch (java.util.concurrent.TimeoutException e) {
            throw new AssertionError("no " + what + " within " + seconds + " s: " + state.get() + "\nmaster log:\n" + master.log(), e);
        }
    }

    private static <T> T fx(Callable<T> c) throws Exception {
        return WaitForAsyncUtils.asyncFx(c).get(30, TimeUnit.SECONDS);
    }

    private static void select(String tabId) throws Exception {
        fx(() -> {
            TabPane tabs = (TabPane) robot.lookup(".tab-pane").query();
            tabs.getSelectionModel().select(tabs.getTabs().stream().filter(t -> (tabId + "Tab").equals(t.getId())).findFirst().orElseThrow());
            return null;
        });
    }

    @Test
    void drawReplayPushAndWatch() throws Exception {
        await("connection", 60, () -> app.connection.clientProperty().get() != null, () -> app.connection.stateProperty().get());

        // import the table in force: it is the editor's draft and the what-if's "in force"
        robot.clickOn("#importTable");
        await("import", 30, () -> app.whatIf.inForceProperty().get() != null, () -> robot.lookup("#status").queryAs(Label.class).getText());
        assertTrue(fx(() -> app.editor.validTableProperty().get() != null), () -> app.editor.problems().toString());
        assertEquals(SPANS, fx(() -> app.editor.workerSpansText()));

        // the 0-9 slice grows and its WorkerSpans entry goes with it; put back at 0-9, a violation appears
        // (0-11 falls back to default's 5000 workers), and goes as the slice shrinks back onto its entry
        TimeSlice grown = fx(() -> app.editor.resizeSlice(new TimeSlice(0, 9), 0, 2));
        assertEquals(new TimeSlice(0, 11), grown);
        assertEquals("default:5000,0-11:15000", fx(() -> app.editor.workerSpansText()));
        assertTrue(fx(() -> app.editor.problems().isEmpty()), () -> app.editor.problems().toString());
        assertTrue(fx(() -> app.editor.putSpansBack()));
        assertTrue(fx(() -> app.editor.problems().stream().anyMatch(p -> p.message().contains("sum of MinQuota 13000 > WorkerSpans 5000"))),
                () -> app.editor.problems().toString());
        assertNull(fx(() -> app.editor.validTableProperty().get()), "a table with problems cannot be pushed");
        fx(() -> app.editor.resizeSlice(grown, 0, -2));
        assertTrue(fx(() -> app.editor.problems().isEmpty()), () -> app.editor.problems().toString());

        // the draft: more for group3 in the morning
        assertTrue(fx(() -> app.editor.setQuota(new TimeSlice(0, 9), "group3", 3000, 4000)), () -> app.editor.messageProperty().get());

        // what-if: the bundled Alibaba trace through the draft and the table in force
        select("whatif");
        robot.clickOn("#run");
        await("the what-if", 120, () -> !app.whatIf.runningProperty().get() && app.whatIf.resultProperty().get() != null,
                () -> app.whatIf.statusProperty().get());
        assertEquals(150, fx(() -> app.whatIf.resultProperty().get().draft().jobs()));
        assertEquals(150, fx(() -> app.whatIf.resultProperty().get().inForce().jobs()));

        // the article's table leaves group2 with nothing from 0 to 9: a warning acknowledged before a push
        select("table");
        assertTrue(fx(() -> app.editor.pushBlockerProperty().get()).contains("group2 gets nothing 00:00-09:00"),
                () -> robot.lookup("#status").queryAs(Label.class).getText());
        robot.clickOn("#acknowledgeAll");
        assertNull(fx(() -> app.editor.pushBlockerProperty().get()));

        // push: dry run, the diff, apply
        select("push");
        robot.clickOn("#preview");
        await("the dry run", 30, () -> app.push.stepProperty().get() == PushViewModel.Step.REVIEW, () -> app.push.messageProperty().get());
        assertEquals("[~ $[\"0-9\"].group3.MaxQuota: 3000 -> 4000]", fx(() -> app.push.diff().toString()));
        assertEquals("[group3 00:00-09:00: 3000/3000 -> 3000/4000]", fx(() -> app.push.effect().toString()));
        robot.clickOn("#apply");
        assertTrue(fx(() -> app.push.confirmingProperty().get()), "Apply asks once, with the summary");
        assertEquals(PushViewModel.Step.REVIEW, fx(() -> app.push.stepProperty().get()), "nothing sent before the answer");
        robot.clickOn("#confirmApply");
        await("the load", 30, () -> app.push.stepProperty().get() == PushViewModel.Step.APPLIED, () -> app.push.messageProperty().get());
        MasterClient.InForce now = new MasterClient(URI.create(master.url()), master.token("reader/check")).table();
        String inForce = now.tableJson();
        assertTrue(inForce.contains("\"MaxQuota\":4000"), inForce);
        // nothing stale: the what-if's baseline is the revision just applied, and its earlier result says it is out of date
        await("the what-if's baseline re-read", 30, () -> now.revision().equals(app.whatIf.inForceRevisionProperty().get()),
                () -> app.whatIf.baselineProperty().get());
        assertTrue(fx(() -> app.whatIf.baselineProperty().get()).startsWith("out of date: this result compared with revision "),
                () -> app.whatIf.baselineProperty().get());

        // live: the demo cluster's heatmap frames move
        select("live");
        await("a first frame", 60, () -> app.live.frameProperty().get() != null, () -> app.live.connectionTextProperty().get());
        long first = fx(() -> app.live.frameProperty().get().eventsApplied());
        await("the heatmap moving", 60, () -> app.live.frameProperty().get().eventsApplied() > first, () -> app.live.connectionTextProperty().get());
        assertNotNull(robot.lookup("#heatmap").query());
        Files.writeString(dir.resolve("done"), "ok");
    }
}

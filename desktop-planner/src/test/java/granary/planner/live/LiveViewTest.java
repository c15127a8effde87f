package granary.planner.live;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;
import org.testfx.util.WaitForAsyncUtils;

import javafx.application.Platform;
import javafx.geometry.Point2D;
import javafx.scene.Scene;
import javafx.scene.canvas.Canvas;
import javafx.scene.control.Label;
import javafx.scene.control.ListCell;
import javafx.scene.control.TextArea;
import javafx.scene.image.WritableImage;
import javafx.scene.paint.Color;
import javafx.stage.Stage;

import granary.planner.Png;

/**
 * The live view on a (headless) screen, end to end against a fake master: connect, read the recorded
 * stream, draw the heatmap — an idle node's cell is the idle colour, a full node's the full colour —
 * then click a job and read its why; click a node and read who holds it.
 */
@ExtendWith(ApplicationExtension.class)
class LiveViewTest {

    private FakeMaster master;
    private LiveViewModel vm;
    private LiveView view;

    @Start
    void start(Stage stage) throws IOException {
        master = new FakeMaster();
        master.on("/api/v1/stream", r -> FakeMaster.Answer.stream(FakeMaster.resource("/live/recorded.sse"), true));
        master.offeringTableAt("/api/v1/quota");
        master.on("/api/v1/quota", r -> FakeMaster.Answer.json(409, "{\"type\":\"/api/v1/problems/policy-not-installed\",\"status\":409,"
                + "\"detail\":\"the quota policy is not installed\"}"));
        master.on("/api/v1/jobs/j3/why", r -> FakeMaster.Answer.json(200, "{\"job\":\"j3\",\"queue\":\"root.a\",\"state\":\"running\","
                + "\"waitingSlots\":2,\"units\":[],\"sentences\":[\"j3/u1 waits for 2 slots: no node has 8 cpu free (best 4), 17 times.\"]}"));
        master.on("/api/v1/jobs", r -> FakeMaster.Answer.json(200, "{\"items\":[{\"id\":\"j9\",\"queue\":\"root.b\",\"state\":\"waiting\","
                + "\"desired\":4,\"granted\":0}],\"total\":1,\"offset\":0,\"limit\":200}"));
        master.on("/api/v1/jobs/j9/why", r -> FakeMaster.Answer.json(200, "{\"job\":\"j9\",\"queue\":\"root.b\",\"state\":\"waiting\","
                + "\"waitingSlots\":4,\"units\":[],\"sentences\":[\"j9/u1 waits for 4 slots: root.b is at its max.\"]}"));
        vm = new LiveViewModel(Platform::runLater, new LiveViewModel.Timing(33, 60_000, 50, 100, 1000, 10_000));
        view = new LiveView(vm);
        stage.setScene(new Scene(view, 1100, 700));
        stage.show();
    }

    @AfterEach
    void stop() throws TimeoutException {
        if (vm != null) {
            WaitForAsyncUtils.waitFor(5, TimeUnit.SECONDS, WaitForAsyncUtils.asyncFx(() -> vm.close()));
        }
        if (master != null) {
            master.close();
        }
    }

    private static <T> T fx(Callable<T> c) {
        return WaitForAsyncUtils.waitForAsyncFx(5000, c);
    }

    private static void await(String what, BooleanSupplier done) throws TimeoutException {
        WaitForAsyncUtils.waitFor(10, TimeUnit.SECONDS, () -> fx(done::getAsBoolean));
    }

    private static void assertColour(Color expected, Color actual, String what) {
        double d = Math.abs(expected.getRed() - actual.getRed()) + Math.abs(expected.getGreen() - actual.getGreen())
                + Math.abs(expected.getBlue() - actual.getBlue());
        assertTrue(d < 0.03, what + ": expected " + expected + ", got " + actual);
    }

    @Test
    void theHeatmapShowsTheStreamAndAJobsWhyIsOneClickAway(FxRobot robot) throws Exception {
        robot.clickOn("#url").eraseText(30).write(master.uri().toString());
        robot.clickOn("#token").write("reader-token");
        robot.clickOn("#connect");
        await("the recorded stream applied", () -> vm.frameProperty().get() != null && vm.frameProperty().get().eventsApplied() == 10);
        WaitForAsyncUtils.waitForFxEvents();
        assertEquals("Bearer reader-token", master.requests("/api/v1/stream").get(0).authorization());

        Canvas canvas = robot.lookup("#heatmap").queryAs(Canvas.class);
        HeatmapView map = (HeatmapView) canvas.getParent();
        WritableImage shot = fx(() -> canvas.snapshot(null, null));
        Png.write(shot, Path.of("target/live-heatmap.png"));
        Point2D idle = fx(() -> map.cellCentre("n2"));
        Point2D full = fx(() -> map.cellCentre("n3"));
        Point2D half = fx(() -> map.cellCentre("n1"));
        assertNotNull(idle, "n2 drawn");
        assertNotNull(full, "n3 drawn");
        Color idleColour = shot.getPixelReader().getColor((int) idle.getX(), (int) idle.getY());
        Color fullColour = shot.getPixelReader().getColor((int) full.getX(), (int) full.getY());
        Color halfColour = shot.getPixelReader().getColor((int) half.getX(), (int) half.getY());
        assertColour(HeatmapView.colour(0), idleColour, "idle n2");
        assertColour(HeatmapView.colour(1), fullColour, "full n3");
        assertColour(HeatmapView.colour(0.5), halfColour, "n1 at 50 %");
        assertTrue(!idleColour.equals(fullColour));
        assertTrue(fx(() -> vm.frameTimes().count()) > 0, "redraws are timed");

        // a node's click names the jobs holding slots on it
        Point2D onScreen = fx(() -> canvas.localToScreen(half));
        robot.clickOn(onScreen);
        await("n1's jobs", () -> vm.nodeDetailProperty().get().contains("jobs: j1, j2"));
        String detail = fx(() -> vm.nodeDetailProperty().get());
        assertTrue(detail.startsWith("n1 in room ") && detail.contains(" cores, memory ") && detail.contains(" MiB"), detail);
        // the per-room summary
        await("rooms summed", () -> !vm.roomRows().isEmpty());
        assertTrue(fx(() -> vm.roomRows().get(0).text()).matches(".+: \\d+ nodes, \\d+% granted on average; cpu .+ cores, memory .+ GiB.*"),
                fx(() -> vm.roomRows().get(0).text()));

        // a job's click shows why it waits
        await("j3 listed", () -> vm.jobs().stream().anyMatch(j -> j.job().equals("j3")));
        WaitForAsyncUtils.waitForFxEvents();
        ListCell<?> j3 = robot.lookup("#jobs .list-cell").queryAllAs(ListCell.class).stream()
                .filter(c -> c.getText() != null && c.getText().startsWith("j3 ")).findFirst().orElseThrow();
        robot.clickOn(j3);
        TextArea why = robot.lookup("#why").queryAs(TextArea.class);
        await("j3's why shown", () -> why.getText().contains("no node has 8 cpu free (best 4)"));
        assertEquals(1, master.requests("/api/v1/jobs/j3/why").size());
        Png.write(fx(() -> view.snapshot(null, null)), Path.of("target/live-view.png"));

        // a waiting job holds no grant: it is listed apart, and a click asks why it waits
        await("j9 listed as waiting", () -> vm.waitingJobs().stream().anyMatch(j -> j.startsWith("j9 ")));
        assertEquals("1 job waits: click one for why", fx(() -> vm.waitingTextProperty().get()));
        WaitForAsyncUtils.waitForFxEvents();
        ListCell<?> j9 = robot.lookup("#waitingJobs .list-cell").queryAllAs(ListCell.class).stream()
                .filter(c -> c.getText() != null && c.getText().startsWith("j9 ")).findFirst().orElseThrow();
        robot.clickOn(j9);
        await("j9's why shown", () -> why.getText().contains("root.b is at its max"));

        // disconnected: the map is the past, greyed out, and says since when
        Label banner = robot.lookup("#staleBanner").queryAs(Label.class);
        assertFalse(fx(banner::isVisible), "live: no banner");
        robot.clickOn("#disconnect");
        await("stale", () -> vm.staleProperty().get());
        WaitForAsyncUtils.waitForFxEvents();
        assertTrue(fx(banner::isVisible));
        assertTrue(fx(banner::getText).matches("disconnected: not live, last update \\d\\d:\\d\\d:\\d\\d"), fx(banner::getText));
        WritableImage grey = fx(() -> map.snapshot(null, null));
        Png.write(grey, Path.of("target/live-heatmap-stale.png"));
        Color was = grey.getPixelReader().getColor((int) full.getX(), (int) full.getY());
        assertTrue(Math.abs(was.getRed() - was.getGreen()) < 0.03 && Math.abs(was.getGreen() - was.getBlue()) < 0.03,
                "a full node is grey while not live: " + was);
    }

    @Test
    void thePaletteIsViridisAndItsLightnessRisesWithUtilisation() {
        assertColour(Color.web("#440154"), HeatmapView.colour(0), "idle");
        assertColour(Color.web("#21918c"), HeatmapView.colour(0.5), "half");
        assertColour(Color.web("#fde725"), HeatmapView.colour(1), "full");
        double last = -1;
        for (int p = 0; p <= 100; p += 5) {
            Color c = HeatmapView.colour(p / 100.0);
            double luminance = 0.2126 * c.getRed() + 0.7152 * c.getGreen() + 0.0722 * c.getBlue();
            assertTrue(luminance > last, "lightness rises at " + p + " %: read in grey or by any colour vision");
            last = luminance;
        }
        assertEquals("Overused (borrowing from the shared pool: above min, below max)", QuotaSummary.stateName("OVERUSED"));
        assertEquals("12.5", NodeText.cores(1250));
        assertEquals("64", NodeText.cores(6400));
    }
}

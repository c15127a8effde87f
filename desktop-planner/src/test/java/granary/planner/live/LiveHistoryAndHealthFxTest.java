package granary.planner.live;

import static org.junit.jupiter.api.Assertions.assertEquals;
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
import javafx.scene.image.WritableImage;
import javafx.scene.paint.Color;
import javafx.stage.Stage;

import granary.planner.Png;
import granary.planner.live.model.Frame;
import granary.planner.live.model.UsageHistory;

/**
 * The live view's last hour and the agents' reports, on a headless screen against a fake master: the
 * groups' history strip keeps what it saw across a Disconnect and Connect, the time between drawn as a
 * shaded gap; what a node's agent reports in use is shown beside what is granted (node, room), and an
 * unhealthy node is marked on the map with its reason one click away.
 */
@ExtendWith(ApplicationExtension.class)
class LiveHistoryAndHealthFxTest {

    private static final String AGENTS = """
            {"items":[
              {"node":"n1","state":"live","used":{"cpu":250,"mem":4096}},
              {"node":"n2","state":"live"},
              {"node":"n3","state":"live","used":{"cpu":1500,"mem":16000},"unhealthy":"logs/ is not writable (3 launches in a row failed)"}],
             "total":3,"offset":0,"limit":1000}""";

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
        master.on("/api/v1/jobs", r -> FakeMaster.Answer.json(200, "{\"items\":[],\"total\":0,\"offset\":0,\"limit\":200}"));
        master.on("/api/v1/agents", r -> FakeMaster.Answer.json(200, AGENTS));
        // one sample of the groups' use per 200 ms, over 6 s: 30 samples
        vm = new LiveViewModel(Platform::runLater, new LiveViewModel.Timing(33, 60_000, 50, 100, 1000, 10_000, 200, 6_000));
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
        try {
            WaitForAsyncUtils.waitFor(15, TimeUnit.SECONDS, () -> fx(done::getAsBoolean));
        } catch (TimeoutException e) {
            throw new TimeoutException("no " + what + " within 15 s");
        }
    }

    /** root.a's last hour as the view shows it. */
    private long[] history() {
        return fx(() -> vm.groups().stream().filter(g -> g.path().equals("root.a")).findFirst()
                .map(GroupRow::usedHistory).orElse(new long[0]));
    }

    private static int known(long[] h) {
        int n = 0;
        for (long v : h) {
            n += v == UsageHistory.UNKNOWN ? 0 : 1;
        }
        return n;
    }

    @Test
    void theLastHourSurvivesAReconnectWithTheTimeBetweenAsAGap(FxRobot robot) throws Exception {
        robot.clickOn("#url").eraseText(30).write(master.uri().toString());
        robot.clickOn("#connect");
        await("three samples of root.a", () -> known(history()) >= 3);
        robot.clickOn("#disconnect");
        long[] before = history();
        int seenBefore = known(before);
        Thread.sleep(1200); // six periods not connected
        robot.clickOn("#connect");
        await("samples after the reconnect", () -> {
            long[] h = history();
            return h.length == 30 && h[29] != UsageHistory.UNKNOWN && h[28] != UsageHistory.UNKNOWN;
        });
        long[] after = history();
        assertEquals(30, after.length, "one sample per 200 ms over 6 s");
        // the samples of the first connection are still there, then a gap of at least five periods, then the new ones
        int lastBefore = -1;
        int gap = 0;
        int firstAfter = -1;
        for (int k = after.length - 1; k >= 0; k--) {
            if (after[k] == UsageHistory.UNKNOWN && firstAfter < 0) {
                firstAfter = k + 1;
            }
            if (firstAfter >= 0 && after[k] == UsageHistory.UNKNOWN && lastBefore < 0) {
                gap++;
            }
            if (firstAfter >= 0 && after[k] != UsageHistory.UNKNOWN && lastBefore < 0) {
                lastBefore = k;
            }
        }
        assertTrue(lastBefore >= 0, "what was seen before the reconnect is kept: " + java.util.Arrays.toString(after));
        assertTrue(gap >= 5, "the time not connected is a gap of unknown samples, not a value: " + java.util.Arrays.toString(after));
        assertTrue(known(after) >= Math.min(seenBefore, lastBefore + 1), java.util.Arrays.toString(after));
        long lastSeen = UsageHistory.UNKNOWN;
        for (long v : before) {
            lastSeen = v == UsageHistory.UNKNOWN ? lastSeen : v;
        }
        assertEquals(lastSeen, after[lastBefore], "the last sample before the disconnect, where it was");

        // the strip draws the gap shaded and the samples as a line
        Canvas strip = robot.lookup("#groups").queryAs(Canvas.class);
        WritableImage shot = fx(() -> strip.snapshot(null, null));
        Png.write(shot, Path.of("target/live-history-strip.png"));
        int row = fx(() -> vm.groups().stream().map(GroupRow::path).toList().indexOf("root.a"));
        double cw = shot.getWidth() - 12;
        double dx = cw / (after.length - 1);
        double y = row * GroupChartView.STRIP + 15 + 2;
        int gapAt = lastBefore + 1 + gap / 2;
        Color inGap = shot.getPixelReader().getColor((int) Math.round(6 + gapAt * dx), (int) y);
        assertTrue(Math.abs(inGap.getRed() - 0x3b / 255.0) < 0.02 && Math.abs(inGap.getBlue() - 0x3b / 255.0) < 0.02,
                "the gap is shaded: " + inGap);
        Color beforeGap = shot.getPixelReader().getColor((int) Math.round(6 + lastBefore * dx), (int) y);
        assertTrue(Math.abs(beforeGap.getRed() - inGap.getRed()) > 0.02 || Math.abs(beforeGap.getBlue() - inGap.getBlue()) > 0.02,
                "a time seen is not shaded: " + beforeGap);

        assertTrue(fx(() -> vm.frameProperty().get().history().stream().map(Frame.GroupHistory::path).toList()).contains("root.b"));
    }

    @Test
    void aStripsTitleDropsTheStatesExplanationThenCutsRatherThanRunPastThePanel() {
        QuotaSummary.Limits q = new QuotaSummary.Limits("10000", "15000", 10_000, 15_000, true, "NORMAL");
        GroupRow row = new GroupRow("group1", 38, 0, 0, q, null);
        String full = fx(() -> GroupChartView.title(row, q, 2000));
        assertTrue(full.startsWith("group1: 38 slots granted, min 10000, max 15000, Normal (") && full.endsWith(")"), full);
        String expected = "group1: 38 slots granted, min 10000, max 15000, Normal";
        double fits = fx(() -> {
            javafx.scene.text.Text t = new javafx.scene.text.Text(expected);
            t.setFont(javafx.scene.text.Font.font(10));
            return t.getLayoutBounds().getWidth() + 1;
        });
        assertEquals(expected, fx(() -> GroupChartView.title(row, q, fits)), "at " + fits + " px");
        String cut = fx(() -> GroupChartView.title(row, q, fits / 2));
        assertTrue(cut.endsWith("…") && cut.length() < expected.length(), cut);
    }

    @Test
    void whatAgentsReportIsShownBesideWhatIsGrantedAndAnUnhealthyNodeIsMarked(FxRobot robot) throws Exception {
        robot.clickOn("#url").eraseText(30).write(master.uri().toString());
        robot.clickOn("#connect");
        await("the recorded stream applied", () -> vm.frameProperty().get() != null && vm.frameProperty().get().eventsApplied() == 10);
        await("the agents' reports", () -> vm.nodeReportsProperty().get().byNode().size() == 3);
        WaitForAsyncUtils.waitForFxEvents();

        Canvas canvas = robot.lookup("#heatmap").queryAs(Canvas.class);
        HeatmapView map = (HeatmapView) canvas.getParent();
        WritableImage shot = fx(() -> canvas.snapshot(null, null));
        Png.write(shot, Path.of("target/live-unhealthy.png"));
        Point2D sick = fx(() -> map.cellCentre("n3"));
        Point2D fine = fx(() -> map.cellCentre("n1"));
        assertNotNull(sick);
        Color centre = shot.getPixelReader().getColor((int) sick.getX(), (int) sick.getY());
        assertTrue(centre.getRed() > 0.6 && centre.getGreen() < 0.1 && centre.getBlue() < 0.1, "the cross's middle is red: " + centre);
        double half = fx(() -> sick.getX() - Math.floor(sick.getX() - 1)); // at least a pixel
        Color offCross = shot.getPixelReader().getColor((int) (sick.getX() + Math.max(half, 4)), (int) sick.getY());
        assertTrue(offCross.getRed() > 0.95 && offCross.getGreen() > 0.95 && offCross.getBlue() > 0.95, "beside the cross, white: " + offCross);
        Color other = shot.getPixelReader().getColor((int) fine.getX(), (int) fine.getY());
        assertTrue(other.getGreen() < 0.9, "a healthy node keeps its colour: " + other);
        assertTrue(robot.lookup("#unhealthyLegend").tryQuery().isPresent(), "the legend names the mark");

        robot.clickOn(fx(() -> canvas.localToScreen(sick)));
        await("n3's detail", () -> vm.nodeDetailProperty().get().startsWith("n3 "));
        String detail = fx(() -> vm.nodeDetailProperty().get());
        assertTrue(detail.contains("unhealthy: logs/ is not writable (3 launches in a row failed) (no new work is placed on it)"), detail);
        assertTrue(detail.contains("in use (its agent's last report): cpu 15 of 16 cores, memory 16,000 of 65,536 MiB"), detail);

        robot.clickOn(fx(() -> canvas.localToScreen(fine)));
        await("n1's detail", () -> vm.nodeDetailProperty().get().startsWith("n1 "));
        detail = fx(() -> vm.nodeDetailProperty().get());
        assertTrue(detail.contains("granted: cpu ") && detail.contains("in use (its agent's last report): cpu 2.5 of 16 cores, "
                + "memory 4,096 of 65,536 MiB"), detail);
        assertTrue(!detail.contains("unhealthy"), detail);

        await("the rooms with use", () -> vm.roomRows().stream().anyMatch(r -> r.room().equals("r1") && r.reporting() == 2));
        String r1 = fx(() -> vm.roomRows().stream().filter(r -> r.room().equals("r1")).findFirst().orElseThrow().text());
        assertTrue(r1.contains("in use (2 of 3 nodes report it): cpu 17.5 cores, memory 19 GiB") && r1.endsWith(", 1 unhealthy"), r1);
    }
}

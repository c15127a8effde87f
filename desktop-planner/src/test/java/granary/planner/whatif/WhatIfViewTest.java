package granary.planner.whatif;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import javafx.application.Platform;
import javafx.scene.Node;
import javafx.scene.Scene;
import javafx.scene.chart.XYChart;
import javafx.scene.control.Button;
import javafx.scene.control.Label;
import javafx.scene.control.ProgressBar;
import javafx.scene.control.ScrollPane;
import javafx.scene.image.WritableImage;
import javafx.scene.layout.TilePane;
import javafx.stage.Stage;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;
import org.testfx.util.WaitForAsyncUtils;

import granary.planner.Png;
import granary.sim.run.ClassPathPolicies;

/**
 * The what-if tab on a headless screen (Monocle), wired as the shell wires it ({@code Platform::runLater}):
 * Run replays the first 100 jobs of the real Alibaba 2017 trace through both tables, and every chart
 * then shows both. The screen is written to {@code target/whatif-view.png} to be looked at.
 */
@ExtendWith(ApplicationExtension.class)
class WhatIfViewTest {

    private WhatIfViewModel vm;
    private Stage stage;

    @Start
    void start(Stage stage) {
        this.stage = stage;
        vm = new WhatIfViewModel(Platform::runLater, new WhatIfService(new ClassPathPolicies(), null));
        vm.draftProperty().set(Tables.maxima("ads", 100_000, "batch", 100_000, "etl", 100_000, "search", 100_000));
        vm.inForceProperty().set(Tables.maxima("ads", 100, "batch", 100_000, "etl", 100_000, "search", 100_000));
        vm.traceProperty().set(Tables.ALIBABA_2017);
        vm.clusterProperty().set("nodes=400,cpu=6400,mem=262144");
        vm.maxJobsProperty().set(100);
        stage.setScene(new Scene(new WhatIfView(vm), 1280, 1000));
        stage.show();
    }

    @Test
    void runDrawsBothTablesInEveryChart(FxRobot robot) throws Exception {
        assertTrue(robot.lookup("#cancel").queryAs(Button.class).isDisabled(), "nothing to cancel yet");
        // the replay starts at 22:00 on 27 November 2026 (UTC), set in the form
        robot.interact(() -> {
            robot.lookup("#startDate").queryAs(javafx.scene.control.DatePicker.class).setValue(java.time.LocalDate.of(2026, 11, 27));
            @SuppressWarnings("unchecked")
            javafx.scene.control.Spinner<Integer> hour = robot.lookup("#startHour").queryAs(javafx.scene.control.Spinner.class);
            hour.getValueFactory().setValue(22);
        });
        assertEquals(java.time.Instant.parse("2026-11-27T22:00:00Z").toEpochMilli(), vm.startEpochMs());
        robot.clickOn("#run");
        WaitForAsyncUtils.waitFor(60, TimeUnit.SECONDS, () -> WaitForAsyncUtils.asyncFx(
                () -> vm.resultProperty().get() != null || !vm.runningProperty().get()).get());
        WaitForAsyncUtils.waitForFxEvents();
        String status = robot.lookup("#status").queryAs(Label.class).getText();
        assertTrue(status.startsWith("done in "), status);
        assertEquals(1.0, robot.lookup("#progress").queryAs(ProgressBar.class).getProgress());
        assertFalse(robot.lookup("#run").queryAs(Button.class).isDisabled());

        List<String> sides = List.of(WhatIfService.DRAFT, WhatIfService.IN_FORCE);
        assertEquals(sides, names(chart(robot, "#timeoutsChart")));
        assertEquals(sides, names(chart(robot, "#waitsChart")));
        assertEquals(sides, names(chart(robot, "#billingChart")));
        assertEquals(List.of("draft cpu", "draft mem", "in force cpu", "in force mem"), names(chart(robot, "#utilisationChart")));
        for (String id : List.of("#timeoutsChart", "#waitsChart", "#billingChart", "#utilisationChart")) {
            for (XYChart.Series<?, ?> s : chart(robot, id).getData()) {
                assertFalse(s.getData().isEmpty(), id + " has data for " + s.getName());
            }
        }
        // the bars of timeouts: "all", then each group; the table in force times out more
        XYChart<?, ?> timeouts = chart(robot, "#timeoutsChart");
        assertEquals(List.of("all", "ads", "batch", "etl", "search"),
                timeouts.getData().get(0).getData().stream().map(d -> d.getXValue()).toList());
        assertTrue(((Number) timeouts.getData().get(1).getData().get(0).getYValue()).longValue()
                > ((Number) timeouts.getData().get(0).getData().get(0).getYValue()).longValue());

        String summary = robot.lookup("#summary").queryAs(Label.class).getText();
        assertTrue(summary.startsWith("draft     timeouts ") && summary.contains("\nin force  timeouts "), summary);

        TilePane groups = robot.lookup("#groupsChart").queryAs(TilePane.class);
        assertEquals(List.of("group-ads", "group-batch", "group-etl", "group-search"),
                groups.getChildren().stream().map(Node::getId).toList());
        for (Node n : groups.getChildren()) {
            XYChart<?, ?> c = (XYChart<?, ?>) n;
            assertEquals(List.of("draft held", "draft min", "draft max", "in force held", "in force min", "in force max"), names(c));
            c.getData().forEach(s -> assertFalse(s.getData().isEmpty(), n.getId() + " " + s.getName()));
            TimeChartView t = (TimeChartView) c;
            assertEquals("d1 22:00", t.clock(0), "over real time, from the start");
            assertEquals("d2 00:00", t.clock(2));
            assertTrue(((javafx.scene.chart.NumberAxis) t.getXAxis()).getLabel().startsWith("time since the replay's start"));
            assertTrue(t.getTitle().startsWith(n.getId().substring("group-".length()) + ": slots held, MinQuota and MaxQuota"), t.getTitle());
        }

        // the verdict: a sentence, and per measure both values, the difference and which is better
        String sentence = robot.lookup("#verdictSentence").queryAs(Label.class).getText();
        assertTrue(sentence.startsWith("The draft is better: the draft wins "), sentence);
        assertTrue(sentence.contains("Timeouts: "), sentence);
        javafx.scene.layout.GridPane verdict = robot.lookup("#verdict").queryAs(javafx.scene.layout.GridPane.class);
        List<String> firstRow = verdict.getChildren().stream().filter(x -> Integer.valueOf(1).equals(javafx.scene.layout.GridPane.getRowIndex(x)))
                .map(x -> ((Label) x).getText()).toList();
        assertEquals("timeouts: jobs that waited more than 10 s for resources", firstRow.get(0));
        assertTrue(firstRow.get(1).endsWith(" jobs") && firstRow.get(2).endsWith(" jobs"), firstRow.toString());
        assertTrue(firstRow.get(3).startsWith("-"), "the draft times out less: " + firstRow);
        assertEquals("draft", robot.lookup("#better-1").queryAs(Label.class).getText());
        assertTrue(verdict.getChildren().stream().map(x -> ((Label) x).getText())
                .anyMatch(x -> x.equals("ads: time below its MinQuota with work waiting")));

        WritableImage screen = WaitForAsyncUtils.asyncFx(() -> stage.getScene().snapshot(null)).get();
        Png.write(screen, Path.of("target/whatif-view.png"));
        Node charts = robot.lookup(".scroll-pane").queryAs(ScrollPane.class).getContent();
        WritableImage all = WaitForAsyncUtils.asyncFx(() -> charts.snapshot(null, null)).get();
        Png.write(all, Path.of("target/whatif-charts.png"));
    }

    private static XYChart<?, ?> chart(FxRobot robot, String id) {
        return robot.lookup(id).queryAs(XYChart.class);
    }

    private static List<String> names(XYChart<?, ?> c) {
        return c.getData().stream().map(XYChart.Series::getName).toList();
    }
}

package granary.planner.table;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;


import javafx.geometry.Point2D;
import javafx.scene.image.WritableImage;
import javafx.scene.Scene;
import javafx.scene.control.ListCell;
import javafx.scene.control.ListView;
import javafx.scene.input.KeyCode;
import javafx.scene.input.MouseButton;
import javafx.stage.Stage;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;

import granary.planner.Png;
import granary.planner.table.model.CellRef;
import granary.policy.quota.api.QuotaTableCodec;
import granary.policy.quota.api.TimeSlice;

/**
 * The editor on a (headless) screen, driven with the mouse and keyboard. Rows: 0 group1, 1 group2,
 * 2 group3 (the article's example, WorkerSpans default:5000,0-9:15000).
 */
@ExtendWith(ApplicationExtension.class)
class TableEditorViewFxTest {

    private static final TimeSlice NIGHT = TimeSlice.parse("0-9");

    @TempDir
    Path dir;

    private TableEditorViewModel vm;
    private TableEditorView view;

    @Start
    void start(Stage stage) {
        vm = new TableEditorViewModel();
        vm.load(new String(TableEditorViewModelTest.resource("article.json"), StandardCharsets.UTF_8),
                TableEditorViewModelTest.SPANS, "article.json");
        view = new TableEditorView(vm);
        stage.setScene(new Scene(view, 1100, 650));
        stage.show();
    }

    /** The screen point at an hour (may be fractional) on a row (-1: the band of slices). */
    private Point2D at(double hour, int row) {
        TimelineView t = view.timeline();
        TimelineGeometry g = t.geometry();
        return t.localToScreen(g.x(hour), g.rowY(row) + g.rowHeight(row) / 2);
    }

    private static void drag(FxRobot robot, Point2D from, Point2D to) {
        robot.moveTo(from).press(MouseButton.PRIMARY).moveTo(to).release(MouseButton.PRIMARY);
    }

    private List<String> problemTexts(FxRobot robot) {
        ListView<TableProblem> list = robot.lookup("#problems").queryListView();
        return list.getItems().stream().filter(p -> !p.isWarning()).map(TableProblem::text).toList();
    }

    /** The warnings the list shows, as it shows them. */
    private List<String> warningTexts(FxRobot robot) {
        ListView<TableProblem> list = robot.lookup("#problems").queryListView();
        return list.getItems().stream().filter(TableProblem::isWarning).map(TableProblem::text).toList();
    }

    /** The share of pixels along an hour range of a row (near the top of its bars, clear of labels) that are exactly {@code c}. */
    private double share(FxRobot robot, int row, int fromHour, int toHour, javafx.scene.paint.Color c) {
        WritableImage[] shot = new WritableImage[1];
        robot.interact(() -> shot[0] = view.timeline().snapshot(null, null));
        TimelineGeometry g = view.timeline().geometry();
        int y = (int) (g.rowY(row) + 5);
        int n = 0;
        int hits = 0;
        for (int x = (int) g.x(fromHour) + 3; x < (int) g.x(toHour) - 3; x++) {
            javafx.scene.paint.Color p = shot[0].getPixelReader().getColor(x, y);
            n++;
            if (Math.abs(p.getRed() - c.getRed()) < 0.02 && Math.abs(p.getGreen() - c.getGreen()) < 0.02
                    && Math.abs(p.getBlue() - c.getBlue()) < 0.02) {
                hits++;
            }
        }
        return n == 0 ? 0 : (double) hits / n;
    }

    /** With -Dtable.snapshots=DIR, writes what the editor looks like (for people, not for asserting). */
    private void snapshot(FxRobot robot, String name) {
        String to = System.getProperty("table.snapshots");
        if (to == null) {
            return;
        }
        WritableImage[] shot = new WritableImage[1];
        robot.interact(() -> shot[0] = view.snapshot(null, null));
        try {
            Png.write(shot[0], Path.of(to, name));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Test
    void drawingOnAGroupsRowMakesASliceAndBeforeMidnightWraps(FxRobot robot) {
        drag(robot, at(12.5, 1), at(14.5, 1));
        assertNotNull(vm.draft().cell(TimeSlice.parse("12-15"), "group2"), vm.draft().toString());
        assertEquals(new CellRef(TimeSlice.parse("12-15"), "group2"), vm.selectionProperty().get());

        // from 01:30 leftwards past midnight into the default column: hours 22 to 2
        drag(robot, at(1.5, 1), at(-1.5, 1));
        assertNotNull(vm.draft().cell(TimeSlice.parse("22-2"), "group2"), vm.draft().toString());
        assertTrue(problemTexts(robot).contains("slices 0-9 and 22-2: hours: overlap at hours 0-2"), problemTexts(robot).toString());
    }

    @Test
    void draggingAnEdgeOffTheWorkerSpansShowsTheProblemWhichLeadsToItsSliceAndGoesWhenDraggedBack(FxRobot robot) {
        Point2D edge = at(9, 0).subtract(2, 0);
        drag(robot, edge, at(11, 0));
        TimeSlice moved = TimeSlice.parse("0-11");
        assertNotNull(vm.draft().slice(moved), "the whole slice moved: " + vm.draft());
        assertNotNull(vm.draft().cell(moved, "group3"));
        String problem = "slice 0-11: MinQuota: sum of MinQuota 13000 > WorkerSpans 5000";
        assertTrue(problemTexts(robot).contains(problem), problemTexts(robot).toString());
        assertNull(vm.validTableProperty().get());
        snapshot(robot, "violation.png");

        vm.selectionProperty().set(null);
        ListCell<?> cell = robot.lookup("#problems .list-cell").match((ListCell<?> c) -> problem.equals(c.getText())).query();
        robot.clickOn(cell);
        assertEquals(new CellRef(moved, null), vm.selectionProperty().get());

        drag(robot, at(11, 0).subtract(2, 0), at(9, 0));
        assertNotNull(vm.draft().slice(NIGHT));
        assertEquals(List.of(), problemTexts(robot));
        assertNotNull(vm.validTableProperty().get());
    }

    @Test
    void theTimelineShowsWhereEachHoursQuotaComesFromAndOffersTheDefaultsToALeftOutGroup(FxRobot robot) {
        assertNotNull(robot.lookup("#sourceLegend").query());
        assertTrue(robot.lookup("#sourceLegend .label").queryAll().stream()
                .map(n -> ((javafx.scene.control.Label) n).getText()).anyMatch(t -> t.startsWith("nothing")));
        // group1 (row 0) is in the 0-9 slice, and has its default entry from 9 to 24
        assertTrue(share(robot, 0, 12, 17, TimelineView.FROM_DEFAULT) > 0.95, "12-17 from default");
        // group2 (row 1) gets nothing from 0 to 9: the slice in force does not name it
        assertTrue(share(robot, 1, 1, 8, TimelineView.NOTHING) > 0.5, "0-9 nothing for group2");
        assertTrue(warningTexts(robot).contains(
                "warning: group2 gets nothing 00:00-09:00 (it had 2000/5000 from default): acknowledge it before pushing"),
                warningTexts(robot).toString());

        drag(robot, at(12.5, 1), at(16.5, 1));
        assertNotNull(vm.draft().cell(TimeSlice.parse("12-17"), "group2"));
        assertTrue(share(robot, 0, 12, 17, TimelineView.NOTHING) > 0.5, "group1 now gets nothing 12-17");
        assertTrue(robot.lookup("#offer").query().isVisible());
        assertTrue(robot.lookup("#offerText").queryLabeled().getText().startsWith("Slice 12-17 leaves group1 with nothing"));
        assertTrue(warningTexts(robot).stream().anyMatch(t -> t.contains("group1 gets nothing 12:00-17:00 (it had 3000/5000 from default)")),
                warningTexts(robot).toString());
        snapshot(robot, "left-out.png");

        robot.clickOn("#acceptOffer");
        assertEquals(3000, vm.draft().cell(TimeSlice.parse("12-17"), "group1").min().workers());
        assertFalse(robot.lookup("#offer").query().isVisible());
        assertTrue(share(robot, 0, 12, 17, TimelineView.NOTHING) < 0.05, "group1 has its own slice 12-17 now");

        // acknowledging the remaining warning from the list
        ListCell<?> cell = robot.lookup("#problems .list-cell")
                .match((ListCell<?> c) -> c.getText() != null && c.getText().contains("group2 gets nothing 00:00-09:00")).query();
        robot.clickOn(cell);
        robot.clickOn("#acknowledge");
        assertNull(vm.pushBlockerProperty().get(), vm.pushBlockerProperty().get());
        assertTrue(warningTexts(robot).contains("warning (acknowledged): group2 gets nothing 00:00-09:00 (it had 2000/5000 from default)"),
                warningTexts(robot).toString());
    }

    @Test
    void keyboardResizesEditsInPlaceAndUndoes(FxRobot robot) {
        robot.clickOn(at(4, 2));
        assertEquals(new CellRef(NIGHT, "group3"), vm.selectionProperty().get());

        robot.push(KeyCode.SHIFT, KeyCode.RIGHT);
        assertNotNull(vm.draft().slice(TimeSlice.parse("0-10")), vm.draft().toString());
        robot.push(KeyCode.CONTROL, KeyCode.Z);
        assertNotNull(vm.draft().slice(NIGHT));
        assertEquals(new CellRef(NIGHT, "group3"), vm.selectionProperty().get(), "undoing a resize keeps the slice selected");

        robot.push(KeyCode.F2);
        assertTrue(robot.lookup("#cellEditor").query().isVisible());
        robot.doubleClickOn("#minField").eraseText(8).write("6000");
        robot.doubleClickOn("#maxField").eraseText(8).write("6000").push(KeyCode.ENTER);
        assertEquals(6000, vm.draft().cell(NIGHT, "group3").min().workers());
        assertTrue(problemTexts(robot).contains("slice 0-9: MinQuota: sum of MinQuota 16000 > WorkerSpans 15000"), problemTexts(robot).toString());

        robot.push(KeyCode.CONTROL, KeyCode.Z);
        assertEquals(3000, vm.draft().cell(NIGHT, "group3").min().workers());
        assertEquals(List.of(), problemTexts(robot));
        robot.push(KeyCode.CONTROL, KeyCode.Y);
        assertEquals(6000, vm.draft().cell(NIGHT, "group3").min().workers());
    }

    @Test
    void addingRenamingDrawingAndRemovingAGroupWithTheKeyboard(FxRobot robot) {
        robot.clickOn(at(4, 0));
        robot.push(KeyCode.CONTROL, KeyCode.N);
        assertEquals(new CellRef(null, "group4"), vm.selectionProperty().get());

        robot.push(KeyCode.F2);
        assertTrue(robot.lookup("#nameField").query().isVisible());
        robot.eraseText(10).write("batch").push(KeyCode.ENTER);
        assertEquals(List.of("group1", "group2", "group3", "batch"), vm.draft().groups().stream().map(g -> g.name()).toList());
        assertEquals(4, vm.draft().group("batch").groupId());

        drag(robot, at(12.5, 3), at(15.5, 3));
        assertNotNull(vm.draft().cell(TimeSlice.parse("12-16"), "batch"));
        assertTrue(problemTexts(robot).contains("slice 12-16: MaxQuota: WorkerSpans 5000 > sum of MaxQuota 0"), problemTexts(robot).toString());

        robot.clickOn(view.timeline().localToScreen(20, view.timeline().geometry().rowY(3) + 10));
        assertEquals(new CellRef(null, "batch"), vm.selectionProperty().get());
        robot.push(KeyCode.DELETE);
        assertNull(vm.draft().group("batch"));
        assertNull(vm.draft().slice(TimeSlice.parse("12-16")), "the slice drawn for it alone goes with it");
        assertEquals(List.of(), problemTexts(robot));
    }

    @Test
    void savingWithCtrlSAndOpeningAgain(FxRobot robot) throws IOException {
        Path file = dir.resolve("table.json");
        Files.write(file, TableEditorViewModelTest.resource("article.json"));
        robot.interact(() -> vm.open(file));

        drag(robot, at(18.5, 1), at(20.5, 1));
        robot.clickOn(at(4, 0));
        robot.push(KeyCode.CONTROL, KeyCode.S);

        String written = Files.readString(file);
        assertEquals(QuotaTableCodec.write(vm.validTableProperty().get()), written);
        assertTrue(written.contains("\"18-21\""), written);

        robot.interact(() -> {
            vm.undo();
            vm.open(file);
        });
        assertNotNull(vm.draft().cell(TimeSlice.parse("18-21"), "group2"));
        assertEquals(written, vm.text());
        assertTrue(robot.lookup("#status").queryLabeled().getText().startsWith(file + ": valid"),
                robot.lookup("#status").queryLabeled().getText());
    }
}

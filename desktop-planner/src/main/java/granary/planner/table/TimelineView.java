package granary.planner.table;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import javafx.collections.ListChangeListener;
import javafx.geometry.VPos;
import javafx.scene.canvas.Canvas;
import javafx.scene.canvas.GraphicsContext;
import javafx.scene.control.TextField;
import javafx.scene.input.KeyCode;
import javafx.scene.input.KeyEvent;
import javafx.scene.input.MouseButton;
import javafx.scene.input.MouseEvent;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Region;
import javafx.scene.paint.Color;
import javafx.scene.text.Font;
import javafx.scene.text.TextAlignment;

import granary.planner.table.model.CellRef;
import granary.planner.table.model.Draft;
import granary.planner.table.model.GroupRow;
import granary.planner.table.model.Hours;
import granary.planner.table.model.QuotaSources;
import granary.planner.table.model.SliceRow;
import granary.policy.quota.api.GroupQuota;
import granary.policy.quota.api.TimeSlice;

/**
 * The timeline: 24 hours across, one row per group, each slice that funds a group a bar on its row
 * labelled MinQuota/MaxQuota; the default slice in a column of its own before the hours; above
 * the rows a band with every range slice. Cells with a problem are outlined red.
 *
 * <p>Mouse: press and drag on a group's row over hours where it has no bar draws a slice for it
 * (snapping to hours; past the right edge or before 0 wraps past midnight); drag a bar's edge (on
 * any row or in the band) to resize the slice, all its groups together, as one undo step; click
 * selects; double-click edits MinQuota and MaxQuota in place (Enter saves, Escape cancels), or,
 * on a group's name, renames the group in place.
 *
 * <p>Keyboard (when focused): arrows move the selection (left/right by slice, up/down by group;
 * above the first group is the band of slices); Shift+Left/Right move the selected slice's end,
 * Ctrl+Shift+Left/Right its start; Enter or F2 edits the selected cell's MinQuota and MaxQuota
 * (Tab between them) or, with a group's row selected and no slice, renames the group; Shift+F2
 * renames the selected group; Delete removes the cell
 * (or, in the band, the slice; on a row's name, the group); Insert gives the selected group a new
 * one-hour slice at the next free hour.
 */
public final class TimelineView extends Region {

    private static final Font FONT = Font.font(11);
    private static final Color BAR = Color.web("#7fa7d9");
    private static final Color BAR_DEFAULT = Color.web("#a9c79b");
    private static final Color BAND_BAR = Color.web("#c9ccd2");
    private static final Color PROBLEM = Color.web("#d23c3c");
    private static final Color SELECTED = Color.web("#1d2733");
    /** An hour a group has from {@code default} (no range slice covers it): a pale version of the default bar. */
    public static final Color FROM_DEFAULT = Color.web("#dcebd3");
    /** An hour a group gets nothing: pale, with dark diagonal stripes, so it reads without colour too. */
    public static final Color NOTHING = Color.web("#f3dfc8");
    private static final Color NOTHING_STRIPE = Color.web("#8a5a2b");

    private enum Mode { NONE, DRAW, RESIZE_START, RESIZE_END }

    private final TableEditorViewModel vm;
    private final Canvas canvas = new Canvas();
    private final TextField minField = new TextField();
    private final TextField maxField = new TextField();
    private final HBox editor = new HBox(2, minField, maxField);
    private final TextField nameField = new TextField();

    private Mode mode = Mode.NONE;
    private String dragGroup;
    private double pressX;
    private int drawFrom;
    private int drawTo;
    private TimeSlice resizeOrigin;
    private TimeSlice resizing;
    private CellRef editing;
    private String renaming;

    public TimelineView(TableEditorViewModel vm) {
        this.vm = vm;
        setId("timeline");
        setFocusTraversable(true);
        minField.setId("minField");
        maxField.setId("maxField");
        minField.setPromptText("MinQuota");
        maxField.setPromptText("MaxQuota");
        editor.setId("cellEditor");
        editor.setVisible(false);
        editor.setManaged(false);
        nameField.setId("nameField");
        nameField.setVisible(false);
        nameField.setManaged(false);
        getChildren().addAll(canvas, editor, nameField);

        vm.draftProperty().addListener((o, a, b) -> redrawAndResize());
        vm.selectionProperty().addListener((o, a, b) -> draw());
        vm.problems().addListener((ListChangeListener<TableProblem>) c -> draw());
        widthProperty().addListener((o, a, b) -> draw());

        addEventHandler(MouseEvent.MOUSE_PRESSED, this::pressed);
        addEventHandler(MouseEvent.MOUSE_DRAGGED, this::dragged);
        addEventHandler(MouseEvent.MOUSE_RELEASED, this::released);
        addEventHandler(MouseEvent.MOUSE_CLICKED, e -> {
            if (e.getButton() == MouseButton.PRIMARY && e.getClickCount() == 2 && e.getTarget() == canvas) {
                CellRef sel = vm.selectionProperty().get();
                if (sel != null && sel.slice() == null) {
                    startRename(sel.group());
                } else {
                    startEdit(sel);
                }
            }
        });
        addEventHandler(MouseEvent.MOUSE_MOVED, e -> setCursor(edgeAt(rowAt(e.getY()), e.getX()) != null
                ? javafx.scene.Cursor.H_RESIZE : javafx.scene.Cursor.DEFAULT));
        addEventHandler(KeyEvent.KEY_PRESSED, this::key);
        editor.addEventHandler(KeyEvent.KEY_PRESSED, this::editorKey);
        nameField.addEventHandler(KeyEvent.KEY_PRESSED, this::nameKey);
        redrawAndResize();
    }

    /** Where things are, for drawing, hit tests and tests. */
    public TimelineGeometry geometry() {
        return new TimelineGeometry(getWidth() > 0 ? getWidth() : 900);
    }

    @Override
    protected double computePrefWidth(double height) {
        return 900;
    }

    @Override
    protected double computePrefHeight(double width) {
        return geometry().height(Math.max(1, vm.draft().groups().size()));
    }

    @Override
    protected double computeMinHeight(double width) {
        return computePrefHeight(width);
    }

    @Override
    protected void layoutChildren() {
        canvas.setWidth(getWidth());
        canvas.setHeight(getHeight());
        if (editor.isVisible()) {
            placeEditor();
        }
        if (nameField.isVisible()) {
            placeNameField();
        }
        draw();
    }

    private void redrawAndResize() {
        requestLayout();
        draw();
    }

    // ---- hit tests

    private int rowAt(double y) {
        int row = geometry().rowAt(y);
        return row >= vm.draft().groups().size() ? TimelineGeometry.NO_ROW : row;
    }

    private String groupOf(int row) {
        return row >= 0 ? vm.draft().groups().get(row).name() : null;
    }

    /** The range slices drawn on a row: those funding the group, or every range for the band. */
    private List<TimeSlice> slicesOn(int row) {
        List<TimeSlice> out = new ArrayList<>();
        String group = groupOf(row);
        for (SliceRow s : vm.draft().slices()) {
            if (!s.slice().isDefault() && (row == TimelineGeometry.BAND_ROW || s.cell(group) != null)) {
                out.add(s.slice());
            }
        }
        return out;
    }

    private record Edge(TimeSlice slice, boolean start) {
    }

    /** The bar edge within {@link TimelineGeometry#EDGE} of x on a row, nearest first, or null. */
    private Edge edgeAt(int row, double x) {
        if (row == TimelineGeometry.NO_ROW) {
            return null;
        }
        TimelineGeometry g = geometry();
        Edge best = null;
        double bestDistance = TimelineGeometry.EDGE;
        for (TimeSlice s : slicesOn(row)) {
            // an end and the next slice's start may share x: the side of the mouse decides
            double ds = Math.abs(x - g.x(s.from())) - (x >= g.x(s.from()) ? 0.1 : 0);
            double de = Math.abs(x - g.x(s.to())) - (x <= g.x(s.to()) ? 0.1 : 0);
            if (ds <= bestDistance) {
                best = new Edge(s, true);
                bestDistance = ds;
            }
            if (de <= bestDistance) {
                best = new Edge(s, false);
                bestDistance = de;
            }
        }
        return best;
    }

    private TimeSlice sliceOn(int row, int hour) {
        for (TimeSlice s : slicesOn(row)) {
            if (s.covers(hour)) {
                return s;
            }
        }
        return null;
    }

    // ---- mouse

    private void pressed(MouseEvent e) {
        if (e.getButton() != MouseButton.PRIMARY || e.getTarget() != canvas) {
            return;
        }
        // consumed, so that the scroll pane around does not take the focus the keys need
        e.consume();
        requestFocus();
        cancelEdit();
        TimelineGeometry g = geometry();
        int row = rowAt(e.getY());
        mode = Mode.NONE;
        if (row == TimelineGeometry.NO_ROW) {
            return;
        }
        String group = groupOf(row);
        if (g.inLabels(e.getX())) {
            vm.selectionProperty().set(group == null ? null : new CellRef(null, group));
            return;
        }
        if (g.inDefault(e.getX())) {
            vm.selectionProperty().set(new CellRef(TimeSlice.DEFAULT, group));
            return;
        }
        Edge edge = edgeAt(row, e.getX());
        if (edge != null) {
            mode = edge.start() ? Mode.RESIZE_START : Mode.RESIZE_END;
            resizeOrigin = edge.slice();
            resizing = edge.slice();
            pressX = e.getX();
            vm.selectionProperty().set(new CellRef(edge.slice(), group));
            vm.beginGesture();
            return;
        }
        int hour = (int) Math.floor(g.hourAt(e.getX()));
        TimeSlice hit = sliceOn(row, Math.floorMod(hour, Hours.DAY));
        if (hit != null || group == null) {
            vm.selectionProperty().set(hit == null && group == null ? null : new CellRef(hit, group));
            return;
        }
        mode = Mode.DRAW;
        dragGroup = group;
        pressX = e.getX();
        drawFrom = hour;
        drawTo = hour;
        vm.selectionProperty().set(new CellRef(null, group));
    }

    private void dragged(MouseEvent e) {
        TimelineGeometry g = geometry();
        switch (mode) {
            case DRAW -> {
                drawTo = (int) Math.floor(g.hourAt(e.getX()));
                draw();
            }
            case RESIZE_START, RESIZE_END -> {
                int delta = (int) Math.round(g.hourAt(e.getX()) - g.hourAt(pressX));
                TimeSlice target = mode == Mode.RESIZE_START ? Hours.moveStart(resizeOrigin, delta) : Hours.moveEnd(resizeOrigin, delta);
                if (!target.equals(resizing)) {
                    resizing = vm.setSliceHours(resizing, target);
                }
            }
            default -> {
            }
        }
    }

    private void released(MouseEvent e) {
        Mode was = mode;
        mode = Mode.NONE;
        switch (was) {
            case DRAW -> {
                if (Math.abs(e.getX() - pressX) > 3) {
                    vm.drawSlice(dragGroup, Math.min(drawFrom, drawTo), Math.max(drawFrom, drawTo) + 1);
                }
                draw();
            }
            case RESIZE_START, RESIZE_END -> vm.endGesture();
            default -> {
            }
        }
    }

    // ---- keyboard

    private void key(KeyEvent e) {
        if (e.getTarget() != this) {
            return;
        }
        CellRef sel = vm.selectionProperty().get();
        TimeSlice slice = sel == null ? null : sel.slice();
        int dx = e.getCode() == KeyCode.LEFT ? -1 : e.getCode() == KeyCode.RIGHT ? 1 : 0;
        int dy = e.getCode() == KeyCode.UP ? -1 : e.getCode() == KeyCode.DOWN ? 1 : 0;
        boolean handled = true;
        if (dx != 0 && e.isShiftDown() && slice != null && !slice.isDefault()) {
            boolean start = e.isShortcutDown();
            vm.resizeSlice(slice, start ? dx : 0, start ? 0 : dx);
        } else if ((dx != 0 || dy != 0) && !e.isShiftDown() && !e.isShortcutDown()) {
            vm.moveSelection(dx, dy);
        } else if (e.getCode() == KeyCode.F2 && e.isShiftDown() || (e.getCode() == KeyCode.ENTER || e.getCode() == KeyCode.F2) && slice == null) {
            startRename(sel == null ? null : sel.group());
        } else if (e.getCode() == KeyCode.ENTER || e.getCode() == KeyCode.F2) {
            startEdit(sel);
        } else if (e.getCode() == KeyCode.DELETE || e.getCode() == KeyCode.BACK_SPACE) {
            vm.deleteSelection();
        } else if (e.getCode() == KeyCode.INSERT) {
            vm.insertSlice();
        } else {
            handled = false;
        }
        if (handled) {
            e.consume();
        }
    }

    // ---- editing MinQuota and MaxQuota in place

    /** Opens the in-place editor on a cell (funded or not: saving funds it). */
    public void startEdit(CellRef cell) {
        if (cell == null || cell.slice() == null || cell.group() == null || !vm.editableProperty().get()) {
            return;
        }
        GroupQuota q = vm.draft().cell(cell.slice(), cell.group());
        minField.setText(q == null ? "0" : q.min().toString());
        maxField.setText(q == null ? "0" : q.max().toString());
        minField.setStyle("");
        maxField.setStyle("");
        editing = cell;
        editor.setVisible(true);
        placeEditor();
        minField.requestFocus();
        minField.selectAll();
    }

    private void placeEditor() {
        TimelineGeometry g = geometry();
        int row = vm.draft().groupIndex(editing.group());
        double x = editing.slice().isDefault() ? TimelineGeometry.LABEL : g.x(editing.slice().from());
        double w = 150;
        x = Math.max(0, Math.min(x, getWidth() - w));
        editor.resizeRelocate(x, g.rowY(row) + 2, w, TimelineGeometry.ROW - 4);
        minField.setPrefWidth(w / 2 - 1);
        maxField.setPrefWidth(w / 2 - 1);
    }

    private void editorKey(KeyEvent e) {
        if (e.getCode() == KeyCode.ESCAPE) {
            cancelEdit();
            requestFocus();
            e.consume();
        } else if (e.getCode() == KeyCode.ENTER) {
            commitEdit();
            e.consume();
        }
    }

    private void commitEdit() {
        Long min = number(minField);
        Long max = number(maxField);
        if (min == null || max == null) {
            return;
        }
        CellRef cell = editing;
        cancelEdit();
        vm.setQuota(cell.slice(), cell.group(), min, max);
        requestFocus();
    }

    /** The field's whole number, or null with the field marked (the draft holds only numbers). */
    private static Long number(TextField f) {
        try {
            Long v = Long.parseLong(f.getText().trim());
            f.setStyle("");
            return v;
        } catch (NumberFormatException ex) {
            f.setStyle("-fx-border-color: #d23c3c;");
            return null;
        }
    }

    private void cancelEdit() {
        editing = null;
        editor.setVisible(false);
        renaming = null;
        nameField.setVisible(false);
    }

    // ---- renaming a group in place, over its name

    /** Opens the name field over a group's name: Enter renames it everywhere, Escape cancels. */
    public void startRename(String group) {
        if (group == null || vm.draft().group(group) == null || !vm.editableProperty().get()) {
            return;
        }
        cancelEdit();
        renaming = group;
        nameField.setText(group);
        nameField.setVisible(true);
        placeNameField();
        nameField.requestFocus();
        nameField.selectAll();
    }

    private void placeNameField() {
        TimelineGeometry g = geometry();
        int row = vm.draft().groupIndex(renaming);
        if (row < 0) {
            cancelEdit();
            return;
        }
        nameField.resizeRelocate(2, g.rowY(row) + 2, TimelineGeometry.LABEL + TimelineGeometry.DEFAULT - 4, TimelineGeometry.ROW - 4);
    }

    private void nameKey(KeyEvent e) {
        if (e.getCode() == KeyCode.ESCAPE) {
            cancelEdit();
            requestFocus();
            e.consume();
        } else if (e.getCode() == KeyCode.ENTER) {
            String from = renaming;
            String to = nameField.getText().trim();
            cancelEdit();
            vm.renameGroup(from, to);
            requestFocus();
            e.consume();
        }
    }

    // ---- drawing

    private void draw() {
        double w = canvas.getWidth();
        double h = canvas.getHeight();
        if (w <= 0 || h <= 0) {
            return;
        }
        TimelineGeometry g = geometry();
        Draft d = vm.draft();
        GraphicsContext gc = canvas.getGraphicsContext2D();
        gc.setFont(FONT);
        gc.setTextBaseline(VPos.CENTER);
        gc.setFill(Color.WHITE);
        gc.fillRect(0, 0, w, h);

        CellRef sel = vm.selectionProperty().get();
        Set<CellRef> bad = new HashSet<>();
        for (TableProblem p : vm.problems()) {
            bad.add(new CellRef(p.slice(), p.group()));
        }
        int rows = d.groups().size();
        double bottom = g.rowY(rows);

        // row backgrounds, selected row, hour grid
        for (int r = 0; r < rows; r++) {
            boolean selected = sel != null && d.groups().get(r).name().equals(sel.group());
            gc.setFill(selected ? Color.web("#eef3fa") : r % 2 == 0 ? Color.web("#fafafa") : Color.WHITE);
            gc.fillRect(0, g.rowY(r), w, TimelineGeometry.ROW);
        }
        gc.setStroke(Color.web("#e2e2e2"));
        gc.setLineWidth(1);
        gc.setFill(Color.web("#555"));
        gc.setTextAlign(TextAlignment.CENTER);
        for (int hour = 0; hour <= Hours.DAY; hour++) {
            double x = Math.round(g.x(hour)) + 0.5;
            gc.strokeLine(x, TimelineGeometry.HEADER, x, bottom);
            if (hour % 2 == 0 || g.hourWidth() >= 24) {
                gc.fillText(Integer.toString(hour), x, TimelineGeometry.HEADER / 2);
            }
        }
        gc.fillText("default", TimelineGeometry.LABEL + TimelineGeometry.DEFAULT / 2, TimelineGeometry.HEADER / 2);
        gc.strokeLine(TimelineGeometry.LABEL + 0.5, TimelineGeometry.HEADER, TimelineGeometry.LABEL + 0.5, bottom);

        // the band: every slice
        gc.setTextAlign(TextAlignment.LEFT);
        gc.setFill(Color.web("#333"));
        gc.fillText("slices", 4, g.rowY(TimelineGeometry.BAND_ROW) + TimelineGeometry.BAND / 2);
        for (SliceRow s : d.slices()) {
            CellRef at = new CellRef(s.slice(), null);
            bar(gc, g, TimelineGeometry.BAND_ROW, s.slice(), BAND_BAR, s.slice().toString(), bad.contains(at), at.equals(sel));
        }

        // the group rows
        for (int r = 0; r < rows; r++) {
            GroupRow group = d.groups().get(r);
            gc.setTextAlign(TextAlignment.LEFT);
            gc.setFill(bad.contains(new CellRef(null, group.name())) ? PROBLEM : Color.web("#222"));
            gc.fillText(group.name() + " (" + group.groupId() + ")", 4, g.rowY(r) + TimelineGeometry.ROW / 2, TimelineGeometry.LABEL - 8);
            sources(gc, g, r, QuotaSources.of(d, group.name()));
            for (SliceRow s : d.slices()) {
                GroupQuota q = s.cell(group.name());
                CellRef at = new CellRef(s.slice(), group.name());
                if (q != null) {
                    bar(gc, g, r, s.slice(), s.slice().isDefault() ? BAR_DEFAULT : BAR, q.min() + "/" + q.max(),
                            bad.contains(at), at.equals(sel));
                } else if (at.equals(sel)) {
                    outline(gc, g, r, s.slice(), SELECTED, 2);
                }
            }
        }

        if (mode == Mode.DRAW) {
            int row = vm.draft().groupIndex(dragGroup);
            if (row >= 0) {
                TimeSlice ghost = Hours.between(Math.min(drawFrom, drawTo), Math.max(drawFrom, drawTo) + 1);
                gc.setGlobalAlpha(0.5);
                bar(gc, g, row, ghost, BAR, ghost.toString(), false, false);
                gc.setGlobalAlpha(1);
            }
        }
    }

    /**
     * Under a group's bars, where its quota comes from in the hours no bar of its own covers: runs
     * of hours from {@code default} (pale green, labelled with the quota) and runs of hours it gets
     * nothing (striped, labelled "nothing").
     */
    private static void sources(GraphicsContext gc, TimelineGeometry g, int row, List<QuotaSources.At> hours) {
        double y = g.rowY(row) + 3;
        double h = g.rowHeight(row) - 6;
        int hour = 0;
        while (hour < Hours.DAY) {
            QuotaSources.Source src = hours.get(hour).source();
            int end = hour + 1;
            while (end < Hours.DAY && hours.get(end).source() == src
                    && java.util.Objects.equals(hours.get(end).quota(), hours.get(hour).quota())) {
                end++;
            }
            double x0 = g.x(hour) + 1;
            double x1 = g.x(end) - 1;
            if (src == QuotaSources.Source.DEFAULT) {
                gc.setFill(FROM_DEFAULT);
                gc.fillRect(x0, y, x1 - x0, h);
                gc.setFill(Color.web("#4a6340"));
                gc.setTextAlign(TextAlignment.LEFT);
                var q = hours.get(hour).quota();
                gc.fillText("default " + q.min() + "/" + q.max(), x0 + 3, y + h / 2, Math.max(1, x1 - x0 - 6));
            } else if (src == QuotaSources.Source.NOTHING) {
                gc.setFill(NOTHING);
                gc.fillRect(x0, y, x1 - x0, h);
                gc.save();
                gc.beginPath();
                gc.rect(x0, y, x1 - x0, h);
                gc.clip();
                gc.setStroke(NOTHING_STRIPE);
                gc.setLineWidth(1);
                for (double sx = x0 - h; sx < x1; sx += 8) {
                    gc.strokeLine(sx, y + h, sx + h, y);
                }
                gc.restore();
                gc.setFill(Color.web("#5a3311"));
                gc.setTextAlign(TextAlignment.LEFT);
                double tw = Math.min(52, x1 - x0 - 4);
                if (tw > 8) {
                    gc.setFill(Color.web("#fff8f0"));
                    gc.fillRect(x0 + 2, y + h / 2 - 7, tw, 14);
                    gc.setFill(Color.web("#5a3311"));
                    gc.fillText("nothing", x0 + 4, y + h / 2, tw - 4);
                }
            }
            hour = end;
        }
    }

    /** The pieces of a slice on the timeline: [x, width] pairs; a slice past midnight is two. */
    private static List<double[]> pieces(TimelineGeometry g, TimeSlice s) {
        if (s.isDefault()) {
            return List.of(new double[] {TimelineGeometry.LABEL + 2, TimelineGeometry.DEFAULT - 4});
        }
        if (s.from() < s.to()) {
            return List.of(new double[] {g.x(s.from()), g.x(s.to()) - g.x(s.from())});
        }
        return List.of(new double[] {g.x(s.from()), g.x(Hours.DAY) - g.x(s.from())}, new double[] {g.x(0), g.x(s.to()) - g.x(0)});
    }

    private static void bar(GraphicsContext gc, TimelineGeometry g, int row, TimeSlice s, Color fill, String label,
                            boolean problem, boolean selected) {
        double y = g.rowY(row) + 3;
        double h = g.rowHeight(row) - 6;
        for (double[] p : pieces(g, s)) {
            gc.setFill(fill);
            gc.fillRoundRect(p[0] + 1, y, p[1] - 2, h, 6, 6);
            gc.setFill(Color.web("#111"));
            gc.setTextAlign(TextAlignment.LEFT);
            gc.fillText(label, p[0] + 4, y + h / 2, Math.max(1, p[1] - 8));
        }
        if (problem) {
            outline(gc, g, row, s, PROBLEM, 2);
        }
        if (selected) {
            outline(gc, g, row, s, SELECTED, 2.5);
        }
    }

    private static void outline(GraphicsContext gc, TimelineGeometry g, int row, TimeSlice s, Color color, double width) {
        gc.setStroke(color);
        gc.setLineWidth(width);
        for (double[] p : pieces(g, s)) {
            gc.strokeRoundRect(p[0] + 1, g.rowY(row) + 3, p[1] - 2, g.rowHeight(row) - 6, 6, 6);
        }
    }
}

package granary.planner.table;

import javafx.geometry.VPos;
import javafx.scene.canvas.Canvas;
import javafx.scene.canvas.GraphicsContext;
import javafx.scene.layout.Region;
import javafx.scene.paint.Color;
import javafx.scene.text.Font;
import javafx.scene.text.TextAlignment;

import granary.planner.table.model.Draft;
import granary.planner.table.model.Hours;
import granary.planner.table.model.SliceLoad;
import granary.policy.quota.api.TimeSlice;

/**
 * WorkerSpans against ΣMin and ΣMax, in the timeline's columns: for the default slice, and for each
 * hour the slice in force then. ΣMax is the outlined bar, ΣMin the filled one, WorkerSpans the
 * black line; a column where ΣMin > WorkerSpans or WorkerSpans > ΣMax is red, so a violation shows
 * while the slice is being drawn. Redrawn on every change of the draft.
 */
public final class SpansChartView extends Region {

    private static final double HEIGHT = 130;
    private static final double TOP = 14;
    private static final Font FONT = Font.font(11);

    private final TableEditorViewModel vm;
    private final Canvas canvas = new Canvas();

    public SpansChartView(TableEditorViewModel vm) {
        this.vm = vm;
        setId("spansChart");
        getChildren().add(canvas);
        vm.draftProperty().addListener((o, a, b) -> draw());
    }

    @Override
    protected double computePrefHeight(double width) {
        return HEIGHT;
    }

    @Override
    protected double computeMinHeight(double width) {
        return HEIGHT;
    }

    @Override
    protected double computePrefWidth(double height) {
        return 900;
    }

    @Override
    protected void layoutChildren() {
        canvas.setWidth(getWidth());
        canvas.setHeight(getHeight());
        draw();
    }

    private void draw() {
        double w = canvas.getWidth();
        double h = canvas.getHeight();
        if (w <= 0 || h <= 0) {
            return;
        }
        GraphicsContext gc = canvas.getGraphicsContext2D();
        gc.setFill(Color.WHITE);
        gc.fillRect(0, 0, w, h);
        gc.setFont(FONT);
        gc.setTextBaseline(VPos.CENTER);
        Draft d = vm.draft();
        TimelineGeometry g = new TimelineGeometry(w);

        gc.setTextAlign(TextAlignment.LEFT);
        gc.setFill(Color.web("#222"));
        gc.fillText("WorkerSpans", 4, TOP);
        legend(gc, 4, TOP + 18, Color.web("#7fa7d9"), "ΣMin");
        legend(gc, 4, TOP + 34, Color.web("#dfe8f3"), "ΣMax");
        gc.setStroke(Color.BLACK);
        gc.setLineWidth(2);
        gc.strokeLine(4, TOP + 50, 14, TOP + 50);
        gc.fillText("WorkerSpans", 18, TOP + 50);
        if (!d.workerForm()) {
            gc.fillText("resource vectors: no worker counts to chart", TimelineGeometry.LABEL + 4, h / 2);
            return;
        }
        double scale = 1;
        for (SliceLoad l : d.loads()) {
            scale = Math.max(scale, Math.max(l.sumMax(), Math.max(l.sumMin(), l.workerSpans() == null ? 0 : l.workerSpans())));
        }
        double bottom = h - 4;
        double chartHeight = bottom - TOP - 4;
        double perWorker = chartHeight / scale;

        SliceLoad dflt = d.load(TimeSlice.DEFAULT);
        if (dflt != null) {
            column(gc, TimelineGeometry.LABEL + 4, TimelineGeometry.DEFAULT - 8, bottom, perWorker, dflt, true);
        }
        for (int hour = 0; hour < Hours.DAY; hour++) {
            TimeSlice s = d.sliceAt(hour);
            SliceLoad l = s == null ? null : d.load(s);
            double x = g.x(hour);
            if (l == null) {
                gc.setFill(Color.web("#fbe3e3"));
                gc.fillRect(x, TOP, g.hourWidth(), chartHeight + 4);
                continue;
            }
            column(gc, x + 1, g.hourWidth() - 2, bottom, perWorker, l, hour == 0 || !s.equals(d.sliceAt(hour - 1)));
        }
    }

    private static void legend(GraphicsContext gc, double x, double y, Color c, String text) {
        gc.setFill(c);
        gc.fillRect(x, y - 5, 10, 10);
        gc.setFill(Color.web("#222"));
        gc.fillText(text, x + 14, y);
    }

    /** One column: red behind if the slice breaks its WorkerSpans; the numbers where the slice starts. */
    private static void column(GraphicsContext gc, double x, double width, double bottom, double perWorker, SliceLoad l, boolean label) {
        boolean broken = l.minTooHigh() || l.maxTooLow();
        if (broken) {
            gc.setFill(Color.web("#fbe3e3"));
            gc.fillRect(x, TOP, width, bottom - TOP);
        }
        gc.setFill(Color.web("#dfe8f3"));
        gc.fillRect(x, bottom - l.sumMax() * perWorker, width, l.sumMax() * perWorker);
        gc.setFill(Color.web("#7fa7d9"));
        gc.fillRect(x + width * 0.2, bottom - l.sumMin() * perWorker, width * 0.6, l.sumMin() * perWorker);
        if (l.workerSpans() != null) {
            double y = bottom - l.workerSpans() * perWorker;
            gc.setStroke(broken ? Color.web("#d23c3c") : Color.BLACK);
            gc.setLineWidth(2);
            gc.strokeLine(x, y, x + width, y);
        }
        if (label) {
            gc.setFill(broken ? Color.web("#b00000") : Color.web("#333"));
            gc.setTextAlign(TextAlignment.LEFT);
            gc.fillText(l.sumMin() + "≤" + (l.workerSpans() == null ? "?" : l.workerSpans()) + "≤" + l.sumMax(), x + 2, TOP - 6 + 12);
        }
    }
}

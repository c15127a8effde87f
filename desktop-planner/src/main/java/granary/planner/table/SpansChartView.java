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
    private static final double TOP = 22;
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
        gc.fillText("WorkerSpans", 4, TOP / 2);
        legend(gc, 4, TOP + 10, Color.web("#7fa7d9"), "ΣMin");
        legend(gc, 4, TOP + 26, Color.web("#dfe8f3"), "ΣMax");
        gc.setStroke(Color.BLACK);
        gc.setLineWidth(2);
        gc.strokeLine(4, TOP + 42, 14, TOP + 42);
        gc.fillText("WorkerSpans", 18, TOP + 42);
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
            column(gc, TimelineGeometry.LABEL + 4, TimelineGeometry.DEFAULT - 8, bottom, perWorker, dflt);
        }
        for (int hour = 0; hour < Hours.DAY; hour++) {
            TimeSlice s = d.sliceAt(hour);
            if (s == null) {
                // no slice and no default: validation lists it; here the hour is simply red
                gc.setFill(Color.web("#fbe3e3"));
                gc.fillRect(g.x(hour), TOP, g.hourWidth(), chartHeight + 4);
            } else {
                column(gc, g.x(hour) + 1, g.hourWidth() - 2, bottom, perWorker, d.load(s));
            }
        }
        // the numbers last, over the columns, once per run of hours of one slice
        if (dflt != null) {
            label(gc, TimelineGeometry.LABEL + 4, TimelineGeometry.DEFAULT - 8, dflt);
        }
        int hour = 0;
        while (hour < Hours.DAY) {
            TimeSlice s = d.sliceAt(hour);
            int end = hour + 1;
            while (end < Hours.DAY && s != null && s.equals(d.sliceAt(end))) {
                end++;
            }
            if (s != null) {
                label(gc, g.x(hour) + 1, g.x(end) - g.x(hour) - 2, d.load(s));
            }
            hour = end;
        }
    }

    private static void legend(GraphicsContext gc, double x, double y, Color c, String text) {
        gc.setFill(c);
        gc.fillRect(x, y - 5, 10, 10);
        gc.setFill(Color.web("#222"));
        gc.fillText(text, x + 14, y);
    }

    /** One column: red behind if the slice breaks its WorkerSpans, and the bar that breaks it red. */
    private static void column(GraphicsContext gc, double x, double width, double bottom, double perWorker, SliceLoad l) {
        boolean broken = l.minTooHigh() || l.maxTooLow();
        if (broken) {
            gc.setFill(Color.web("#fbe3e3"));
            gc.fillRect(x, TOP, width, bottom - TOP);
        }
        gc.setFill(l.maxTooLow() ? Color.web("#f3c4c4") : Color.web("#dfe8f3"));
        gc.fillRect(x, bottom - l.sumMax() * perWorker, width, l.sumMax() * perWorker);
        gc.setFill(l.minTooHigh() ? Color.web("#d23c3c") : Color.web("#7fa7d9"));
        gc.fillRect(x + width * 0.2, bottom - l.sumMin() * perWorker, width * 0.6, l.sumMin() * perWorker);
        if (l.workerSpans() != null) {
            double y = bottom - l.workerSpans() * perWorker;
            gc.setStroke(Color.BLACK);
            gc.setLineWidth(2);
            gc.strokeLine(x, y, x + width, y);
        }
    }

    /** ΣMin ≤ WorkerSpans ≤ ΣMax in numbers, in red where it does not hold. */
    private static void label(GraphicsContext gc, double x, double width, SliceLoad l) {
        boolean broken = l.minTooHigh() || l.maxTooLow();
        String ws = l.workerSpans() == null ? "no WorkerSpans" : Long.toString(l.workerSpans());
        String text = l.sumMin() + (l.minTooHigh() ? " > " : " ≤ ") + ws + (l.maxTooLow() ? " > " : " ≤ ") + l.sumMax();
        gc.setFill(broken ? Color.web("#b00000") : Color.web("#333"));
        gc.setTextAlign(TextAlignment.LEFT);
        gc.fillText(text, x + 2, TOP / 2, Math.max(1, width - 4));
    }
}

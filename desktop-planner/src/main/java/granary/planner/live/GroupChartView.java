package granary.planner.live;

import java.util.List;

import javafx.collections.ListChangeListener;
import javafx.collections.ObservableList;
import javafx.scene.canvas.Canvas;
import javafx.scene.canvas.GraphicsContext;
import javafx.scene.layout.Region;
import javafx.scene.paint.Color;
import javafx.scene.text.Font;

/**
 * Each group's use over the last hour against its quota: one strip per group, the used line
 * (blue), min (green, dashed) and max (red) in force, and the numbers now. Drawn on a canvas when the
 * groups change (at most once per frame, and the history moves once per sample).
 */
public final class GroupChartView extends Region {

    static final int STRIP = 46;

    private final Canvas canvas = new Canvas();
    private final ObservableList<GroupRow> groups;

    public GroupChartView(ObservableList<GroupRow> groups) {
        this.groups = groups;
        canvas.setId("groups");
        getChildren().add(canvas);
        setMinHeight(STRIP);
        groups.addListener((ListChangeListener<GroupRow>) c -> {
            requestLayout(); // the strips' count sets the height
            redraw();
        });
        widthProperty().addListener(o -> redraw());
        heightProperty().addListener(o -> redraw());
    }

    @Override
    protected double computePrefHeight(double width) {
        return Math.max(STRIP, groups.size() * STRIP);
    }

    @Override
    protected void layoutChildren() {
        canvas.setWidth(Math.floor(getWidth()));
        canvas.setHeight(Math.floor(getHeight()));
        redraw();
    }

    private void redraw() {
        double w = canvas.getWidth();
        double h = canvas.getHeight();
        GraphicsContext g = canvas.getGraphicsContext2D();
        g.setFill(Color.web("#1e1e1e"));
        g.fillRect(0, 0, w, h);
        g.setFont(Font.font(10));
        if (groups.isEmpty()) {
            g.setFill(Color.web("#a0a0a0"));
            g.fillText("no groups yet", 6, 14);
            return;
        }
        List<GroupRow> rows = List.copyOf(groups);
        for (int k = 0; k < rows.size() && (k + 1) * STRIP <= h + STRIP / 2; k++) {
            strip(g, rows.get(k), k * STRIP, w);
        }
    }

    private static void strip(GraphicsContext g, GroupRow r, double top, double w) {
        QuotaSummary.Limits q = r.limits();
        g.setFill(Color.web("#e0e0e0"));
        g.fillText(r.path() + ": used " + r.used() + (q == null ? "" : ", min " + q.min() + ", max " + q.max()
                + (q.state() == null ? "" : ", " + QuotaSummary.stateName(q.state()))) + " (" + r.unit() + ", last hour)", 6, top + 11);
        double x0 = 6;
        double y0 = top + 15;
        double cw = Math.max(10, w - 12);
        double ch = STRIP - 19;
        long[] hist = r.usedHistory();
        long top1 = Math.max(1, r.used());
        for (long v : hist) {
            top1 = Math.max(top1, v);
        }
        if (q != null) {
            top1 = Math.max(top1, Math.max(q.minValue(), q.maxValue()));
        }
        double scale = ch / (top1 * 1.1);
        g.setFill(Color.web("#2c2c2c"));
        g.fillRect(x0, y0, cw, ch);
        if (q != null && q.maxValue() >= 0) {
            g.setStroke(Color.web("#e05050"));
            g.setLineDashes();
            double y = y0 + ch - q.maxValue() * scale;
            g.strokeLine(x0, y, x0 + cw, y);
        }
        if (q != null && q.minValue() >= 0) {
            g.setStroke(Color.web("#50c050"));
            g.setLineDashes(4, 3);
            double y = y0 + ch - q.minValue() * scale;
            g.strokeLine(x0, y, x0 + cw, y);
            g.setLineDashes();
        }
        int samples = r.history() == null ? 0 : (int) Math.max(1, 3_600_000 / r.history().sampleMillis());
        if (hist.length == 0) {
            g.setFill(Color.web("#808080"));
            g.fillText("no sample yet (one per " + (r.history() == null ? 10 : r.history().sampleMillis() / 1000) + " s)", x0 + 4, y0 + ch - 6);
        } else if (hist.length == 1) {
            g.setFill(Color.web("#5aa0ff"));
            g.fillOval(x0 + cw - 3, y0 + ch - hist[0] * scale - 2, 4, 4);
        } else if (hist.length > 1 && samples > 0) {
            double dx = cw / Math.max(1, samples - 1);
            g.setStroke(Color.web("#5aa0ff"));
            g.beginPath();
            for (int k = 0; k < hist.length; k++) {
                double x = x0 + cw - (hist.length - 1 - k) * dx; // newest at the right edge
                double y = y0 + ch - hist[k] * scale;
                if (k == 0) {
                    g.moveTo(x, y);
                } else {
                    g.lineTo(x, y);
                }
            }
            g.stroke();
        }
    }
}

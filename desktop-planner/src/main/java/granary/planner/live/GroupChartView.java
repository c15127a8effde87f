package granary.planner.live;

import java.util.List;

import granary.planner.live.model.UsageHistory;
import javafx.collections.ListChangeListener;
import javafx.collections.ObservableList;
import javafx.scene.canvas.Canvas;
import javafx.scene.canvas.GraphicsContext;
import javafx.scene.layout.Region;
import javafx.scene.paint.Color;
import javafx.scene.text.Font;

/**
 * Each group's last hour against its quota (docs/planner.md, "Live view"): one strip per group, what
 * the master granted it (blue, from the stream's samples, kept across reconnects), min (green, dashed)
 * and max (red) in force, and the numbers now. Drawn on a canvas when the groups change (at most once
 * per frame; the history moves once per sample).
 */
public final class GroupChartView extends Region {

    static final int STRIP = 60;

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
        g.setFont(FONT);
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

    /** The strip's title, whole if it fits; else without the state's explanation; else cut with "…". */
    static String title(GroupRow r, QuotaSummary.Limits q, double width) {
        String head = r.path() + ": " + r.used() + " " + r.unit() + " granted" + (q == null ? "" : ", min " + q.min() + ", max " + q.max());
        String state = q == null || q.state() == null ? "" : QuotaSummary.stateName(q.state());
        String full = head + (state.isEmpty() ? "" : ", " + state);
        if (width(full) <= width) {
            return full;
        }
        int paren = state.indexOf(" (");
        String shorter = head + (state.isEmpty() ? "" : ", " + (paren < 0 ? state : state.substring(0, paren)));
        if (width(shorter) <= width) {
            return shorter;
        }
        String cut = shorter;
        while (cut.length() > 1 && width(cut + "…") > width) {
            cut = cut.substring(0, cut.length() - 1);
        }
        return cut + "…";
    }

    private static double width(String text) {
        javafx.scene.text.Text t = new javafx.scene.text.Text(text);
        t.setFont(FONT);
        return t.getLayoutBounds().getWidth();
    }

    private static final Font FONT = Font.font(10);

    /**
     * One group: a title line (its use now, min, max, state), then its last hour as a strip — a line of
     * what the master granted it, sample by sample, broken where the planner was not connected (shaded:
     * nothing seen), against its min (dashed) and max; times at the bottom, now at the right. A max far
     * above everything else is drawn at the top edge and says its value, so that the use does not go flat.
     */
    private static void strip(GraphicsContext g, GroupRow r, double top, double w) {
        QuotaSummary.Limits q = r.limits();
        g.setFill(Color.web("#e0e0e0"));
        g.fillText(title(r, q, w - 12), 6, top + 11);
        double x0 = 6;
        double y0 = top + 15;
        double cw = Math.max(10, w - 12);
        double ch = STRIP - 30;
        long[] hist = r.usedHistory();
        long seen = Math.max(1, r.used());
        for (long v : hist) {
            seen = Math.max(seen, v);
        }
        long floor = q == null ? seen : Math.max(seen, q.minValue());
        boolean maxOff = q != null && q.maxValue() > 3 * floor;
        long top1 = q == null || maxOff ? floor : Math.max(floor, q.maxValue());
        double scale = ch / (top1 * 1.15);
        g.setFill(Color.web("#2c2c2c"));
        g.fillRect(x0, y0, cw, ch);
        int n = hist.length;
        double dx = n > 1 ? cw / (n - 1) : cw;
        // not seen (not connected, or the group did not exist): shaded, no line
        g.setFill(Color.web("#3b3b3b"));
        for (int k = 0; k < n; k++) {
            if (hist[k] == UsageHistory.UNKNOWN) {
                g.fillRect(x0 + Math.max(0, k - 0.5) * dx, y0, Math.min(dx, cw), ch);
            }
        }
        if (q != null && q.maxValue() >= 0) {
            g.setStroke(Color.web("#e05050"));
            g.setLineDashes();
            double y = maxOff ? y0 + 1 : y0 + ch - q.maxValue() * scale;
            g.strokeLine(x0, y, x0 + cw, y);
            if (maxOff) {
                g.setFill(Color.web("#e05050"));
                g.fillText("max " + q.max() + " off the scale", x0 + cw - 118, y0 + 10);
            }
        }
        if (q != null && q.minValue() >= 0) {
            g.setStroke(Color.web("#50c050"));
            g.setLineDashes(4, 3);
            double y = y0 + ch - q.minValue() * scale;
            g.strokeLine(x0, y, x0 + cw, y);
            g.setLineDashes();
        }
        g.setStroke(Color.web("#5aa0ff"));
        g.setFill(Color.web("#5aa0ff"));
        g.setLineWidth(1.5);
        boolean any = false;
        for (int k = 0; k < n; k++) {
            if (hist[k] == UsageHistory.UNKNOWN) {
                continue;
            }
            any = true;
            double x = x0 + k * dx;
            double y = y0 + ch - hist[k] * scale;
            boolean joined = k > 0 && hist[k - 1] != UsageHistory.UNKNOWN;
            if (joined) {
                g.strokeLine(x0 + (k - 1) * dx, y0 + ch - hist[k - 1] * scale, x, y);
            } else if (k + 1 >= n || hist[k + 1] == UsageHistory.UNKNOWN) {
                g.fillOval(x - 1.5, y - 1.5, 3, 3); // a sample alone
            }
        }
        g.setLineWidth(1);
        g.setFill(Color.web("#9a9a9a"));
        if (!any) {
            g.fillText("no sample yet (one per " + (r.history() == null ? 10 : r.history().sampleMillis() / 1000) + " s)", x0 + 4, y0 + ch - 4);
        }
        // the time axis: an hour back to now
        double ty = y0 + ch + 10;
        g.fillText("-60 min", x0, ty);
        g.fillText("-30", x0 + cw / 2 - 8, ty);
        g.fillText("now", x0 + cw - 20, ty);
    }
}

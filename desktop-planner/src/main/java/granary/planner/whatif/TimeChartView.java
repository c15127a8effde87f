package granary.planner.whatif;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import javafx.scene.chart.LineChart;
import javafx.scene.chart.NumberAxis;
import javafx.scene.shape.Line;
import javafx.util.StringConverter;

/**
 * A line chart over the replay's real time: x is hours since the replay's start, labelled as the
 * clock (UTC) reads then ({@code d2 06:00}: the second day of the replay, 06:00), with a dashed line
 * at every midnight so that days are told apart.
 */
final class TimeChartView extends LineChart<Number, Number> {

    private final long offsetS;
    private final List<Line> midnights = new ArrayList<>();

    /**
     * @param startEpochMs when the replay started (its time of day places the midnights)
     * @param spanH        how long the replay ran, in hours
     */
    TimeChartView(String id, String title, String yLabel, long startEpochMs, double spanH) {
        super(new NumberAxis(), new NumberAxis());
        this.offsetS = Math.floorMod(startEpochMs / 1000, 86_400L);
        setId(id);
        setTitle(title);
        setAnimated(false);
        setCreateSymbols(false);
        NumberAxis x = (NumberAxis) getXAxis();
        x.setAutoRanging(false);
        x.setLowerBound(0);
        double upper = Math.max(1, Math.ceil(spanH));
        x.setUpperBound(upper);
        x.setTickUnit(upper <= 12 ? 1 : upper <= 36 ? 3 : upper <= 96 ? 6 : 24);
        x.setLabel("time since the replay's start (UTC; dashed: midnight)");
        x.setTickLabelFormatter(new StringConverter<>() {
            @Override
            public String toString(Number hours) {
                return clock(hours.doubleValue());
            }

            @Override
            public Number fromString(String s) {
                return 0;
            }
        });
        ((NumberAxis) getYAxis()).setLabel(yLabel);
        for (double h = 24 - offsetS / 3600.0; h < upper; h += 24) {
            Line l = new Line();
            l.getStrokeDashArray().addAll(4.0, 4.0);
            l.setStyle("-fx-stroke: #666666;");
            l.setUserData(h);
            l.getStyleClass().add("midnight");
            midnights.add(l);
            getPlotChildren().add(l);
        }
    }

    /** {@code d1 14:00} for an hour since the start. */
    String clock(double hours) {
        long minutes = Math.round((offsetS / 3600.0 + hours) * 60);
        long day = Math.floorDiv(minutes, 1440) + 1;
        long inDay = Math.floorMod(minutes, 1440);
        return String.format(Locale.ROOT, "d%d %02d:%02d", day, inDay / 60, inDay % 60);
    }

    /** The hours since the start at which a day begins (for tests). */
    List<Double> midnights() {
        return midnights.stream().map(l -> (Double) l.getUserData()).toList();
    }

    @Override
    protected void layoutPlotChildren() {
        super.layoutPlotChildren();
        NumberAxis x = (NumberAxis) getXAxis();
        NumberAxis y = (NumberAxis) getYAxis();
        double top = y.getDisplayPosition(y.getUpperBound());
        double bottom = y.getDisplayPosition(y.getLowerBound());
        for (Line l : midnights) {
            double px = x.getDisplayPosition((Double) l.getUserData());
            l.setStartX(px);
            l.setEndX(px);
            l.setStartY(top);
            l.setEndY(bottom);
            l.toFront();
        }
    }
}

package granary.planner.table;

/**
 * Where things are in the timeline and in the WorkerSpans chart under it, which share their
 * columns: group names, then the default slice's column, then the 24 hours. Plain arithmetic, so
 * hit tests and drawing cannot disagree, and tests can compute where to point the mouse.
 */
public record TimelineGeometry(double width) {

    /** The group names' column. */
    public static final double LABEL = 110;
    /** The default slice's column ("every hour no other slice covers"). */
    public static final double DEFAULT = 90;
    /** The hour numbers above everything. */
    public static final double HEADER = 18;
    /** The band of all slices above the group rows. */
    public static final double BAND = 24;
    public static final double ROW = 30;
    /** How near an edge of a bar the mouse must be to resize it. */
    public static final double EDGE = 5;

    /** Row index of the slices' band. */
    public static final int BAND_ROW = -1;
    /** Row index of anything above the band. */
    public static final int NO_ROW = -2;

    public double hourWidth() {
        return Math.max(12, (width - LABEL - DEFAULT - 10) / 24);
    }

    /** The x of an hour's left edge; hours past 24 or below 0 are beyond the timeline. */
    public double x(double hour) {
        return LABEL + DEFAULT + hour * hourWidth();
    }

    /** The hour at x, not cut to the day: a drag past the right edge gives hours above 24. */
    public double hourAt(double x) {
        return (x - LABEL - DEFAULT) / hourWidth();
    }

    public boolean inDefault(double x) {
        return x >= LABEL && x < LABEL + DEFAULT;
    }

    public boolean inLabels(double x) {
        return x < LABEL;
    }

    /** The top of a row; {@link #BAND_ROW} is the band. */
    public double rowY(int row) {
        return HEADER + BAND + row * ROW + (row == BAND_ROW ? ROW - BAND : 0);
    }

    /** The row at y: a group's index (may be past the last group), {@link #BAND_ROW}, or {@link #NO_ROW}. */
    public int rowAt(double y) {
        if (y < HEADER) {
            return NO_ROW;
        }
        if (y < HEADER + BAND) {
            return BAND_ROW;
        }
        return (int) Math.floor((y - HEADER - BAND) / ROW);
    }

    public double rowHeight(int row) {
        return row == BAND_ROW ? BAND : ROW;
    }

    public double height(int rows) {
        return HEADER + BAND + rows * ROW + 2;
    }
}

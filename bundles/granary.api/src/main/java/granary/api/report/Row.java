package granary.api.report;

import java.util.List;

/**
 * One row of a section.
 *
 * @param depth nesting level for trees (a queue's depth under root): the console indents by it
 * @param cells the row's values, in column order
 */
public record Row(int depth, List<Cell> cells) {

    public Row {
        if (depth < 0) {
            throw new IllegalArgumentException("a row's depth is at least 0, got " + depth);
        }
        cells = List.copyOf(cells);
    }

    public static Row of(Cell... cells) {
        return new Row(0, List.of(cells));
    }

    public static Row nested(int depth, Cell... cells) {
        return new Row(depth, List.of(cells));
    }

    /** The cell with that key, or null. */
    public Cell cell(String key) {
        for (Cell c : cells) {
            if (c.key().equals(key)) {
                return c;
            }
        }
        return null;
    }
}

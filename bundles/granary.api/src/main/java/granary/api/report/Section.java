package granary.api.report;

import java.util.List;

/**
 * A named part of a report.
 *
 * @param name      the section's name: a JSON field, and the name of the simulator's time series
 *                  ({@code <name>.csv}) when the report is sampled
 * @param layout    how the console prints it
 * @param rows      the rows; a {@link Layout#LINE} or {@link Layout#FIELDS} section has one
 * @param whenEmpty what the console prints when there are no rows (e.g. {@code no queues}), or null
 */
public record Section(String name, Layout layout, List<Row> rows, String whenEmpty) {

    /** How the console prints a section. JSON and CSV ignore it. */
    public enum Layout {
        /** One row as {@code key=value} pairs on one line. */
        LINE,
        /** One row as one {@code key=value} line per cell. */
        FIELDS,
        /** Rows as left-aligned columns, indented by depth. */
        TABLE
    }

    public Section {
        if (name == null || name.isBlank()) {
            throw new IllegalArgumentException("a report section needs a name");
        }
        rows = List.copyOf(rows);
        if (layout != Layout.TABLE && rows.size() > 1) {
            throw new IllegalArgumentException("section " + name + ": a " + layout + " section has one row, got "
                    + rows.size());
        }
    }

    public static Section line(String name, Cell... cells) {
        return new Section(name, Layout.LINE, List.of(Row.of(cells)), null);
    }

    public static Section fields(String name, Cell... cells) {
        return new Section(name, Layout.FIELDS, List.of(Row.of(cells)), null);
    }

    public static Section table(String name, List<Row> rows, String whenEmpty) {
        return new Section(name, Layout.TABLE, rows, whenEmpty);
    }
}

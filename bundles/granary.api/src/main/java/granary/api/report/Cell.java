package granary.api.report;

/**
 * One value of a report row.
 *
 * @param key     the value's name: the JSON field, the CSV column, and the label the console prints
 *                before it ({@code min=3000}) when {@code labelled}
 * @param value   a {@link String}, {@link Number}, {@link Boolean}, a model value such as
 *                {@link granary.api.model.Resources} (rendered by its text form), or null (shown as
 *                {@code -})
 * @param labelled whether the console prints {@code key=value} or the value alone (a group name, a state)
 * @param text    how the console shows the value, or null for its text form (e.g. {@code 12} for 12.3 s)
 */
public record Cell(String key, Object value, boolean labelled, String text) {

    public Cell {
        if (key == null || key.isBlank()) {
            throw new IllegalArgumentException("a report cell needs a key");
        }
    }

    /** A value the console prints as {@code key=value}. */
    public static Cell of(String key, Object value) {
        return new Cell(key, value, true, null);
    }

    /** A value the console prints alone, without its key (names, states). */
    public static Cell bare(String key, Object value) {
        return new Cell(key, value, false, null);
    }

    /** The same cell shown as {@code text} by the console (JSON and CSV keep the value). */
    public Cell shownAs(String shown) {
        return new Cell(key, value, labelled, shown);
    }

    /** What the console prints for the value alone. */
    public String display() {
        if (text != null) {
            return text;
        }
        return value == null ? "-" : value.toString();
    }
}

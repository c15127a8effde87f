package granary.codec.json;

/**
 * Where a value starts in its document: line and column, both 1-based; the column counts characters
 * (UTF-16 units) from the start of the line. {@link #NONE} is for values built in code.
 */
public record JsonPosition(int line, int column) {

    public static final JsonPosition NONE = new JsonPosition(0, 0);

    public boolean known() {
        return line > 0;
    }

    @Override
    public String toString() {
        return line + ":" + column;
    }
}

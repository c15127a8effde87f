package granary.testkit;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A scenario table: a behaviour written as data. Rows are lines of {@code |}-separated cells; the
 * first row names the columns. Blank lines, lines starting with {@code #} and separator rows
 * ({@code |---|---|}) are skipped; cells are trimmed; a cell {@code -} is empty.
 *
 * <pre>
 * | job | group | slots | granted |
 * | a   | g1    | 4     | 4       |
 * | b   | g2    | 4     | 2       |
 * </pre>
 *
 * A malformed table (a row with a different number of cells, an unknown column, a cell that is not
 * a number where one is read) fails with a message naming the line.
 */
public final class Table {

    private final List<String> columns;
    private final List<Row> rows;

    private Table(List<String> columns, List<Row> rows) {
        this.columns = columns;
        this.rows = rows;
    }

    /** Parses a table; see the class comment. */
    public static Table parse(String text) {
        List<String> columns = null;
        List<Row> rows = new ArrayList<>();
        String[] lines = text.split("\n", -1);
        for (int i = 0; i < lines.length; i++) {
            String line = lines[i].strip();
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            if (!line.startsWith("|")) {
                throw new IllegalArgumentException("table line " + (i + 1) + ": does not start with '|': " + line);
            }
            List<String> cells = cells(line);
            if (cells.stream().allMatch(c -> c.matches(":?-{3,}:?"))) {
                continue;
            }
            if (columns == null) {
                columns = List.copyOf(cells);
                continue;
            }
            if (cells.size() != columns.size()) {
                throw new IllegalArgumentException("table line " + (i + 1) + ": " + cells.size() + " cells, the header has "
                        + columns.size());
            }
            Map<String, String> m = new LinkedHashMap<>();
            for (int c = 0; c < cells.size(); c++) {
                m.put(columns.get(c), cells.get(c).equals("-") ? "" : cells.get(c));
            }
            rows.add(new Row(i + 1, Collections.unmodifiableMap(m)));
        }
        if (columns == null) {
            throw new IllegalArgumentException("table: no header row");
        }
        return new Table(columns, List.copyOf(rows));
    }

    private static List<String> cells(String line) {
        String body = line.substring(1);
        if (body.endsWith("|")) {
            body = body.substring(0, body.length() - 1);
        }
        List<String> out = new ArrayList<>();
        for (String c : body.split("\\|", -1)) {
            out.add(c.strip());
        }
        return out;
    }

    public List<String> columns() {
        return columns;
    }

    public List<Row> rows() {
        return rows;
    }

    /** One row: its cells by column name, and the line it came from (for messages). */
    public record Row(int line, Map<String, String> cells) {

        /** The cell as text ("" when empty). */
        public String text(String column) {
            String v = cells.get(column);
            if (v == null) {
                throw new IllegalArgumentException("table line " + line + ": no column '" + column + "' in " + cells.keySet());
            }
            return v;
        }

        /** The cell, or {@code otherwise} when empty. */
        public String text(String column, String otherwise) {
            String v = text(column);
            return v.isEmpty() ? otherwise : v;
        }

        /** Whether the table has this column (optional columns). */
        public boolean has(String column) {
            return cells.containsKey(column);
        }

        public boolean isEmpty(String column) {
            return text(column).isEmpty();
        }

        public int integer(String column) {
            return (int) number(column);
        }

        public long number(String column) {
            String v = text(column);
            try {
                return Long.parseLong(v.replace("_", ""));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("table line " + line + ": " + column + " '" + v + "' is not a number");
            }
        }

        /** {@code yes}/{@code true} or {@code no}/{@code false}/empty. */
        public boolean flag(String column) {
            String v = text(column).toLowerCase(java.util.Locale.ROOT);
            return switch (v) {
                case "yes", "true", "y" -> true;
                case "no", "false", "n", "" -> false;
                default -> throw new IllegalArgumentException("table line " + line + ": " + column + " '" + v
                        + "' is neither yes nor no");
            };
        }

        /** A comma-separated cell as a list ([] when empty). */
        public List<String> list(String column) {
            String v = text(column);
            if (v.isEmpty()) {
                return List.of();
            }
            List<String> out = new ArrayList<>();
            for (String s : v.split(",")) {
                out.add(s.strip());
            }
            return out;
        }

        @Override
        public String toString() {
            return "line " + line + " " + cells;
        }
    }
}

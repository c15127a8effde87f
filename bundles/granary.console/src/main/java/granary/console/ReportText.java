package granary.console;

import java.util.ArrayList;
import java.util.List;

import granary.api.report.Cell;
import granary.api.report.Report;
import granary.api.report.Row;
import granary.api.report.Section;

/**
 * Any policy's {@link Report} as console text: its message, then each section by its layout — a
 * {@code LINE} as {@code key=value} pairs on one line, {@code FIELDS} as one {@code key=value} line per
 * cell, a {@code TABLE} as aligned columns with the first column indented by the row's depth. A cell
 * that is not labelled prints its value alone.
 */
final class ReportText {

    private ReportText() {
    }

    static String render(Report report) {
        List<String> parts = new ArrayList<>();
        if (report.message() != null) {
            parts.add(report.message());
        }
        for (Section s : report.sections()) {
            String text = section(s);
            if (!text.isEmpty()) {
                parts.add(text);
            }
        }
        return String.join("\n", parts);
    }

    private static String section(Section s) {
        if (s.rows().isEmpty()) {
            return s.whenEmpty() == null ? "" : s.whenEmpty();
        }
        return switch (s.layout()) {
            case LINE -> String.join(" ", cells(s.rows().get(0)));
            case FIELDS -> String.join("\n", cells(s.rows().get(0)));
            case TABLE -> table(s.rows());
        };
    }

    private static String table(List<Row> rows) {
        List<String[]> out = new ArrayList<>();
        for (Row r : rows) {
            String[] cols = cells(r).toArray(new String[0]);
            if (cols.length > 0) {
                cols[0] = "  ".repeat(r.depth()) + cols[0];
            }
            out.add(cols);
        }
        return ConsoleText.table(out);
    }

    private static List<String> cells(Row row) {
        List<String> out = new ArrayList<>();
        for (Cell c : row.cells()) {
            out.add(c.labelled() ? c.key() + "=" + c.display() : c.display());
        }
        return out;
    }
}

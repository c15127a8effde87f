package granary.sim.trace;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Consumer;

import granary.sim.workload.ReadReport;

/**
 * Reads the data rows of a comma-separated trace file: header handling, the row limit, bad-row
 * handling, and the count of rows in the report.
 *
 * <p>Header ({@code header=auto|yes|no}): a first line that names the columns in one of the accepted
 * spellings (compared without case, spaces and underscores alike) is a header. With {@code auto}, a
 * first line whose first field should be a number but is not, and that is no accepted header, is
 * refused with the expected names — a header of another table is a mistake worth stopping for.
 */
public final class CsvTable {

    private final String[] names;
    private final List<String[]> headers;
    private final String headerMode;
    private boolean firstColumnNumeric = true;

    /**
     * @param names   the columns' names used in messages
     * @param headers accepted header spellings, each with one name per column
     * @param mode    {@code auto}, {@code yes} (the first line must be a header) or {@code no}
     */
    public CsvTable(String[] names, List<String[]> headers, String mode) {
        this.names = names;
        this.headers = headers;
        this.headerMode = mode;
    }

    /**
     * For tables whose first column is not a number (Alibaba v2018 starts with the task name): with
     * {@code auto}, the first line is a header only if it names the columns, else it is data.
     */
    public CsvTable textFirstColumn() {
        firstColumnNumeric = false;
        return this;
    }

    /** Reads every data row of {@code path} (at most {@code limit}) into {@code rows}. */
    public void read(Path path, ReadReport report, boolean skipBad, long limit, Consumer<Row> rows) {
        try (TextSource in = TextSource.open(path)) {
            read(in, report, skipBad, limit, rows);
        }
    }

    void read(TextSource in, ReadReport report, boolean skipBad, long limit, Consumer<Row> rows) {
        RowLoop loop = new RowLoop(skipBad, report);
        boolean first = true;
        long read = 0;
        for (String line = in.next(); line != null && read < limit; line = in.next()) {
            if (line.isBlank()) {
                continue;
            }
            if (first) {
                first = false;
                if (isHeader(Row.csv(in.name(), in.lineNo(), line, names))) {
                    report.fact("header", "line " + in.lineNo());
                    continue;
                }
                report.fact("header", "none");
            }
            read++;
            report.row();
            loop.handle(in, line, l -> rows.accept(Row.csv(in.name(), in.lineNo(), l, names).expect(names.length)));
        }
        loop.done(in);
    }

    private boolean isHeader(Row row) {
        if ("no".equals(headerMode)) {
            return false;
        }
        for (String[] h : headers) {
            if (matches(row, h)) {
                return true;
            }
        }
        if ("auto".equals(headerMode) && (isNumber(row.text(0)) || !firstColumnNumeric)) {
            return false;   // a data row
        }
        List<String> expected = new ArrayList<>();
        for (String[] h : headers) {
            expected.add(String.join(",", h));
        }
        throw row.error(1, ("yes".equals(headerMode) ? "expected a header line" : "the first line is not a number, so it "
                + "must be a header") + " naming the columns as one of: " + String.join("  |  ", expected)
                + "; got: " + String.join(",", texts(row)));
    }

    private static boolean matches(Row row, String[] header) {
        if (row.size() != header.length) {
            return false;
        }
        for (int i = 0; i < header.length; i++) {
            if (!norm(row.text(i)).equals(norm(header[i]))) {
                return false;
            }
        }
        return true;
    }

    private static List<String> texts(Row row) {
        List<String> t = new ArrayList<>();
        for (int i = 0; i < row.size(); i++) {
            t.add(row.text(i));
        }
        return t;
    }

    private static String norm(String s) {
        return s.trim().toLowerCase(Locale.ROOT).replace(' ', '_');
    }

    static boolean isNumber(String s) {
        try {
            Double.parseDouble(s.trim());
            return !s.isBlank();
        } catch (NumberFormatException e) {
            return false;
        }
    }
}

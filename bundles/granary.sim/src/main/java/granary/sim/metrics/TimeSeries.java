package granary.sim.metrics;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;

/** A table of samples over simulated time, written as CSV; numbers are formatted the same on every machine. */
public final class TimeSeries {

    private final List<String> header;
    private final List<String> rows = new ArrayList<>();

    public TimeSeries(List<String> header) {
        this.header = List.copyOf(header);
    }

    public void add(Object... values) {
        StringBuilder sb = new StringBuilder();
        for (Object v : values) {
            if (sb.length() > 0) {
                sb.append(',');
            }
            sb.append(format(v));
        }
        rows.add(sb.toString());
    }

    public static String format(Object v) {
        if (v instanceof Double d) {
            return String.format(Locale.ROOT, "%.6f", d).replaceAll("0+$", "").replaceAll("\\.$", "");
        }
        return String.valueOf(v);
    }

    public List<String> header() {
        return header;
    }

    public List<String> rows() {
        return Collections.unmodifiableList(rows);
    }

    public String csv() {
        StringBuilder sb = new StringBuilder(String.join(",", header)).append('\n');
        rows.forEach(r -> sb.append(r).append('\n'));
        return sb.toString();
    }
}

package granary.sim.metrics;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import granary.api.model.Resources;
import granary.api.report.Cell;
import granary.api.report.Row;

/**
 * A row of a policy's report table as CSV values: one column per cell, named by its key; a cell
 * holding {@link Resources} becomes one column per resource of the cluster ({@code used_cpu},
 * {@code used_mem}, {@code used_gpu}); a missing value is empty. The simulator names no policy: the
 * columns come from the rows.
 */
public final class ReportColumns {

    private final List<String> dims;

    /** @param dims the cluster's resources, in column order ({@code cpu}, {@code mem}, then extended ones) */
    public ReportColumns(List<String> dims) {
        this.dims = List.copyOf(dims);
    }

    /** The row's values by column name, in the row's order. */
    public Map<String, Object> values(Row row) {
        Map<String, Object> out = new LinkedHashMap<>();
        for (Cell c : row.cells()) {
            if (c.value() instanceof Resources r) {
                for (String d : dims) {
                    out.put(c.key() + "_" + d, r.get(d));
                }
            } else {
                out.put(c.key(), c.value() == null ? "" : c.value());
            }
        }
        return out;
    }

    /** The values of {@code row} under {@code header}, after {@code first} (e.g. the sample's time). */
    public static Object[] line(List<Object> first, List<String> header, Map<String, Object> values) {
        List<Object> out = new ArrayList<>(first);
        for (String h : header.subList(first.size(), header.size())) {
            out.add(values.getOrDefault(h, ""));
        }
        return out.toArray();
    }
}

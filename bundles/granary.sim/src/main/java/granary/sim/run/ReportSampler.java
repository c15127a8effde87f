package granary.sim.run;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import granary.api.report.Report;
import granary.api.report.Row;
import granary.api.report.Section;
import granary.api.spi.EngineView;
import granary.api.spi.Policy;
import granary.api.spi.PolicyDeclaration;
import granary.api.spi.ReportSpec;
import granary.sim.metrics.ReportColumns;
import granary.sim.metrics.TimeSeries;

/**
 * The reports of the replay's policies, without naming any: the reports declared {@code sampled} are
 * read at every sample, each table section becoming a time series of its own ({@code time_s}, then
 * its columns); at the end every report is read once. A section name another policy already used is
 * prefixed with the policy's name ({@code quota-groups}).
 */
final class ReportSampler {

    private record Source(String policy, ReportSpec spec) {
    }

    private final EngineView view;
    private final Map<String, PolicyDeclaration> declarations;
    private final ReportColumns columns;
    private final List<Source> sampled = new ArrayList<>();
    private final Map<String, TimeSeries> series = new LinkedHashMap<>();
    private final Map<String, String> owners = new LinkedHashMap<>();

    ReportSampler(EngineView view, Map<String, PolicyDeclaration> declarations, List<String> dims) {
        this.view = view;
        this.declarations = declarations;
        this.columns = new ReportColumns(dims);
        declarations.forEach((name, d) -> d.reports().stream().filter(ReportSpec::sampled)
                .forEach(r -> sampled.add(new Source(name, r))));
    }

    /** Reads the sampled reports at {@code timeS} (seconds since trace time 0). */
    void sample(long timeS) {
        for (Source s : sampled) {
            Report r = read(s.policy, s.spec);
            if (r == null) {
                continue;
            }
            for (Section sec : r.sections()) {
                if (sec.layout() == Section.Layout.TABLE) {
                    for (Row row : sec.rows()) {
                        add(series, s.policy, sec.name(), List.of(timeS), List.of("time_s"), row);
                    }
                }
            }
        }
    }

    /** The time series of the sampled reports' tables, by name ({@code groups}, {@code queues}). */
    Map<String, TimeSeries> series() {
        return Collections.unmodifiableMap(series);
    }

    /** Every report of every policy (those with parameters read without arguments): policy → report name → report. */
    Map<String, Map<String, Report>> readAll() {
        Map<String, Map<String, Report>> out = new LinkedHashMap<>();
        declarations.forEach((name, d) -> {
            for (ReportSpec spec : d.reports()) {
                Report r = read(name, spec);
                if (r != null) {
                    out.computeIfAbsent(name, k -> new LinkedHashMap<>()).put(spec.name(), r);
                }
            }
        });
        return out;
    }

    /** The table sections of the reports that are not sampled, as they are at the end ({@code billing}). */
    Map<String, TimeSeries> tablesAtEnd(Map<String, Map<String, Report>> all) {
        Map<String, TimeSeries> tables = new LinkedHashMap<>();
        declarations.forEach((name, d) -> {
            for (ReportSpec spec : d.reports()) {
                Report r = all.getOrDefault(name, Map.of()).get(spec.name());
                if (spec.sampled() || r == null) {
                    continue;
                }
                for (Section sec : r.sections()) {
                    if (sec.layout() == Section.Layout.TABLE) {
                        for (Row row : sec.rows()) {
                            add(tables, name, sec.name(), List.of(), List.of(), row);
                        }
                    }
                }
            }
        });
        return tables;
    }

    private Report read(String policy, ReportSpec spec) {
        Policy p = view.policy(policy);
        return p == null ? null : spec.read(p, view);
    }

    private void add(Map<String, TimeSeries> into, String policy, String section, List<Object> first, List<String> firstNames,
                     Row row) {
        String key = owners.getOrDefault(policy + "\u0000" + section, null);
        if (key == null) {
            key = into.containsKey(section) || owners.containsValue(section) ? policy + "-" + section : section;
            owners.put(policy + "\u0000" + section, key);
        }
        Map<String, Object> values = columns.values(row);
        TimeSeries ts = into.get(key);
        if (ts == null) {
            List<String> header = new ArrayList<>(firstNames);
            header.addAll(values.keySet());
            ts = new TimeSeries(header);
            into.put(key, ts);
        }
        ts.add(ReportColumns.line(first, ts.header(), values));
    }
}

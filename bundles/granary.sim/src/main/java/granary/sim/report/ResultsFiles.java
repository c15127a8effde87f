package granary.sim.report;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import granary.sim.run.Replay;
import granary.sim.run.RunResult;

/**
 * Writes a report into an output directory:
 * <pre>
 * results.json                 everything measured, per policy set (see {@link ResultsJson})
 * summary.txt                  the summary printed on the terminal
 * &lt;n&gt;-&lt;set&gt;/timeseries.csv     per sample: utilisation per resource, running slots, waiting units and
 *                              slots, stranded free share per resource, jobs submitted, unit timeouts so far
 * &lt;n&gt;-&lt;set&gt;/&lt;section&gt;.csv    per table section of the set's policies' reports: for a sampled
 *                              report, per sample ({@code time_s}) and row; for another report, its
 *                              rows at the end. Columns are the cells' keys; resources take one column
 *                              per resource ({@code used_cpu}, {@code used_mem}). E.g. the quota
 *                              policy's groups.csv and billing.csv, the queues policy's queues.csv.
 * </pre>
 */
public final class ResultsFiles {

    private ResultsFiles() {
    }

    /** Writes the files; returns the paths written. */
    public static List<Path> write(Path dir, Replay.Report report, String summary) {
        List<Path> written = new ArrayList<>();
        try {
            Files.createDirectories(dir);
            written.add(write(dir.resolve("results.json"), ResultsJson.write(report)));
            written.add(write(dir.resolve("summary.txt"), summary));
            for (int i = 0; i < report.runs().size(); i++) {
                RunResult r = report.runs().get(i);
                Path d = dir.resolve(folder(i, r.label()));
                Files.createDirectories(d);
                written.add(write(d.resolve("timeseries.csv"), r.series().csv()));
                for (var t : r.reportSeries().entrySet()) {
                    written.add(write(d.resolve(t.getKey() + ".csv"), t.getValue().csv()));
                }
                for (var t : r.reportTables().entrySet()) {
                    written.add(write(d.resolve(t.getKey() + ".csv"), t.getValue().csv()));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the results to " + dir.toAbsolutePath() + ": " + e.getMessage(), e);
        }
        return written;
    }

    /** {@code 1-fifo}, {@code 2-quota+submitwindow}: the set's policies, joined by '+', options left out. */
    public static String folder(int index, String label) {
        List<String> names = new ArrayList<>();
        for (String p : label.split(",")) {
            names.add(p.split(":")[0].trim());
        }
        return (index + 1) + "-" + String.join("+", names).replaceAll("[^A-Za-z0-9._+-]", "_");
    }

    private static Path write(Path p, String text) throws IOException {
        Files.writeString(p, text, StandardCharsets.UTF_8);
        return p;
    }
}

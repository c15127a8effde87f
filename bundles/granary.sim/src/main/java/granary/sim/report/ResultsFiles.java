package granary.sim.report;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import granary.policy.quota.api.BillingRow;
import granary.sim.run.Replay;
import granary.sim.run.RunResult;

/**
 * Writes a report into an output directory:
 * <pre>
 * results.json                 everything measured, per policy set (see {@link ResultsJson})
 * summary.txt                  the summary printed on the terminal
 * &lt;n&gt;-&lt;set&gt;/timeseries.csv     per sample: utilisation per resource, running slots, waiting units and
 *                              slots, stranded free share per resource, jobs submitted, unit timeouts so far
 * &lt;n&gt;-&lt;set&gt;/groups.csv         per sample and group, with a quota policy: state, used, min, max
 * &lt;n&gt;-&lt;set&gt;/queues.csv         per sample and queue (full path), with a queue policy: used, guaranteed and
 *                              maximum cpu / memory, running jobs, jobs, waiting slots
 * &lt;n&gt;-&lt;set&gt;/billing.csv        with a quota policy: per day, slice and group the billed usage
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
                if (!r.groupSeries().rows().isEmpty()) {
                    written.add(write(d.resolve("groups.csv"), r.groupSeries().csv()));
                }
                if (!r.queueSeries().rows().isEmpty()) {
                    written.add(write(d.resolve("queues.csv"), r.queueSeries().csv()));
                }
                if (!r.billing().isEmpty()) {
                    written.add(write(d.resolve("billing.csv"), billing(r.billing())));
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

    private static String billing(List<BillingRow> rows) {
        StringBuilder sb = new StringBuilder("day,slice,group,slot_seconds,cpu_core_seconds,mem_gib_seconds\n");
        for (BillingRow b : rows) {
            sb.append(String.format(Locale.ROOT, "%s,%s,%s,%.3f,%.3f,%.3f\n", b.day(), b.slice(), b.group(), b.slotSeconds(),
                    b.cpuCoreSeconds(), b.memGibSeconds()));
        }
        return sb.toString();
    }
}

package granary.canary;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Live beside shadow over the window, one row per metric and per group (group {@code *} = all),
 * and what happened: the phase, divergences, promotion and rollback (docs/canary.md, "The report").
 */
public record CanaryReport(String phase, List<String> live, List<String> candidate, long elapsedMillis,
                           long windowMillis, List<Row> rows, long divergences, List<String> divergenceMessages,
                           List<String> log) {

    /** One metric of one group on both sides; NaN where there is no value (no unit waited). */
    public record Row(Metric metric, String group, double live, double shadow) {

        /** shadow − live. */
        public double difference() {
            return shadow - live;
        }
    }

    public CanaryReport {
        live = List.copyOf(live);
        candidate = List.copyOf(candidate);
        rows = List.copyOf(rows);
        divergenceMessages = List.copyOf(divergenceMessages);
        log = List.copyOf(log);
    }

    /** The row of a metric and group ({@code *} for all), or null. */
    public Row row(Metric m, String group) {
        return rows.stream().filter(r -> r.metric() == m && r.group().equals(group)).findFirst().orElse(null);
    }

    /** As the console prints it: a header, an aligned table, then divergences and the log. */
    public String text() {
        StringBuilder b = new StringBuilder();
        b.append("canary ").append(phase).append(" live=").append(String.join(",", live))
                .append(" candidate=").append(String.join(",", candidate))
                .append(" window=").append(elapsedMillis / 1000).append("s/").append(windowMillis / 1000).append('s')
                .append(" divergences=").append(divergences).append('\n');
        List<String[]> cells = new ArrayList<>();
        cells.add(new String[] {"metric", "group", "live", "shadow", "shadow-live"});
        for (Row r : rows) {
            cells.add(new String[] {r.metric().id(), r.group(), format(r.metric(), r.live()), format(r.metric(), r.shadow()),
                    format(r.metric(), r.difference())});
        }
        int[] width = new int[5];
        cells.forEach(c -> {
            for (int i = 0; i < c.length; i++) {
                width[i] = Math.max(width[i], c[i].length());
            }
        });
        for (String[] c : cells) {
            StringBuilder line = new StringBuilder("  ");
            for (int i = 0; i < c.length; i++) {
                line.append(i < 2 ? pad(c[i], width[i]) : padLeft(c[i], width[i])).append("  ");
            }
            b.append(line.toString().stripTrailing()).append('\n');
        }
        divergenceMessages.forEach(m -> b.append("  diverged: ").append(m).append('\n'));
        log.forEach(l -> b.append("  ").append(l).append('\n'));
        return b.toString().stripTrailing();
    }

    private static String format(Metric m, double v) {
        if (Double.isNaN(v)) {
            return "-";
        }
        return switch (m) {
            case UTILISATION -> String.format(Locale.ROOT, "%.1f%%", v * 100);
            case WAIT_P50, WAIT_P90 -> String.format(Locale.ROOT, "%.1fs", v / 1000);
            default -> String.format(Locale.ROOT, "%.0f", v);
        };
    }

    private static String pad(String s, int w) {
        return s + " ".repeat(w - s.length());
    }

    private static String padLeft(String s, int w) {
        return " ".repeat(w - s.length()) + s;
    }
}

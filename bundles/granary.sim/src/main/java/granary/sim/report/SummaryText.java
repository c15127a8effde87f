package granary.sim.report;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;
import java.util.function.Function;

import granary.api.model.NodeSpec;
import granary.api.model.Resources;
import granary.sim.metrics.GroupUsage;
import granary.sim.metrics.Stats;
import granary.sim.run.Replay;
import granary.sim.run.RunResult;
import granary.sim.workload.ReadReport;

/**
 * The human summary: what was read, then one column per policy set, side by side, and which set
 * produced the fewest wait-for-resource timeouts.
 */
public final class SummaryText {

    private static final int MAX_GROUP_ROWS = 12;

    private SummaryText() {
    }

    public static String of(Replay.Report report) {
        StringBuilder sb = new StringBuilder();
        header(report, sb);
        List<RunResult> runs = report.runs();
        if (runs.isEmpty()) {
            return sb.toString();
        }
        List<String[]> rows = new ArrayList<>();
        long th = runs.get(0).timeouts().thresholdMs();
        rows.add(row(runs, "policies", RunResult::label));
        rows.add(row(runs, "jobs submitted / refused", r -> n(r.jobs().submitted()) + " / " + n(r.jobs().refused())));
        rows.add(row(runs, "wait-for-resource timeouts (> " + secs(th) + " s)",
                r -> n(r.timeouts().jobs()) + " (" + pct(r.timeouts().share()) + ")"));
        groupRows(runs, rows);
        rows.add(row(runs, "job wait p50 / p90 / p99 (s)", r -> waits(r.waits().jobs())));
        for (String size : sizeClasses(runs)) {
            rows.add(row(runs, "  jobs of " + size + " slots: count / p99 / max wait (s)", r -> r.waits().jobsBySize().stream()
                    .filter(c -> c.label().equals(size)).findFirst()
                    .map(c -> n(c.waits().count()) + " / " + secs(c.waits().p99()) + " / " + secs(c.waits().max())).orElse("-")));
        }
        rows.add(row(runs, "unit wait p50 / p90 / p99 (s)", r -> waits(r.waits().units())));
        rows.add(row(runs, "slot wait p50 / p90 / p99 (s)", r -> waits(r.waits().slots())));
        rows.add(row(runs, "never started at the end", r -> n(r.jobs().neverStarted())));
        rows.add(row(runs, "utilisation " + String.join(" / ", runs.get(0).utilisation().keySet()),
                r -> String.join(" / ", r.utilisation().values().stream().map(SummaryText::pct).toList())));
        rows.add(row(runs, "utilisation while work waits " + String.join(" / ", runs.get(0).backlog().utilisation().keySet()),
                r -> String.join(" / ", r.backlog().utilisation().values().stream()
                        .map(v -> v.isNaN() ? "-" : pct(v)).toList()) + " (" + duration((long) (r.backlog().seconds() * 1000)) + ")"));
        if (runs.stream().anyMatch(r -> r.groups().values().stream().anyMatch(g -> g.belowMinSeconds() > 0 || g.overMaxSeconds() > 0
                || g.revokedSlots() > 0))) {
            rows.add(row(runs, "below min with demand: total / longest (s)", r -> n(Math.round(r.groups().values().stream()
                    .mapToDouble(RunResult.GroupRow::belowMinSeconds).sum())) + " / " + n(Math.round(r.groups().values().stream()
                    .mapToDouble(RunResult.GroupRow::longestBelowMinSeconds).max().orElse(0)))));
            for (String g : groupNames(runs)) {
                rows.add(row(runs, "  " + g + ": below min / longest / over max (s), revoked",
                        r -> { RunResult.GroupRow x = r.groups().get(g);
                            return x == null ? "-" : n(Math.round(x.belowMinSeconds())) + " / " + n(Math.round(x.longestBelowMinSeconds()))
                                    + " / " + n(Math.round(x.overMaxSeconds())) + ", " + n(x.revokedSlots()); }));
            }
            rows.add(row(runs, "below min with demand over " + GroupUsage.GUARANTEE_BOUND_MS / 1000 + " s: stretches (longest at s)",
                    r -> { List<RunResult.Stretch> all = new ArrayList<>();
                        r.groups().values().forEach(x -> all.addAll(x.longestStretches()));
                        long count = r.groups().values().stream().mapToLong(RunResult.GroupRow::stretchesOverBound).sum();
                        return n(count) + all.stream().max(java.util.Comparator.comparingDouble(RunResult.Stretch::seconds))
                                .map(x -> " (" + n(Math.round(x.startSeconds())) + ")").orElse(""); }));
            for (String cause : stretchCauses(runs)) {
                rows.add(row(runs, "  charged to " + cause + ": stretches / s",
                        r -> { long k = 0;
                            double sec = 0;
                            for (RunResult.GroupRow x : r.groups().values()) {
                                for (RunResult.Stretch st : x.stretches()) {
                                    if (st.cause().equals(cause)) {
                                        k++;
                                        sec += st.seconds();
                                    }
                                }
                            }
                            return n(k) + " / " + n(Math.round(sec)); }));
            }
        }
        rows.add(row(runs, "stranded free cpu (mean, of capacity)", r -> pct(r.strandedShare().getOrDefault("cpu", 0.0))));
        rows.add(row(runs, "revoked slots", r -> n(r.revocations().slots())));
        if (runs.stream().anyMatch(r -> r.revocations().slots() > 0)) {
            rows.add(row(runs, "work lost to revocations (slot-s, of all slot-s)", r -> n(Math.round(r.revocations().lostSlotSeconds()))
                    + " (" + pct3(share(r.revocations().lostSlotSeconds(), r.groups().values().stream()
                    .mapToDouble(RunResult.GroupRow::slotSeconds).sum())) + ")"));
            for (String g : groupNames(runs)) {
                rows.add(row(runs, "  " + g + ": work lost (slot-s, of its slot-s)", r -> {
                    RunResult.GroupRow x = r.groups().get(g);
                    return x == null ? "-" : n(Math.round(x.lostSlotSeconds())) + " (" + pct3(x.lostShare()) + ")";
                }));
            }
        }
        rows.add(row(runs, "decisions / slot grants", r -> n(r.decisions()) + " / " + n(r.slotGrants())));
        rows.add(row(runs, "simulated time", r -> duration(r.simulatedMs())));
        rows.add(row(runs, "wall time / speed-up", r -> String.format(Locale.ROOT, "%.1f s / %sx", r.performance().wallSeconds(),
                n(Math.round(r.performance().speedUp())))));
        rows.add(row(runs, "decisions / slot grants per wall s", r -> n(Math.round(r.performance().decisionsPerSecond())) + " / "
                + n(Math.round(r.performance().slotGrantsPerSecond()))));
        table(rows, sb);
        for (RunResult r : runs) {
            for (String note : r.notes()) {
                sb.append("note [").append(r.label()).append("]: ").append(note).append('\n');
            }
            if (r.jobs().refused() > 0 || r.jobs().unitsRefused() > 0) {
                sb.append("refused [").append(r.label()).append("]: ").append(r.jobs().refusals()).append(
                        r.jobs().refusalExamples().isEmpty() ? "" : "; e.g. " + r.jobs().refusalExamples().get(0)).append('\n');
            }
        }
        verdict(runs, sb);
        return sb.toString();
    }

    private static void header(Replay.Report report, StringBuilder sb) {
        Replay.Request r = report.request();
        ReadReport rr = report.workload().report();
        sb.append("trace ").append(r.format().id()).append(r.tracePath() == null ? "" : ":" + r.tracePath())
                .append(": ").append(n(rr.rows())).append(" rows -> ").append(n(report.workload().jobs().size())).append(" jobs, ")
                .append(n(report.workload().units())).append(" units, ").append(n(report.workload().slots())).append(" slots\n");
        reasons("skipped", rr, rr.skipped(), sb);
        reasons("defaulted", rr, rr.defaulted(), sb);
        reasons("adjusted", rr, rr.adjusted(), sb);
        Resources cap = Resources.ZERO;
        for (NodeSpec n : report.nodes()) {
            cap = cap.plus(n.capacity());
        }
        sb.append("cluster: ").append(n(report.nodes().size())).append(" nodes in ")
                .append(report.nodes().stream().map(NodeSpec::room).distinct().count()).append(" room(s), capacity ").append(cap)
                .append('\n').append('\n');
    }

    private static void reasons(String what, ReadReport rr, Map<String, Long> m, StringBuilder sb) {
        m.forEach((reason, count) -> sb.append("  ").append(what).append(' ').append(n(count)).append(": ").append(reason)
                .append(rr.examples(reason).isEmpty() ? "" : " (e.g. " + rr.examples(reason).get(0) + ")").append('\n'));
    }

    /** Groups with jobs in any run, when there are few enough to list. */
    private static List<String> groupNames(List<RunResult> runs) {
        TreeSet<String> groups = new TreeSet<>();
        runs.forEach(r -> r.groups().forEach((g, row) -> {
            if (row.jobs() > 0) {
                groups.add(g);
            }
        }));
        return groups.size() > MAX_GROUP_ROWS ? List.of() : List.copyOf(groups);
    }

    private static void groupRows(List<RunResult> runs, List<String[]> rows) {
        TreeSet<String> groups = new TreeSet<>();
        runs.forEach(r -> r.groups().forEach((g, row) -> {
            if (row.jobs() > 0) {
                groups.add(g);
            }
        }));
        if (groups.size() < 2 || groups.size() > MAX_GROUP_ROWS) {
            return;
        }
        for (String g : groups) {
            rows.add(row(runs, "  in " + g, r -> {
                RunResult.GroupRow row = r.groups().get(g);
                return row == null ? "-" : n(row.timeouts()) + " of " + n(row.jobs());
            }));
        }
    }

    private static void verdict(List<RunResult> runs, StringBuilder sb) {
        RunResult best = fewestTimeouts(runs);
        if (runs.size() < 2 || best == null) {
            return;
        }
        List<String> others = new ArrayList<>();
        for (RunResult r : runs) {
            if (r != best) {
                others.add(r.label() + " " + n(r.timeouts().jobs()));
            }
        }
        boolean tie = runs.stream().filter(r -> r.timeouts().jobs() == best.timeouts().jobs()).count() > 1;
        sb.append('\n').append(tie ? "equal fewest wait-for-resource timeouts: " : "fewest wait-for-resource timeouts: ")
                .append(best.label()).append(" (").append(n(best.timeouts().jobs())).append("; ")
                .append(String.join(", ", others)).append(")\n");
    }

    /** The set with the fewest timed-out jobs (the first of equals), or null. */
    public static RunResult fewestTimeouts(List<RunResult> runs) {
        RunResult best = null;
        for (RunResult r : runs) {
            if (best == null || r.timeouts().jobs() < best.timeouts().jobs()) {
                best = r;
            }
        }
        return best;
    }

    private static String[] row(List<RunResult> runs, String name, Function<RunResult, String> cell) {
        String[] row = new String[runs.size() + 1];
        row[0] = name;
        for (int i = 0; i < runs.size(); i++) {
            row[i + 1] = cell.apply(runs.get(i));
        }
        return row;
    }

    private static void table(List<String[]> rows, StringBuilder sb) {
        int[] width = new int[rows.get(0).length];
        for (String[] r : rows) {
            for (int i = 0; i < r.length; i++) {
                width[i] = Math.max(width[i], r[i].length());
            }
        }
        for (String[] r : rows) {
            StringBuilder line = new StringBuilder();
            for (int i = 0; i < r.length; i++) {
                line.append(i == 0 ? pad(r[i], width[i]) : "  " + pad(r[i], width[i]));
            }
            sb.append(line.toString().stripTrailing()).append('\n');
        }
    }

    private static String pad(String s, int w) {
        return s + " ".repeat(Math.max(0, w - s.length()));
    }

    /** The job size classes any run had, smallest first (docs/multi-tenancy.md, "Choices and their defaults"). */
    private static List<String> sizeClasses(List<RunResult> runs) {
        java.util.TreeMap<Long, String> all = new java.util.TreeMap<>();
        runs.forEach(r -> r.waits().jobsBySize().forEach(c -> all.put(c.fromSlots(), c.label())));
        return List.copyOf(all.values());
    }

    private static String waits(Stats s) {
        return s.count() == 0 ? "-" : secs(s.p50()) + " / " + secs(s.p90()) + " / " + secs(s.p99());
    }

    static String secs(long ms) {
        return ms % 1000 == 0 ? n(ms / 1000) : String.format(Locale.ROOT, "%.1f", ms / 1000.0);
    }

    static String n(long v) {
        return String.format(Locale.ROOT, "%,d", v);
    }

    /** The causes long stretches below min were charged to, in any run, most time first over all runs. */
    private static List<String> stretchCauses(List<RunResult> runs) {
        java.util.Map<String, Double> time = new java.util.HashMap<>();
        runs.forEach(r -> r.groups().values().forEach(g -> g.stretches().forEach(st -> time.merge(st.cause(), st.seconds(), Double::sum))));
        return time.entrySet().stream().sorted(java.util.Map.Entry.<String, Double>comparingByValue().reversed())
                .map(java.util.Map.Entry::getKey).toList();
    }

    /** A small share, to a thousandth of a per cent: work lost is a fraction of a per cent when all is well. */
    static String pct3(double share) {
        return String.format(Locale.ROOT, "%.3f%%", share * 100);
    }

    private static double share(double part, double whole) {
        return whole <= 0 ? 0 : part / whole;
    }

    static String pct(double share) {
        return String.format(Locale.ROOT, "%.1f%%", share * 100);
    }

    static String duration(long ms) {
        long s = ms / 1000;
        if (s < 120) {
            return s + " s";
        }
        if (s < 7200) {
            return String.format(Locale.ROOT, "%.1f min", s / 60.0);
        }
        if (s < 172_800) {
            return String.format(Locale.ROOT, "%.1f h", s / 3600.0);
        }
        return String.format(Locale.ROOT, "%.1f days", s / 86_400.0);
    }
}

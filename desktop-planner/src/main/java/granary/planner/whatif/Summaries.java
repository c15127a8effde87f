package granary.planner.whatif;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import granary.sim.metrics.TimeSeries;
import granary.sim.run.RunResult;

/**
 * Reads what the charts need out of a {@link RunResult}: utilisation from the simulator's own time
 * series, each group's used / min / max from the quota policy's sampled {@code quota} report (its
 * {@code groups} table), billing from its {@code billing} report at the end. The simulator names no
 * policy in its results, so the tables are found by their columns.
 */
final class Summaries {

    private Summaries() {
    }

    static RunSummary of(String label, RunResult r, TableGroups names) {
        return of(label, r, names, null, 0);
    }

    /**
     * @param table        the side's table: each group's min and max over real time come from the slice in
     *                     force at each moment (null: none drawn)
     * @param startEpochMs when trace time 0 was replayed (its time of day places the hours)
     */
    static RunSummary of(String label, RunResult r, TableGroups names, granary.policy.quota.api.QuotaTable table,
                         long startEpochMs) {
        long offsetS = Math.floorMod(startEpochMs / 1000, 86_400L);
        RunResult.Jobs jobs = r.jobs();
        HourOfDay cpu = new HourOfDay(offsetS);
        HourOfDay mem = new HourOfDay(offsetS);
        Csv series = new Csv(r.series());
        long last = 0;
        for (String[] row : series.rows) {
            long t = series.longAt(row, "time_s");
            // a sample's utilisation is the mean over the interval since the sample before
            cpu.add(last, t, series.doubleAt(row, "cpu_util"));
            mem.add(last, t, series.doubleAt(row, "mem_util"));
            last = t;
        }
        Map<String, GroupHours> hours = groupHours(table(r.reportSeries(), "groups", "used", "used_cpu"), names, offsetS);
        Map<String, double[]> billing = billing(table(r.reportTables(), "billing", "slot_seconds", "slot_seconds"), names);

        Map<String, GroupSummary> groups = new LinkedHashMap<>();
        for (String g : names.names()) {
            groups.put(g, null);   // the tables' order first
        }
        r.groups().keySet().forEach(replayName -> groups.putIfAbsent(names.tableName(replayName), null));
        hours.keySet().forEach(g -> groups.putIfAbsent(g, null));
        Map<String, RunResult.GroupRow> rows = new HashMap<>();
        r.groups().forEach((replayName, row) -> rows.put(names.tableName(replayName), row));
        for (String g : groups.keySet()) {
            RunResult.GroupRow row = rows.get(g);
            GroupHours h = hours.getOrDefault(g, new GroupHours(offsetS));
            double[] billed = billing.getOrDefault(g, new double[2]);
            double spanH = r.simulatedMs() / 3_600_000.0;
            groups.put(g, new GroupSummary(g, row == null ? 0 : row.jobs(), row == null ? 0 : row.timeouts(),
                    row == null ? 0 : row.peakSlots(), h.used.means(), h.min.means(), h.max.means(), billed[0], billed[1],
                    row == null ? 0 : row.belowMinSeconds(), row == null ? 0 : row.revokedSlots(),
                    new Curve(h.usedHours, h.usedValues), quotaCurve(table, g, offsetS, spanH, true),
                    quotaCurve(table, g, offsetS, spanH, false)));
        }
        return new RunSummary(label, r, jobs.submitted() + jobs.refused(), jobs.finished(), jobs.refused(),
                r.timeouts().jobs(), r.timeouts().share(), r.waits().jobs(), cpu.means(), mem.means(), groups);
    }

    private static final class GroupHours {
        final HourOfDay used;
        final HourOfDay min;
        final HourOfDay max;
        final List<Double> usedHours = new java.util.ArrayList<>();
        final List<Double> usedValues = new java.util.ArrayList<>();

        GroupHours(long offsetS) {
            used = new HourOfDay(offsetS);
            min = new HourOfDay(offsetS);
            max = new HourOfDay(offsetS);
        }
    }

    /**
     * A group's MinQuota or MaxQuota over the replay's real time, read from the table at each hour:
     * the slice in force then (a group the slice does not name has 0). A step at each change.
     * Amounts as the quota report gives them: slots, or cores for a table of resources.
     */
    static Curve quotaCurve(granary.policy.quota.api.QuotaTable table, String group, long offsetS, double spanH, boolean min) {
        if (table == null || spanH <= 0) {
            return Curve.EMPTY;
        }
        List<Double> hs = new java.util.ArrayList<>();
        List<Double> vs = new java.util.ArrayList<>();
        long firstHour = offsetS / 3600;
        double value = Double.NaN;
        // the start, then each hour of the day's beginning after it, in whole hours: no rounding can stall
        for (long k = 0; ; k++) {
            double t = k == 0 ? 0 : ((firstHour + k) * 3600 - offsetS) / 3600.0;
            if (t > spanH) {
                break;
            }
            int hour = (int) ((firstHour + k) % 24);
            granary.policy.quota.api.TimeSlice s = table.sliceAt(hour);
            granary.policy.quota.api.GroupQuota q = s == null ? null : table.groups(s).get(group);
            double v = q == null ? 0 : amount(min ? q.min() : q.max());
            if (Double.isNaN(value) || v != value) {
                if (!Double.isNaN(value)) {
                    hs.add(t);
                    vs.add(value);
                }
                hs.add(t);
                vs.add(v);
                value = v;
            }
        }
        hs.add(spanH);
        vs.add(value);
        return new Curve(hs, vs);
    }

    private static double amount(granary.policy.quota.api.Quota q) {
        return q.isWorkers() ? q.workers() : q.resources().cpu() / 100.0;
    }

    /**
     * Per group, per hour: the quota report's rows hold a group's state at each sample; each stands for
     * the interval since the sample before. Worker tables give {@code used}; resource tables
     * {@code used_cpu} in 1/100 cores, shown in cores.
     */
    private static Map<String, GroupHours> groupHours(Csv t, TableGroups names, long offsetS) {
        Map<String, GroupHours> out = new LinkedHashMap<>();
        if (t == null) {
            return out;
        }
        String suffix = t.has("used") ? "" : "_cpu";
        double scale = t.has("used") ? 1 : 0.01;
        long previous = 0;
        long current = 0;
        for (String[] row : t.rows) {
            long time = t.longAt(row, "time_s");
            if (time != current) {
                previous = current;
                current = time;
            }
            GroupHours h = out.computeIfAbsent(names.tableName(t.at(row, "group")), g -> new GroupHours(offsetS));
            h.used.add(previous, time, t.doubleAt(row, "used" + suffix) * scale);
            h.usedHours.add(time / 3600.0);
            h.usedValues.add(t.doubleAt(row, "used" + suffix) * scale);
            h.min.add(previous, time, t.doubleAt(row, "min" + suffix) * scale);
            h.max.add(previous, time, t.doubleAt(row, "max" + suffix) * scale);
        }
        return out;
    }

    /** Group → {slot-seconds, core-seconds} over every day and slice billed. */
    private static Map<String, double[]> billing(Csv t, TableGroups names) {
        Map<String, double[]> out = new LinkedHashMap<>();
        if (t == null) {
            return out;
        }
        for (String[] row : t.rows) {
            double[] sums = out.computeIfAbsent(names.tableName(t.at(row, "group")), g -> new double[2]);
            sums[0] += t.doubleAt(row, "slot_seconds");
            sums[1] += t.doubleAt(row, "cpu_core_seconds");
        }
        return out;
    }

    /**
     * The table named {@code name} (or {@code <policy>-name}, as the simulator prefixes a name two
     * policies use; the what-if's policy's first) that has a {@code group} column and one of the columns given.
     */
    private static Csv table(Map<String, TimeSeries> tables, String name, String column, String otherColumn) {
        TimeSeries found = null;
        String policysOwn = granary.planner.master.PlannerSettings.defaults().whatIfPolicy() + "-" + name;
        for (Map.Entry<String, TimeSeries> e : tables.entrySet()) {
            List<String> h = e.getValue().header();
            boolean named = e.getKey().equals(name) || e.getKey().endsWith("-" + name);
            if (named && h.contains("group") && (h.contains(column) || h.contains(otherColumn))
                    && (found == null || e.getKey().equals(policysOwn))) {
                found = e.getValue();
            }
        }
        return found == null ? null : new Csv(found);
    }

    /** A time series' rows split into cells (the simulator writes plain numbers and names: no quoting). */
    private static final class Csv {
        final Map<String, Integer> columns = new HashMap<>();
        final List<String[]> rows;

        Csv(TimeSeries s) {
            for (int i = 0; i < s.header().size(); i++) {
                columns.put(s.header().get(i), i);
            }
            rows = s.rows().stream().map(r -> r.split(",", -1)).toList();
        }

        boolean has(String column) {
            return columns.containsKey(column);
        }

        String at(String[] row, String column) {
            Integer i = columns.get(column);
            return i == null || i >= row.length ? "" : row[i];
        }

        long longAt(String[] row, String column) {
            String v = at(row, column);
            return v.isEmpty() ? 0 : (long) Double.parseDouble(v);
        }

        double doubleAt(String[] row, String column) {
            String v = at(row, column);
            return v.isEmpty() ? Double.NaN : Double.parseDouble(v);
        }
    }
}

package granary.policy.quota;

import java.time.LocalDate;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import granary.api.model.Resources;
import granary.policy.quota.api.QuotaTable;
import granary.policy.quota.api.TimeSlice;
import granary.api.spi.EngineView;
import granary.api.spi.GroupView;

/**
 * Billing (docs/multi-tenancy.md, "The quota table"): per group, usage integrated over time — slot-seconds, cpu core-seconds and
 * memory GiB-seconds — per day and per slice. Usage only changes inside scheduling cycles, so the
 * integral is exact: at the start of a cycle the usage seen at the end of the previous one is
 * charged for the time between, cut at every hour boundary so that each piece falls in one slice of
 * one day.
 */
final class Billing {

    private record Key(LocalDate day, String slice, String group) {
    }

    private record Use(long slots, Resources resources) {
    }

    private final SliceClock clock;
    private final int keepDays;
    private final Map<Key, double[]> totals = new TreeMap<>((a, b) -> {
        int c = a.day().compareTo(b.day());
        if (c == 0) {
            c = a.slice().compareTo(b.slice());
        }
        return c != 0 ? c : a.group().compareTo(b.group());
    });
    private final Map<String, Use> lastUse = new HashMap<>();
    private long lastTime = -1;

    Billing(SliceClock clock, int keepDays) {
        this.clock = clock;
        this.keepDays = keepDays;
    }

    /** Charges the usage seen last for the time up to {@code now}. */
    void charge(long now, QuotaTable table) {
        if (lastTime >= 0 && now > lastTime && !lastUse.isEmpty()) {
            long t = lastTime;
            while (t < now) {
                long end = Math.min(now, clock.nextHour(t));
                TimeSlice slice = table == null ? null : table.sliceAt(clock.hour(t));
                String sliceName = slice == null ? "-" : slice.toString();
                double seconds = (end - t) / 1000.0;
                LocalDate day = clock.day(t);
                for (Map.Entry<String, Use> e : lastUse.entrySet()) {
                    double[] sum = totals.computeIfAbsent(new Key(day, sliceName, e.getKey()), k -> new double[3]);
                    sum[0] += e.getValue().slots() * seconds;
                    sum[1] += e.getValue().resources().cpu() / 100.0 * seconds;
                    sum[2] += e.getValue().resources().memMb() / 1024.0 * seconds;
                }
                t = end;
            }
            forgetBefore(clock.day(now).minusDays(keepDays - 1L));
        }
        lastTime = Math.max(lastTime, now);
    }

    /** Remembers the usage of every group as the cycle leaves it. */
    void observe(EngineView view) {
        lastUse.clear();   // charge() has integrated the previous usage up to now
        for (GroupView g : view.groups()) {
            if (g.usedSlots() > 0) {
                lastUse.put(g.name(), new Use(g.usedSlots(), g.used()));
            }
        }
        lastTime = Math.max(lastTime, view.now());
    }

    private void forgetBefore(LocalDate first) {
        totals.keySet().removeIf(k -> k.day().isBefore(first));
    }

    List<BillingRow> rows(String day) {
        List<BillingRow> out = new ArrayList<>();
        totals.forEach((k, v) -> {
            if (day == null || day.equals(k.day().toString())) {
                out.add(new BillingRow(k.day().toString(), k.slice(), k.group(), v[0], v[1], v[2]));
            }
        });
        return out;
    }
}

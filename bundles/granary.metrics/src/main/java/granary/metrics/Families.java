package granary.metrics;

import java.util.List;

import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.CounterSnapshot.CounterDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot.GaugeDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;

/** Metric families made at scrape time from values read then (the engine's state, the master's peers). */
final class Families {

    private Families() {
    }

    static GaugeSnapshot gauge(String name, String help, double value) {
        return gauge(name, help, List.of(new Amounts.Amount(Labels.EMPTY, value)));
    }

    static GaugeSnapshot gauge(String name, String help, List<Amounts.Amount> values) {
        GaugeSnapshot.Builder b = GaugeSnapshot.builder().name(name).help(help);
        for (Amounts.Amount a : values) {
            b.dataPoint(GaugeDataPointSnapshot.builder().labels(a.labels()).value(a.value()).build());
        }
        return b.build();
    }

    /** A counter kept elsewhere (the engine's): {@code name} without the {@code _total} the format adds. */
    static CounterSnapshot counter(String name, String help, double value) {
        return CounterSnapshot.builder().name(name).help(help)
                .dataPoint(CounterDataPointSnapshot.builder().value(value).build()).build();
    }
}

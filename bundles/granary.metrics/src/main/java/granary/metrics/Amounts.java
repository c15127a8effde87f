package granary.metrics;

import java.util.ArrayList;
import java.util.List;

import granary.api.model.Resources;
import io.prometheus.metrics.model.snapshots.Labels;

/**
 * A resource vector as labelled values in base units, the way kube-state-metrics labels resources:
 * {@code resource="cpu",unit="core"} (the model counts hundredths of a core),
 * {@code resource="memory",unit="byte"} (the model counts MiB), and each extended resource
 * ({@code resource="gpu",unit="integer"}). A number of slots is {@code resource="slots",unit="integer"}.
 */
final class Amounts {

    private static final double MIB = 1024.0 * 1024.0;

    private Amounts() {
    }

    /** One labelled value. */
    record Amount(Labels labels, double value) {
    }

    /** The amounts of {@code r}, each with {@code base} plus its resource and unit labels. */
    static List<Amount> of(Labels base, Resources r) {
        List<Amount> out = new ArrayList<>();
        out.add(new Amount(base.merge(Labels.of("resource", "cpu", "unit", "core")), r.cpu() / 100.0));
        out.add(new Amount(base.merge(Labels.of("resource", "memory", "unit", "byte")), r.memMb() * MIB));
        for (int i = 0; i < r.extendedCount(); i++) {
            out.add(new Amount(base.merge(Labels.of("resource", r.extendedName(i), "unit", "integer")), r.extendedValue(i)));
        }
        return out;
    }

    /** A number of slots (workers), with {@code base}. */
    static Amount slots(Labels base, long slots) {
        return new Amount(base.merge(Labels.of("resource", "slots", "unit", "integer")), slots);
    }

    /** A report's value: a number of slots or a resource vector; nothing for anything else. */
    static List<Amount> ofValue(Labels base, Object value) {
        if (value instanceof Resources r) {
            return of(base, r);
        }
        if (value instanceof Number n) {
            return List.of(slots(base, n.longValue()));
        }
        return List.of();
    }
}

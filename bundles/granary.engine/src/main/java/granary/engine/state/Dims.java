package granary.engine.state;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import granary.api.model.Resources;

/**
 * The resource dimensions the engine indexes: cpu, memory, then every extended resource in the
 * order it was first seen. The fit-search structures work on {@code long[]} vectors in this layout.
 * Append-only: when a new extended resource appears the engine rebuilds its vectors once.
 */
public final class Dims {

    private final Map<String, Integer> index = new HashMap<>();
    private final List<String> names = new ArrayList<>(List.of("cpu", "mem"));

    int size() {
        return names.size();
    }

    /** The name of dimension {@code d}: {@code cpu}, {@code mem}, then extended names. */
    public String name(int d) {
        return names.get(d);
    }

    /** Registers the extended resources of {@code r}; true if a new dimension was added. */
    public boolean register(Resources r) {
        boolean added = false;
        for (int i = 0; i < r.extendedCount(); i++) {
            String n = r.extendedName(i);
            if (!index.containsKey(n)) {
                index.put(n, names.size());
                names.add(n);
                added = true;
            }
        }
        return added;
    }

    /** {@code r} as a vector in this layout; extended resources not registered are ignored. */
    public long[] vector(Resources r) {
        long[] v = new long[names.size()];
        v[0] = r.cpu();
        v[1] = r.memMb();
        for (int i = 0; i < r.extendedCount(); i++) {
            Integer d = index.get(r.extendedName(i));
            if (d != null) {
                v[d] = r.extendedValue(i);
            }
        }
        return v;
    }

    /** Dimension {@code d} of {@code r}, without building its vector. */
    public long value(Resources r, int d) {
        return d == 0 ? r.cpu() : d == 1 ? r.memMb() : r.get(names.get(d));
    }

    /** True if {@code need[d] <= have[d]} in every dimension. */
    public static boolean fits(long[] need, long[] have) {
        for (int d = 0; d < need.length; d++) {
            if (need[d] > have[d]) {
                return false;
            }
        }
        return true;
    }
}

package granary.sim.metrics;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

import granary.api.model.Resources;
import granary.api.spi.NodeView;

/**
 * Fragmentation (docs/operations.md, "What operators measure"): free space that no waiting unit fits — the free resources of every
 * node on which not one slot of any waiting unit fits. Only the minimal waiting slot shapes are
 * tried (a shape at least as large as another in every resource fits only where that one fits too).
 */
public final class Fragmentation {

    private Fragmentation() {
    }

    /** The stranded free resources of {@code nodes} given the waiting slot shapes (nothing waits: nothing is stranded). */
    public static Resources stranded(Collection<? extends NodeView> nodes, List<Resources> minimalShapes) {
        if (minimalShapes.isEmpty()) {
            return Resources.ZERO;
        }
        Resources sum = Resources.ZERO;
        for (NodeView n : nodes) {
            if (n.blacklisted()) {
                continue;
            }
            Resources free = n.free();
            if (free.isZero()) {
                continue;
            }
            boolean fits = false;
            for (Resources s : minimalShapes) {
                if (s.fitsIn(free)) {
                    fits = true;
                    break;
                }
            }
            if (!fits) {
                sum = sum.plus(free);
            }
        }
        return sum;
    }

    /** The shapes not at least as large as another in every resource. */
    public static List<Resources> minimal(Collection<Resources> shapes) {
        List<Resources> min = new ArrayList<>();
        for (Resources s : shapes) {
            boolean dominated = false;
            for (Resources m : min) {
                if (m.fitsIn(s)) {
                    dominated = true;
                    break;
                }
            }
            if (!dominated) {
                min.removeIf(s::fitsIn);
                min.add(s);
            }
        }
        return min;
    }
}

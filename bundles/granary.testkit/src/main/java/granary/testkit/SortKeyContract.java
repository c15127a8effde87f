package granary.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;

import granary.api.model.JobSpec;
import granary.api.model.UnitSpec;
import granary.api.spi.UnitOrder;
import granary.api.spi.UnitView;
import granary.engine.state.Dims;
import granary.engine.state.JobState;
import granary.engine.state.UnitState;

/**
 * The contract of a unit order's sort key (docs/scheduling.md, "Sort keys"): it orders units exactly
 * as {@code compare} does, since the engine's queues compare keys and a disagreement would change
 * decisions. Checked on randomized units (fixed seed; equal and negative submit times, gang jobs of
 * several units), on every pair of a sample and on the sorted order.
 */
public final class SortKeyContract {

    private SortKeyContract() {
    }

    /** Asserts, for each order, that key order and {@code compare} order agree on 600 random units. */
    public static void assertKeyOrderIsCompareOrder(List<? extends UnitOrder> orders) {
        for (UnitOrder order : orders) {
            List<UnitState> units = randomUnits(new Random(2026), 600);
            for (UnitState a : units) {
                for (UnitState b : units) {
                    assertEquals(Integer.signum(order.compare(a, b)), Integer.signum(compareKeys(order, a, b)),
                            order.status() + ": " + describe(a) + " vs " + describe(b));
                }
            }
            Comparator<UnitView> byCompare = order::compare;
            Comparator<UnitView> byKey = (a, b) -> compareKeys(order, a, b);
            List<UnitState> x = new ArrayList<>(units);
            List<UnitState> y = new ArrayList<>(units);
            x.sort(byCompare.thenComparingLong(UnitView::sequence));
            y.sort(byKey.thenComparingLong(UnitView::sequence));
            assertEquals(x, y);
        }
    }

    static int compareKeys(UnitOrder order, UnitView a, UnitView b) {
        int w = order.sortKeyWidth();
        long[] ka = new long[w + 1];
        long[] kb = new long[w + 2];
        order.sortKey(a, ka, 1);   // at an offset, as the engine writes records side by side
        order.sortKey(b, kb, 2);
        for (int d = 0; d < w; d++) {
            int c = Long.compare(ka[1 + d], kb[2 + d]);
            if (c != 0) {
                return c;
            }
        }
        return 0;
    }

    static List<UnitState> randomUnits(Random rnd, int n) {
        Dims dims = new Dims();
        List<UnitState> out = new ArrayList<>();
        for (int j = 0; out.size() < n; j++) {
            boolean gang = rnd.nextInt(4) == 0;
            int count = gang ? 1 + rnd.nextInt(3) : 1;
            List<UnitSpec> specs = new ArrayList<>();
            for (int k = 0; k < count; k++) {
                specs.add(UnitSpec.builder("u" + k).slot(100, 100).desired(1 + rnd.nextInt(6)).priority(rnd.nextInt(4) - 1).build());
            }
            JobSpec spec = new JobSpec("j" + j, "g", "user", rnd.nextInt(3), gang, specs);
            long submit = rnd.nextInt(40) * 1000L - 20_000 + (rnd.nextBoolean() ? 0 : rnd.nextInt(1000));
            JobState job = new JobState(spec, submit);
            for (UnitSpec s : specs) {
                out.add(new UnitState(job, s, out.size(), submit, dims));
            }
        }
        return out;
    }

    private static String describe(UnitView u) {
        return u.id() + "(prio " + u.priority() + ", submit " + u.submitTime() + ", desired " + u.desired()
                + ", job slots " + u.job().requestedSlots() + ")";
    }
}

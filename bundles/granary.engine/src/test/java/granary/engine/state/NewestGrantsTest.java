package granary.engine.state;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import granary.api.model.Allocation;
import granary.api.model.JobSpec;
import granary.api.model.NodeSpec;
import granary.api.model.Resources;
import granary.api.model.UnitSpec;

import org.junit.jupiter.api.Test;

/**
 * A unit's newest grants old enough, as preemption asks for them (issue 24: the victims that lose the
 * least work): every grant whose latest slot was granted at or before the cut, newest first, just
 * enough to hold the slots asked for; {@code latest} is the time of the latest grant on the node.
 */
class NewestGrantsTest {

    private final Dims dims = new Dims();
    private final UnitSpec spec = UnitSpec.builder("u").slot(1, 1).desired(1_000).build();

    /** What {@code newestGrants} must return, from the grants and the latest times kept by the test. */
    private static List<Allocation> expected(List<Allocation> grants, long wanted, long cut) {
        List<Allocation> ok = new ArrayList<>(grants.stream().filter(a -> a.latest() <= cut).toList());
        ok.sort(Comparator.comparingLong(Allocation::latest).reversed()
                .thenComparing(Comparator.comparingLong(Allocation::seq).reversed()));
        long sum = 0;
        for (int i = 0; i < ok.size(); i++) {
            sum += ok.get(i).slots();
            if (sum >= wanted) {
                return List.copyOf(ok.subList(0, i + 1));
            }
        }
        return List.copyOf(ok);
    }

    @Test
    void newestFirstAmongThoseOldEnoughOverRandomGrantsAndReleases() {
        randomGrants(false);
    }

    /** A clock set back (a test clock, a master's restart) puts a grant in its place, not at the end. */
    @Test
    void newestFirstAlsoWhenTheClockGoesBack() {
        randomGrants(true);
    }

    private void randomGrants(boolean clockGoesBack) {
        for (long seed = 1; seed <= 30; seed++) {
            Random rnd = new Random(seed);
            UnitState u = new UnitState(new JobState(JobSpec.of("j", null, spec), 0), spec, 1, 0, dims);
            List<NodeState> nodes = new ArrayList<>();
            for (int i = 0; i < 10; i++) {
                nodes.add(new NodeState(new NodeSpec("n" + i, "r", Resources.of(1_000, 1_000)), dims));
            }
            Map<String, Long> latest = new HashMap<>();
            long now = 0;
            long seq = 0;
            for (int step = 0; step < 150; step++) {
                now += rnd.nextInt(4) - (clockGoesBack && rnd.nextInt(5) == 0 ? 6 : 0);
                NodeState n = nodes.get(rnd.nextInt(nodes.size()));
                int held = u.slotsOn(n);
                if (held > 0 && rnd.nextInt(3) == 0) {
                    int k = 1 + rnd.nextInt(held);
                    u.take(n, k);
                    if (k == held) {
                        latest.remove(n.name());
                    }
                } else {
                    u.add(n, 1 + rnd.nextInt(4), now, ++seq);
                    latest.merge(n.name(), now, Math::max);
                }
                for (Allocation a : u.grants()) {
                    assertEquals(latest.get(a.node()), a.latest(), "seed " + seed + ": latest grant on " + a.node());
                    assertTrue(a.since() <= a.latest());
                }
                List<Allocation> all = u.grants();   // oldest first, by first grant then by decision
                for (NodeState x : nodes) {
                    assertEquals(all.stream().filter(a -> a.node().equals(x.name())).findFirst().orElse(null), u.grantOn(x),
                            "seed " + seed + " step " + step + ": the grant on " + x.name());
                }
                long sum = 0;
                for (int i = 0; i < all.size(); i++) {
                    assertEquals(all.subList(0, i + 1), u.oldestGrants(sum + 1),
                            "seed " + seed + " step " + step + ": the oldest grants holding " + (sum + 1) + " slots");
                    sum += all.get(i).slots();
                }
                long cut = now - rnd.nextInt(10);
                for (long w = 0; w <= u.granted() + 1; w += 1 + rnd.nextInt(3)) {
                    assertEquals(expected(u.grants(), w, cut), List.copyOf(u.newestGrants(w, cut)),
                            "seed " + seed + " step " + step + ", " + w + " slots, cut " + cut);
                }
            }
        }
    }
}

package granary.engine.state;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import granary.api.model.Allocation;
import granary.api.model.JobSpec;
import granary.api.model.NodeSpec;
import granary.api.model.Resources;
import granary.api.model.UnitSpec;
import granary.api.spi.UnitView;

import org.junit.jupiter.api.Test;

/**
 * A unit's oldest grants, as preemption asks for them: the prefix of {@link UnitView#grants()} that
 * holds the slots asked for, found by walking the grants in the order they were made, whatever the
 * grants, releases, ties in age and clock.
 */
class OldestGrantsTest {

    private final Dims dims = new Dims();
    private final UnitSpec spec = UnitSpec.builder("u").slot(1, 1).desired(1_000).build();

    private UnitState unit() {
        return new UnitState(new JobState(JobSpec.of("j", null, spec), 0), spec, 1, 0, dims);
    }

    /** What {@code oldestGrants} must return: the shortest prefix of the grants sorted by age that holds {@code wanted}. */
    private static List<Allocation> expected(UnitView u, long wanted) {
        List<Allocation> all = u.grants();
        long sum = 0;
        for (int i = 0; i < all.size(); i++) {
            sum += all.get(i).slots();
            if (sum >= wanted) {
                return List.copyOf(all.subList(0, i + 1));
            }
        }
        return List.copyOf(all);
    }

    private static void check(UnitState u, String when) {
        for (long w = 0; w <= u.granted() + 1; w++) {
            assertEquals(expected(u, w), List.copyOf(u.oldestGrants(w)), when + ", " + w + " slots wanted");
        }
    }

    @Test
    void equalsThePrefixOfTheGrantsByAgeOverRandomGrantsAndReleases() {
        for (long seed = 1; seed <= 40; seed++) {
            Random rnd = new Random(seed);
            UnitState u = unit();
            List<NodeState> nodes = new ArrayList<>();
            for (int i = 0; i < 12; i++) {
                nodes.add(new NodeState(new NodeSpec("n" + i, "r", Resources.of(1_000, 1_000)), dims));
            }
            long now = 0;
            long seq = 0;
            for (int step = 0; step < 200; step++) {
                now += rnd.nextInt(3);   // often the same time: ties in age, ordered by sequence
                NodeState n = nodes.get(rnd.nextInt(nodes.size()));
                int held = u.slotsOn(n);
                if (held > 0 && rnd.nextInt(3) == 0) {
                    u.take(n, 1 + rnd.nextInt(held));
                } else {
                    u.add(n, 1 + rnd.nextInt(4), now, ++seq);
                }
                check(u, "seed " + seed + " step " + step);
            }
        }
    }

    @Test
    void aClockThatWentBackStillGivesTheOldestFirst() {
        UnitState u = unit();
        for (int i = 0; i < 5; i++) {
            u.add(new NodeState(new NodeSpec("n" + i, "r", Resources.of(10, 10)), dims), 2, 100 - i * 10, i + 1);
        }
        check(u, "clock going back");
        assertEquals("n4", u.oldestGrants(1).get(0).node());
    }
}

package granary.demo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import granary.api.model.JobSpec;
import granary.api.model.NodeSpec;
import granary.api.model.Resources;
import granary.api.model.UnitKind;
import granary.api.model.UnitSpec;

import org.junit.jupiter.api.Test;

class JobGeneratorTest {

    private static List<JobSpec> jobs(DemoSettings s, int n) {
        JobGenerator g = new JobGenerator(s);
        List<JobSpec> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add(g.next());
        }
        return out;
    }

    @Test
    void theSameSeedGivesTheSameJobs() {
        assertEquals(jobs(DemoSettings.DEFAULTS, 50), jobs(DemoSettings.DEFAULTS, 50));
    }

    @Test
    void anotherSeedGivesOtherJobs() {
        DemoSettings d = DemoSettings.DEFAULTS;
        DemoSettings other = new DemoSettings(d.rooms(), d.nodesPerRoom(), d.nodeCpu(), d.nodeMemMb(),
                d.jobsPerSecond(), d.maxRunningJobs(), d.minTaskMillis(), d.maxTaskMillis(), d.maxSlotsPerUnit(),
                d.groups(), 43, d.jobPrefix());
        assertNotEquals(jobs(d, 20), jobs(other, 20));
    }

    @Test
    void jobsStayWithinTheSettings() {
        DemoSettings s = DemoSettings.DEFAULTS;
        Set<String> groups = new HashSet<>();
        Set<Integer> priorities = new HashSet<>();
        List<JobSpec> all = jobs(s, 500);
        Resources node = DemoCluster.nodes(s).get(0).capacity();
        for (int i = 0; i < all.size(); i++) {
            JobSpec j = all.get(i);
            assertEquals("demo-" + (i + 1), j.id());
            assertTrue(s.groups().contains(j.group()), j.group());
            groups.add(j.group());
            for (UnitSpec u : j.units()) {
                assertTrue(u.desired() >= 1 && u.desired() <= s.maxSlotsPerUnit(), u.toString());
                assertTrue(u.slot().fitsIn(node), u.toString());
                assertEquals(j.group().contains("service") ? UnitKind.ONLINE : UnitKind.OFFLINE, u.kind());
                priorities.add(u.priority());
            }
        }
        assertEquals(Set.copyOf(s.groups()), groups);
        assertEquals(Set.of(0, 1, 2, 3), priorities);
    }

    @Test
    void slotsAreCappedAtTheNodeSize() {
        DemoSettings tiny = new DemoSettings(1, 1, 150, 3000, 1, 1, 1, 1, 2, List.of("g"), 5, "t");
        NodeSpec node = DemoCluster.nodes(tiny).get(0);
        for (JobSpec j : jobs(tiny, 100)) {
            j.units().forEach(u -> assertTrue(u.slot().fitsIn(node.capacity()), u.slot().toString()));
        }
    }
}

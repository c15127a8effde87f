package granary.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;

import granary.api.model.JobSpec;
import granary.api.model.NodeSpec;

import org.junit.jupiter.api.Test;
import org.opentest4j.AssertionFailedError;

class ScenarioTest {

    @Test
    void readsNodesWithRoomsAndLabelsAndJobsOfSeveralUnits() {
        List<NodeSpec> nodes = Scenario.nodes("""
                | node | room | cpu | mem  | labels          |
                | g0   | r2   | 800 | 8000 | gpu=a100, pool=x |
                | c0   | -    | 400 | 4000 | -               |
                """);
        assertEquals("r2", nodes.get(0).room());
        assertEquals(Map.of("gpu", "a100", "pool", "x"), nodes.get(0).labels());
        assertEquals(Clusters.ROOM, nodes.get(1).room());

        List<JobSpec> jobs = Scenario.jobs("""
                | job | group | unit | slots | cpu | priority | gang |
                | a   | g1    | ps   | 1     | 200 | 2        | yes  |
                | a   | g1    | w    | 3     | -   | 2        | yes  |
                | b   | -     | -    | 2     | -   | -        | -    |
                """);
        assertEquals(2, jobs.size());
        JobSpec a = jobs.get(0);
        assertTrue(a.gang());
        assertEquals("g1", a.group());
        assertEquals(List.of("ps", "w"), a.units().stream().map(u -> u.name()).toList());
        assertEquals(200, a.unit("ps").slot().cpu());
        assertTrue(a.unit("w").allOrNothing());
        assertEquals(2, a.unit("w").priority());
        JobSpec b = jobs.get(1);
        assertEquals(JobSpec.DEFAULT_GROUP, b.group());
        assertEquals(2, b.unit("u").desired());
        assertEquals(100, b.unit("u").slot().cpu());
    }

    @Test
    void checksOnlyTheColumnsTheExpectTableHas() {
        TestEngine e = Scenario.load(TestEngine.of(new ArrivalOrder()), """
                | node | cpu | mem |
                | n0   | 200 | 200 |
                """, """
                | job | slots |
                | a   | 1     |
                | b   | 3     |
                """);
        Scenario.check(e, """
                | unit | granted | placement |
                | a/u  | 1       | n0:1      |
                | b/u  | 1       | n0:1      |
                """);
        Scenario.check(e, """
                | unit | waiting |
                | b/u  | 2       |
                """);
        assertThrows(AssertionFailedError.class, () -> Scenario.check(e, """
                | unit | granted |
                | b/u  | 3       |
                """));
    }
}

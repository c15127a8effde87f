package granary.policy.gang;

import granary.testkit.Scenario;

import org.junit.jupiter.api.Test;

/** Where two gangs go under each packing, as scenario tables: nodes and jobs in, placements out. */
class PackingTableTest {

    static final String NODES = """
            | node   | cpu | mem  |
            | big    | 800 | 8000 |
            | small1 | 200 | 8000 |
            | small2 | 300 | 8000 |
            """;

    static final String JOBS = """
            | job | unit | slots | gang |
            | g   | w    | 4     | yes  |
            | h   | w    | 2     | yes  |
            """;

    @Test
    void bestFitFillsTheNodesWithTheLeastRoomFirstAndKeepsTheBigOneWhole() {
        Scenario.check(Scenario.load(new Bench(new GangPolicy(Packing.BEST_FIT, true)), NODES, JOBS), """
                | unit | granted | waiting | placement          |
                | g/w  | 4       | 0       | small1:2, small2:2 |
                | h/w  | 2       | 0       | big:1, small2:1    |
                """);
    }

    @Test
    void firstFitTakesTheNodesInClusterOrder() {
        Scenario.check(Scenario.load(new Bench(new GangPolicy(Packing.FIRST_FIT, true)), NODES, JOBS), """
                | unit | granted | waiting | placement |
                | g/w  | 4       | 0       | big:4     |
                | h/w  | 2       | 0       | big:2     |
                """);
    }
}

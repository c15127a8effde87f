package granary.policy.queues.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.StringReader;
import java.util.List;

import granary.api.model.InvalidRequestException;
import granary.api.model.Resources;
import granary.policy.queues.api.QueueTree;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class QueueTreeCodecTest {

    /** Department → project → priority leaf, with same-name leaves under different parents. */
    static final String TREE = """
            {
              "fallback": "root.default",
              "queues": {
                "a": {"capacity": "60%", "maxCapacity": "100%", "maxRunningJobs": 50, "maxRunningJobsPerUser": 10,
                      "queues": {"p0": {"capacity": "70%"}, "p1": {"capacity": "30%"}}},
                "b": {"capacity": 0.3, "queues": {"p0": {"capacity": "40%", "maxCapacity": "50%"}}},
                "default": {"capacity": "10%"}
              }
            }
            """;

    static QueueTree read(String json) {
        return QueueTreeCodec.read(new StringReader(json), "queues.json");
    }

    @Test
    void resolvesFullPathsShortNamesAndTheFallback() {
        QueueTree t = read(TREE);
        assertEquals(List.of("root.a.p0", "root.a.p1", "root.b.p0", "root.default"), t.leaves());
        assertEquals("root.a.p0", t.resolve("root.a.p0"));
        assertEquals("root.b.p0", t.resolve("root.b.p0"));
        assertEquals("root.b.p0", t.resolve("b.p0"));
        assertEquals("root.a.p1", t.resolve("p1"));
        InvalidRequestException ambiguous = assertThrows(InvalidRequestException.class, () -> t.resolve("p0"));
        assertTrue(ambiguous.getMessage().contains("queue name 'p0' is ambiguous: root.a.p0, root.b.p0; use the full path"),
                ambiguous.getMessage());
        assertEquals("root.default", t.resolve("nosuch"));
        assertEquals("root.default", t.resolve("root.a.p9"));
        InvalidRequestException inner = assertThrows(InvalidRequestException.class, () -> t.resolve("root.a"));
        assertTrue(inner.getMessage().contains("queue root.a is not a leaf; jobs go to its leaves: [root.a.p0, root.a.p1]"),
                inner.getMessage());
    }

    @Test
    void withoutAFallbackAnUnknownQueueIsRefused() {
        QueueTree t = read(TREE.replace("\"fallback\": \"root.default\",", ""));
        InvalidRequestException e = assertThrows(InvalidRequestException.class, () -> t.resolve("nosuch"));
        assertTrue(e.getMessage().contains("unknown queue 'nosuch' and no fallback queue is configured; leaves: "
                + "root.a.p0, root.a.p1, root.b.p0, root.default"), e.getMessage());
    }

    @Test
    void capacitiesFollowTheCluster() {
        QueueTree t = read(TREE);
        Resources cluster = Resources.of(100_000, 1_000_000);
        assertEquals(Resources.of(42_000, 420_000), t.guaranteed("root.a.p0", cluster));
        assertEquals(Resources.of(12_000, 120_000), t.guaranteed("root.b.p0", cluster));
        assertEquals(Resources.of(50_000, 500_000), t.maximum("root.b.p0", cluster));
        Resources bigger = Resources.of(200_000, 2_000_000);
        assertEquals(Resources.of(84_000, 840_000), t.guaranteed("root.a.p0", bigger));
    }

    @Test
    void anAbsoluteMaximumLimitsOnlyTheResourcesItNames() {
        QueueTree t = read("{\"queues\": {\"a\": {\"maxCapacity\": {\"cpu\": 4000, \"mem\": 16384}}}}");
        Resources cluster = Resources.of(100_000, 1_000_000, java.util.Map.of("gpu", 8L));
        assertEquals(Resources.of(4000, 16384, java.util.Map.of("gpu", 8L)), t.maximum("root.a", cluster));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            not JSON                 | {"queues":                                                             | not valid JSON
            no queues                | {}                                                                     | $.queues: is missing: a tree needs queues under root
            empty queues             | {"queues": {}}                                                         | queue root: queues: the tree has no queues under root
            unknown top field        | {"queue": {}}                                                          | $.queue: unknown field; known fields: drf, fallback, queues
            unknown queue field      | {"queues": {"a": {"capacty": "10%"}}}                                  | $.queues.a.capacty: unknown field
            queue not an object      | {"queues": {"a": 5}}                                                   | $.queues.a: expected an object, got the number 5
            name with a dot          | {"queues": {"a.b": {}}}                                                | queue root.a.b: name: 'a.b' is not a queue name
            name with a space        | {"queues": {"a b": {}}}                                                | queue root.a b: name: 'a b' is not a queue name
            bad percentage           | {"queues": {"a": {"capacity": "lots%"}}}                               | $.queues.a.capacity: is neither a percentage (40%), a fraction (0.4) nor resources
            resources not numbers    | {"queues": {"a": {"capacity": "cpu=abc"}}}                             | $.queues.a.capacity: resources 'cpu=abc': amount of 'cpu' is not an integer
            resources with a newline | {"queues": {"a": {"capacity": "cpu=1\\nx"}}}                          | $.queues.a.capacity: resources 'cpu=1\\nx': amount of 'cpu' is not an integer
            percentage above 100     | {"queues": {"a": {"capacity": "120%"}}}                                | $.queues.a.capacity: must be between 0% and 100%, got 120.0%
            negative fraction        | {"queues": {"a": {"capacity": -0.5}}}                                  | must be between 0% and 100%, got -50.00%
            capacity wrong type      | {"queues": {"a": {"capacity": true}}}                                  | $.queues.a.capacity: expected "40%", 0.4 or resources, got true
            negative resources       | {"queues": {"a": {"capacity": {"cpu": -100}}}}                         | $.queues.a.capacity.cpu: must not be negative, got -100
            children above 100%      | {"queues": {"a": {"capacity": "60%"}, "b": {"capacity": "50%"}}}       | queue root: capacity: the children's capacities sum to 110.0% of it, more than 100%
            absolute children exceed | {"queues": {"a": {"capacity": {"cpu": 100}, "queues": {"x": {"capacity": {"cpu": 80}}, "y": {"capacity": {"cpu": 40}}}}}} | queue root.a: capacity: the children's capacities sum to cpu=120,mem=0, more than its capacity cpu=100,mem=0
            absolute sum overflows   | {"queues": {"a": {"capacity": {"cpu": 100}, "queues": {"x": {"capacity": {"cpu": 9223372036854775807}}, "y": {"capacity": {"cpu": 9223372036854775807}}}}}} | queue root.a: capacity: the children's capacities sum to more than 9223372036854775807, the largest amount (at child y: cpu=9223372036854775807,mem=0 + cpu=9223372036854775807,mem=0)
            capacity above max       | {"queues": {"a": {"capacity": "60%", "maxCapacity": "40%"}}}           | queue root.a: capacity: capacity 60% > maxCapacity 40%
            negative max jobs        | {"queues": {"a": {"maxRunningJobs": -1}}}                              | queue root.a: maxRunningJobs: must not be negative, got -1
            per-user above total     | {"queues": {"a": {"maxRunningJobs": 5, "maxRunningJobsPerUser": 9}}}   | queue root.a: maxRunningJobsPerUser: maxRunningJobsPerUser 9 > maxRunningJobs 5
            max jobs not a number    | {"queues": {"a": {"maxRunningJobs": "ten"}}}                           | $.queues.a.maxRunningJobs: expected a whole number, got the string "ten"
            fallback unknown         | {"fallback": "root.x", "queues": {"a": {}}}                            | queue tree: fallback: 'root.x' is not a leaf queue; leaves: [root.a]
            fallback not a leaf      | {"fallback": "root.a", "queues": {"a": {"queues": {"b": {}}}}}         | 'root.a' is not a leaf queue; leaves: [root.a.b]
            fallback short name      | {"fallback": "a", "queues": {"a": {}}}                                 | 'a' is not a leaf queue
            sibling given twice      | {"queues": {"a": {}, "a": {}}}                                         | $.queues.a: key 'a' is given twice in the same object
            empty child map          | {"queues": {"a": {"queues": {}}}}                                      | $.queues.a.queues: is empty: leave it out for a leaf queue
            drf not boolean          | {"drf": "yes", "queues": {"a": {}}}                                    | $.drf: expected true or false, got the string "yes"
            """)
    void rejectsMalformedTrees(String what, String json, String expected) {
        InvalidRequestException e = assertThrows(InvalidRequestException.class, () -> read(json));
        assertTrue(e.getMessage().contains("queues.json"), e.getMessage());
        assertTrue(e.getMessage().contains(expected), () -> what + ": expected '" + expected + "' in: " + e.getMessage());
    }
}

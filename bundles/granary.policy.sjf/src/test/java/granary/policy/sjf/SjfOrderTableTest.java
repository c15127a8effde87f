package granary.policy.sjf;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Map;

import granary.testkit.Clocks;
import granary.testkit.Jobs;
import granary.testkit.Table;
import granary.testkit.TestEngine;

import org.junit.jupiter.api.Test;

/**
 * SJF's order as a scenario table: one slot is held by "fill", the jobs of a row wait (in arrival
 * order; job:priority:slots), fill gives its slot back, and the row says who gets it.
 */
class SjfOrderTableTest {

    static final String ORDER = """
            | priorityFirst | waiting, in arrival order | gets the slot | why                                 |
            |---------------|---------------------------|---------------|-------------------------------------|
            | true          | big:0:50, small:0:2       | small         | fewer slots first                   |
            | true          | small:0:2, big:1:50       | big           | priority before size                |
            | false         | small:0:2, big:1:50       | small         | size only                           |
            | true          | a:0:3, b:0:3              | a             | same size: the earlier submission   |
            | true          | a:0:3, b:0:1, c:0:1       | b             | same size: the earlier of the small |
            """;

    @Test
    void theFreedSlotGoesToTheJobTheTableNames() {
        for (Table.Row row : Table.parse(ORDER).rows()) {
            TestEngine e = new TestEngine(Clocks.manual(), List.of(SjfPolicy.NAME), List.of(),
                    SjfProvider.DECLARATION.create(Map.of("priorityFirst", row.text("priorityFirst"))));
            e.node("n1", "r1", 100, 1000);
            e.submit("fill", Jobs.unit("u", 100, 1000, 1).build());
            for (String w : row.list("waiting, in arrival order")) {
                String[] f = w.split(":");
                e.clock.advance(1);
                e.submit(f[0], Jobs.unit("u", 100, 1000, Integer.parseInt(f[2])).priority(Integer.parseInt(f[1])).build());
            }
            e.finish("fill/u");
            String expected = row.text("gets the slot");
            for (String w : row.list("waiting, in arrival order")) {
                String job = w.split(":")[0];
                assertEquals(job.equals(expected) ? 1 : 0, e.granted(job + "/u"), row + ": " + job);
            }
        }
    }
}

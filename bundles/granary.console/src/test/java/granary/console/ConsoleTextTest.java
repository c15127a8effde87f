package granary.console;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;

import org.junit.jupiter.api.Test;

/** Totals the console prints are long sums: two units of the largest int slots never print a negative total. */
class ConsoleTextTest {

    @Test
    void aJobTotalOfHugeUnitsDoesNotWrap() {
        Rows.UnitRow big = new Rows.UnitRow("u", Integer.MAX_VALUE, Integer.MAX_VALUE, 0, "WORKER", null);
        Rows.JobRow job = new Rows.JobRow("j", "root.a.p0", "alice", List.of(big, big));
        assertEquals(2L * Integer.MAX_VALUE, job.desired());
        assertEquals("j group=root.a.p0 user=alice granted=4294967294/4294967294",
                ConsoleText.jobs(List.of(job)).lines().findFirst().orElseThrow());
    }
}

package granary.planner.table;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import org.junit.jupiter.api.Test;

import granary.api.model.Problem;
import granary.policy.quota.api.TimeSlice;

/** Every subject QuotaTable.of writes is placed at its slice and group. */
class TableProblemTest {

    private static TableProblem of(String subject) {
        return TableProblem.of(Problem.of(subject, "f", "m"));
    }

    @Test
    void placesEachKindOfSubject() {
        TableProblem cell = of("slice 0-9, group group1");
        assertEquals(TimeSlice.parse("0-9"), cell.slice());
        assertEquals("group1", cell.group());

        assertEquals(TimeSlice.DEFAULT, of("slice default").slice());
        assertNull(of("slice default").group());

        assertEquals(TimeSlice.parse("22-6"), of("slices 22-6 and 0-9").slice());

        TableProblem group = of("group g1");
        assertNull(group.slice());
        assertEquals("g1", group.group());

        TableProblem table = of("quota table");
        assertNull(table.slice());
        assertNull(table.group());
        assertEquals("quota table: f: m", table.text());
    }
}

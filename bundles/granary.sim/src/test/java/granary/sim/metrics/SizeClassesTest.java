package granary.sim.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;

import org.junit.jupiter.api.Test;

class SizeClassesTest {

    @Test
    void jobsFallIntoDecadesOfRequestedSlotsAndOnlyClassesWithJobsAreListed() {
        SizeClasses c = new SizeClasses();
        c.add(1, 5_000);
        c.add(10, 1_000);
        c.add(11, 7_000);
        c.add(20_000, 90_000);
        c.add(10_001, 30_000);
        List<SizeClasses.SizeClass> all = c.classes();
        assertEquals(List.of("1", "2-10", "11-100", ">10000"), all.stream().map(SizeClasses.SizeClass::label).toList());
        assertEquals(90_000, all.get(3).waits().max(), "the largest jobs' longest wait");
        assertEquals(2, all.get(3).waits().count());
        assertEquals(-1, all.get(3).toSlots(), "no upper bound");
    }

    @Test
    void aJobOfNoSlotsIsNamedAsAMistake() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new SizeClasses().add(0, 1));
        assertEquals("a job requests at least one slot, got 0", e.getMessage());
    }
}

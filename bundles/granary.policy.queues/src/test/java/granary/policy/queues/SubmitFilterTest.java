package granary.policy.queues;

import static granary.testkit.Jobs.slots;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import granary.api.model.InvalidRequestException;
import granary.api.model.Problem;
import granary.api.model.UnitId;
import granary.api.model.UnitSpec;
import granary.api.event.JobMoved;
import granary.api.event.UnitDesireChanged;
import granary.testkit.Jobs;

import org.junit.jupiter.api.Test;

/**
 * An all-or-nothing request larger than its queue's maximum could never be granted whole: it is
 * refused at submission (and on a move or a raised desire) with the numbers, not left to wait forever.
 */
class SubmitFilterTest {

    /** root.a.p0 may hold at most 25% of 4000 cpu = 1000 cpu; root.b the whole cluster. */
    private static Bench bench() {
        return new Bench(Bench.tree("""
                {"queues": {"a": {"capacity": "50%", "queues": {"p0": {"capacity": "20%", "maxCapacity": "25%"}}},
                            "b": {"capacity": "50%"}}}
                """)).nodes(4, 1000, 10_000);
    }

    private static UnitSpec aon(String name, int desired) {
        return UnitSpec.builder(name).slot(100, 100).desired(desired).allOrNothing(true).build();
    }

    @Test
    void aGangLargerThanItsQueueMaximumIsRefusedWithTheNumbers() {
        Bench b = bench();
        InvalidRequestException e = assertThrows(InvalidRequestException.class,
                () -> b.submitGang("g", "root.a.p0", Jobs.unit("m", 100, 100, 6).build(), Jobs.unit("r", 100, 100, 6).build()));
        Problem p = e.problems().get(0);
        assertEquals("queue root.a.p0", p.subject());
        assertEquals("all-or-nothing job g asks for cpu=1200,mem=1200 in total, more than the queue's maximum "
                + "cpu=1000,mem=10000 (cpu): it could never start", p.message());
        assertEquals(1000L, p.limit());
        assertEquals(1200L, p.value());
        assertNull(b.view().job("g"));

        b.submitGang("g2", "root.a.p0", Jobs.unit("m", 100, 100, 5).build(), Jobs.unit("r", 100, 100, 5).build());
        assertNotNull(b.view().job("g2"));   // exactly the maximum: accepted (it waits for a gang placement)
    }

    @Test
    void anAllOrNothingUnitLargerThanItsQueueMaximumIsRefused() {
        Bench b = bench();
        InvalidRequestException e = assertThrows(InvalidRequestException.class,
                () -> b.submit("j", "root.a.p0", slots(3), aon("big", 11)));
        assertTrue(e.getMessage().contains("queue root.a.p0: policy queues: all-or-nothing unit j/big asks for "
                + "cpu=1100,mem=1100 in total, more than the queue's maximum cpu=1000,mem=10000"), e.getMessage());
        b.submit("k", "root.a.p0", slots(20));   // not all-or-nothing: it runs in part
        assertEquals(10, b.granted("k/u"));
    }

    @Test
    void raisingTheDesireOrMovingBeyondTheMaximumIsRefusedToo() {
        Bench b = bench();
        b.submit("j", "root.b", aon("x", 5));
        InvalidRequestException grow = assertThrows(InvalidRequestException.class,
                () -> b.handle(new UnitDesireChanged(UnitId.parse("j/x"), 41)));   // root.b: the whole cluster
        assertTrue(grow.getMessage().contains("queue root.b: policy queues: all-or-nothing unit j/x asks for "
                + "cpu=4100,mem=4100 in total, more than the queue's maximum cpu=4000,mem=40000"), grow.getMessage());
        assertEquals(5, b.unit("j/x").desired());
        b.submit("g", "root.b", aon("x", 12));
        String before = b.fingerprint();
        InvalidRequestException move = assertThrows(InvalidRequestException.class,
                () -> b.handle(new JobMoved("g", "root.a.p0")));
        assertTrue(move.getMessage().contains("all-or-nothing unit g/x asks for cpu=1200,mem=1200"), move.getMessage());
        assertEquals(before, b.fingerprint());
        assertEquals("root.b", b.group("g"));
    }
}

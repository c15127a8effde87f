package granary.engine.state;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import granary.api.model.JobSpec;
import granary.api.model.UnitSpec;
import granary.api.spi.Reason;
import granary.api.spi.ReasonCode;
import granary.api.spi.ReasonTally;

import org.junit.jupiter.api.Test;

/**
 * A unit's why-not-scheduled ledger on its own (docs/scheduling.md, "Why is my job not scheduled?"):
 * a code counts once per cycle; one reason found once is kept without an entry, a second finding
 * chains entries; a reason found again keeps its text for a second of engine time.
 */
class UnitLedgerTest {
    /** A policy's own reason code, as a quota policy declares it. */
    static final ReasonCode QUOTA = ReasonCode.of("QUOTA", "limit reached",
            "It gets more when work in {subject} releases slots, or when that limit is raised.");


    private static final long FRESH = 1000;

    private final UnitState u = new UnitState(new JobState(JobSpec.of("j", null,
            UnitSpec.builder("u").slot(100, 512).desired(1).build()), 0),
            UnitSpec.builder("u").slot(100, 512).desired(1).build(), 1, 0, new Dims());

    private static Reason noFit(String message) {
        return Reason.of(ReasonCode.NO_FIT, "unit j/u", message);
    }

    @Test
    void aCodeCountsOncePerCycle() {
        u.waitedFor(noFit("a"), 10, 1, true);
        u.waitedFor(noFit("b"), 11, 1, true);
        assertEquals(List.of(new ReasonTally(ReasonCode.NO_FIT, 1, noFit("b"), 11)), u.reasons());
        u.waitedFor(noFit("c"), 20, 2, true);
        u.waitedFor(Reason.of(QUOTA, "group g", "max"), 21, 2, true);
        u.waitedFor(noFit("d"), 22, 2, true);
        List<ReasonTally> r = u.reasons();
        assertEquals(ReasonCode.NO_FIT, r.get(0).code());
        assertEquals(2, r.get(0).count());
        assertEquals("d", r.get(0).last().message());
        assertEquals(QUOTA, r.get(1).code());
        assertEquals(1, r.get(1).count());
        assertEquals(ReasonCode.NO_FIT, u.waitReason().code(), "the latest");
    }

    @Test
    void aReasonFoundAgainKeepsItsTextForASecond() {
        assertFalse(u.waitedAgain(ReasonCode.NO_FIT, 0, 1, FRESH), "nothing to count yet: build it");
        u.waitedFor(noFit("built at 0"), 0, 1, true);
        assertTrue(u.waitedAgain(ReasonCode.NO_FIT, 5, 1, FRESH));           // same cycle: counted already
        assertTrue(u.waitedAgain(ReasonCode.NO_FIT, 1000, 2, FRESH));        // next cycle, within the second
        assertFalse(u.waitedAgain(QUOTA, 1000, 2, FRESH));        // another code: build it
        assertFalse(u.waitedAgain(ReasonCode.NO_FIT, 1001, 3, FRESH), "older than a second: build it again");
        ReasonTally t = u.reasons().get(0);
        assertEquals(2, t.count());
        assertEquals(1000, t.lastAtMillis());
        assertEquals("built at 0", t.last().message());
        assertSame(t.last(), u.waitReason());
    }

    @Test
    void withTheLedgerOffOnlyTheLatestReasonAtAnUnknownTime() {
        u.waitedFor(noFit("a"), 10, 1, false);
        u.waitedFor(noFit("b"), 20, 2, false);
        assertEquals(List.of(new ReasonTally(ReasonCode.NO_FIT, 1, noFit("b"), -1)), u.reasons());
        u.waitedFor(noFit("c"), 30, 3, true);   // switched on: a ledger starts from here
        assertEquals(List.of(new ReasonTally(ReasonCode.NO_FIT, 1, noFit("c"), 30)), u.reasons());
    }
}

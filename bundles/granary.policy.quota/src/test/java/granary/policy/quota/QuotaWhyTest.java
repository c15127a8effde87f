package granary.policy.quota;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import granary.api.spi.JobWhy;
import granary.api.spi.ReasonCode;
import granary.api.spi.ReasonTally;

import org.junit.jupiter.api.Test;

/**
 * The quota policy's refusals as the why-not-scheduled ledger keeps them (docs/scheduling.md, "Why
 * is my job not scheduled?"): the code, the limit and the use, and the sentences an operator reads.
 */
class QuotaWhyTest {

    /** group1: max 5000 by day, 15000 from 0 to 9; group3 funded only from 0 to 9 (QuotaPolicyTest.ARTICLE). */
    private static QuotaBench article() {
        return new QuotaBench(QuotaOptions.DEFAULTS.withPreemption(false).withEmergent(QuotaOptions.EmergentMode.OFF)
                .withLookahead(false, 60), QuotaBench.table(QuotaPolicyTest.ARTICLE, "default:5000,0-9:15000"))
                .nodes(15, 1000);
    }

    private static ReasonTally tally(QuotaBench b, String job, ReasonCode code) {
        return b.unit(job).reasons().stream().filter(t -> t.code().equals(code)).findFirst()
                .orElseThrow(() -> new AssertionError("no " + code + " in " + b.unit(job).reasons()));
    }

    private static List<String> why(QuotaBench b, String job) {
        return JobWhy.of(b.engine.view().job(job), b.engine.view().now()).sentences();
    }

    @Test
    void aGroupOverItsMaxIsDrawbackWithTheMaxAndWhatItHolds() {
        QuotaBench b = article();
        b.at(8);
        b.submit("big", "group1", 12000);
        b.at(9);                                                  // the max falls to 5000: group1 holds 12000
        b.submit("more", "group1", 10);
        ReasonTally t = tally(b, "more", QuotaReasons.DRAWBACK);
        assertEquals(5000, t.last().limit());
        assertEquals(12000, t.last().value());
        List<String> s = why(b, "more");
        assertTrue(s.contains("Group group1 holds more than its max: it gets nothing until its jobs release enough to"
                + " fall below the max, or the max is raised."), String.join("\n", s));
        assertTrue(s.stream().anyMatch(x -> x.startsWith("Most often (once, last just now): group over its max (group"
                + " group1): ")), String.join("\n", s));
        b.release("big", 7500);                                   // below the max: placed, the ledger goes
        assertEquals(10, b.granted("more"));
        assertEquals(List.of(), b.unit("more").reasons());
    }

    @Test
    void aGroupWithoutQuotaInTheSliceIsUnfunded() {
        QuotaBench b = article();
        b.at(10);
        b.submit("late", "group3", 10);
        ReasonTally t = tally(b, "late", QuotaReasons.UNFUNDED);
        assertEquals("group group3", t.last().subject());
        assertTrue(why(b, "late").contains("Group group3 has no quota in the current time slice: its work waits for a"
                + " slice that funds it, or for a quota table that funds it now."), String.join("\n", why(b, "late")));
    }

    @Test
    void aGroupAtItsMaxIsQuotaWithTheMaxAndTheUse() {
        QuotaBench b = article();
        b.at(12);
        b.submit("a", "group1", 4000);
        b.submit("b", "group1", 2000);
        assertEquals(1000, b.granted("b"));                       // MaxQuota 5000
        ReasonTally t = tally(b, "b", QuotaReasons.QUOTA);
        assertEquals(5000, t.last().limit());
        assertEquals(4000, t.last().value());
        assertTrue(why(b, "b").contains("It gets more when work in group group1 releases slots, or when that limit is"
                + " raised."), String.join("\n", why(b, "b")));
    }
}

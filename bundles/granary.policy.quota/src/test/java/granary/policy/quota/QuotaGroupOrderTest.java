package granary.policy.quota;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

import granary.testkit.Clocks;

/**
 * The order across groups keeps small work first where that costs no guarantee (issue 24;
 * docs/multi-tenancy.md, "Choices and their defaults"): among groups alike by production level, min and
 * priority, the one whose head's job asks for fewer slots is served first.
 */
class QuotaGroupOrderTest {

    private static final String TABLE = """
            {"default": {"a": {"GroupId": 1, "MaxQuota": 100, "MinQuota": 0},
                         "b": {"GroupId": 2, "MaxQuota": 100, "MinQuota": 0},
                         "c": {"GroupId": 3, "MaxQuota": 100, "MinQuota": 0}}}
            """;

    /** The group order alone: no preemption, no emergent job's claim. */
    private static QuotaOptions alone(QuotaOptions o) {
        return o.withPreemption(false).withEmergent(QuotaOptions.EmergentMode.OFF);
    }

    /** c fills the one node; a's big job comes first, b's small one a second later; c frees eight slots. */
    private static QuotaBench freedAfterABigAndASmallHead(QuotaOptions options) {
        QuotaBench b = new QuotaBench(alone(options), QuotaBench.table(TABLE, null)).nodes(1, 10);
        b.at(1);
        b.submit("filler", "c", 10);
        b.advance(1000);
        b.submit("big", "a", 8);
        b.advance(1000);
        b.submit("small", "b", 2);
        b.release("filler", 8);
        b.advance(1000);
        return b;
    }

    @Test
    void theGroupWhoseHeadAsksForFewerSlotsGoesFirst() {
        QuotaBench b = freedAfterABigAndASmallHead(QuotaOptions.DEFAULTS);
        assertEquals(2, b.granted("small"), "b's head asks for 2 slots, a's for 8: b first");
        assertEquals(6, b.granted("big"), "a gets the 6 slots left after b's");
    }

    @Test
    void withoutSmallFirstTheEarlierHeadGoesFirst() {
        QuotaBench b = freedAfterABigAndASmallHead(QuotaOptions.DEFAULTS.withSmallFirst(false));
        assertEquals(8, b.granted("big"), "a's head was submitted first");
        assertEquals(0, b.granted("small"));
    }

    /** A group below its min still goes before a smaller head of a group at its min: the guarantee first. */
    @Test
    void aGroupBelowItsMinStillGoesFirst() {
        QuotaBench b = new QuotaBench(alone(QuotaOptions.DEFAULTS), QuotaBench.table("""
                {"default": {"a": {"GroupId": 1, "MaxQuota": 100, "MinQuota": 8},
                             "b": {"GroupId": 2, "MaxQuota": 100, "MinQuota": 0},
                             "c": {"GroupId": 3, "MaxQuota": 100, "MinQuota": 0}}}
                """, null)).nodes(1, 10);
        b.at(1);
        b.submit("filler", "c", 10);
        b.clock.set(Clocks.MIDNIGHT + Clocks.HOUR + 1000);
        b.submit("small", "b", 2);
        b.advance(1000);
        b.submit("big", "a", 8);
        b.release("filler", 8);
        b.advance(1000);
        assertEquals(8, b.granted("big"), "a is below its min of 8");
        assertEquals(0, b.granted("small"));
    }
}

package granary.policy.quota;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;

import granary.api.model.JobSpec;
import granary.api.model.UnitSpec;
import granary.testkit.Clocks;
import granary.testkit.Jobs;

/**
 * The min as a real guarantee (issue 24; docs/multi-tenancy.md, "Choices and their defaults"): a group
 * below its min with demand gets back to its min within 20 s of engine time — two scheduling samples —
 * wherever preemption may act, on the causes the replay of the Alibaba trace showed keeping groups
 * below their min for hours.
 */
class QuotaGuaranteeTest {

    /** Seconds of engine time the guarantee allows (issue 24's target). */
    private static final int BOUND_SECONDS = 20;

    /** Advances a second at a time, at most the bound; returns the seconds until {@code job} holds {@code slots}, or -1. */
    private static int secondsUntil(QuotaBench b, String job, int slots) {
        for (int s = 0; s <= BOUND_SECONDS; s++) {
            if (b.granted(job) >= slots) {
                return s;
            }
            b.advance(1000);
        }
        return -1;
    }

    /**
     * Memory binds, cpu idles: a holds all the memory (far above its memory min) with little cpu (under
     * its cpu min). It is above its min — its state is Overused — so b, below its min in everything,
     * takes memory back from it; counting a's excess resource by resource (none in cpu) made it untouchable.
     */
    @Test
    void aGroupAboveItsMinInTheBindingResourceGivesBackEvenUnderItsMinInAnother() {
        QuotaBench b = new QuotaBench(QuotaOptions.DEFAULTS, QuotaBench.table("""
                {"default": {"a": {"GroupId": 1, "MaxQuota": {"cpu": 10000, "mem": 10000}, "MinQuota": {"cpu": 2000, "mem": 3000}},
                             "b": {"GroupId": 2, "MaxQuota": {"cpu": 10000, "mem": 10000}, "MinQuota": {"cpu": 3000, "mem": 3000}}}}
                """, null)).nodes(10, 10);
        b.at(1);
        b.submit(new JobSpec("memory", "a", null, 0, false, List.of(Jobs.unit("u", 10, 100, 100).build())));
        assertEquals(100, b.granted("memory"), "all the memory, a tenth of the cpu");
        b.clock.set(Clocks.MIDNIGHT + Clocks.HOUR + 300_000);
        b.submit("claim", "b", 20);
        int s = secondsUntil(b, "claim", 20);
        assertTrue(s >= 0 && s <= BOUND_SECONDS, "b below its min with demand got its 20 slots after " + s + " s");
        assertEquals(80, b.granted("memory"), "a keeps 8,000 of memory: above its min of 3,000");
    }

    /**
     * b is below its min and its head can use only n0, where nothing is old enough to take; c is below
     * its min too and could take old work anywhere. c does not wait behind b.
     */
    @Test
    void aGroupBelowItsMinDoesNotWaitBehindAnotherThatPreemptionCannotHelp() {
        QuotaBench b = new QuotaBench(QuotaOptions.DEFAULTS.withRestraint(600, 1000), QuotaBench.table("""
                {"default": {"a": {"GroupId": 1, "MaxQuota": 100, "MinQuota": 0},
                             "b": {"GroupId": 2, "MaxQuota": 100, "MinQuota": 30},
                             "c": {"GroupId": 3, "MaxQuota": 100, "MinQuota": 30}}}
                """, null)).nodes(10, 10);
        b.at(1);
        b.submit(new JobSpec("old", "a", null, 0, false, List.of(Jobs.unit("u", 100, 100, 90).blacklist("n0").build())));
        b.clock.set(Clocks.MIDNIGHT + Clocks.HOUR + 900_000);
        b.submit("young", "a", 10);                                   // n0 is all that is left
        b.clock.set(Clocks.MIDNIGHT + Clocks.HOUR + 960_000);
        UnitSpec.Builder onlyN0 = Jobs.unit("u", 100, 100, 5);
        for (int n = 1; n < 10; n++) {
            onlyN0.blacklist("n" + n);
        }
        b.submit(new JobSpec("pinned", "b", null, 0, false, List.of(onlyN0.build())));
        b.advance(1000);
        b.submit("claim", "c", 10);
        int s = secondsUntil(b, "claim", 10);
        assertTrue(s >= 0 && s <= BOUND_SECONDS, "c below its min with demand got its 10 slots after " + s + " s");
        assertEquals(0, b.granted("pinned"), "young has run 60 s of the 600 it must run before it may be taken");
        assertEquals(10, b.granted("young"));
    }

    /**
     * The youngest grants are two per node on a hundred nodes; a five-core slot needs five on one node.
     * The first attempt gathers what the need calls for and finds room nowhere; the next ones gather
     * more (older grants too) until a node has room, and then take only what makes it there.
     */
    @Test
    void whenTheYoungestGrantsAreSpreadThinLaterAttemptsGatherMoreUntilANodeHasRoom() {
        QuotaBench b = new QuotaBench(QuotaOptions.DEFAULTS, QuotaBench.table("""
                {"default": {"a": {"GroupId": 1, "MaxQuota": 1000, "MinQuota": 0},
                             "b": {"GroupId": 2, "MaxQuota": 1000, "MinQuota": 100}}}
                """, null)).nodes(100, 10);
        b.at(1);
        b.submit(new JobSpec("old", "a", null, 0, false, List.of(Jobs.unit("u", 100, 100, 800).maxPerNode(8).build())));
        b.clock.set(Clocks.MIDNIGHT + Clocks.HOUR + 300_000);
        b.submit(new JobSpec("spread", "a", null, 0, false, List.of(Jobs.unit("u", 100, 100, 200).maxPerNode(2).build())));
        assertEquals(1000, b.usedSlots("a"));
        b.clock.set(Clocks.MIDNIGHT + Clocks.HOUR + 600_000);
        b.submit(new JobSpec("wide", "b", null, 0, false, List.of(Jobs.unit("u", 500, 500, 1).build())));
        int s = secondsUntil(b, "wide", 1);
        assertTrue(s >= 0 && s <= BOUND_SECONDS, "b below its min with demand got its slot after " + s + " s");
        assertEquals(995, b.usedSlots("a"), "five one-core slots on one node make room for one five-core slot: no more");
    }

    /** a holds the whole cluster (old work); b, with min 20, asks for 20 slots at 01:05. */
    private static QuotaBench bBelowItsMinWithGrace(long graceSeconds) {
        QuotaBench b = new QuotaBench(QuotaOptions.DEFAULTS.withRestraint(10, 0).withGrace(graceSeconds), QuotaBench.table("""
                {"default": {"a": {"GroupId": 1, "MaxQuota": 100, "MinQuota": 0},
                             "b": {"GroupId": 2, "MaxQuota": 100, "MinQuota": 20}}}
                """, null)).nodes(10, 10);
        b.at(1);
        b.submit("old", "a", 100);
        b.clock.set(Clocks.MIDNIGHT + Clocks.HOUR + 300_000);
        b.submit("claim", "b", 20);
        return b;
    }

    /** With a grace, capacity that frees up on its own within it goes to the group below its min: nothing is revoked. */
    @Test
    void withinTheGraceCapacityThatFreesUpOnItsOwnServesTheGroupAndNothingIsRevoked() {
        QuotaBench b = bBelowItsMinWithGrace(10);
        b.advance(5000);
        assertEquals(0, b.granted("claim"), "5 s into the grace: nothing revoked yet");
        b.release("old", 20);
        b.advance(1000);
        assertEquals(20, b.granted("claim"), "what a released is b's: it is below its min");
        b.advance(30_000);
        assertEquals(80, b.granted("old"), "a lost nothing to preemption");
    }

    /** When nothing frees up, the group preempts once the grace is over, and is at its min within the bound. */
    @Test
    void afterTheGraceTheGroupPreemptsAndIsAtItsMinWithinTheBound() {
        QuotaBench b = bBelowItsMinWithGrace(10);
        b.advance(9000);
        assertEquals(0, b.granted("claim"), "9 s: still waiting for capacity to free up on its own");
        assertEquals(100, b.granted("old"));
        int s = secondsUntil(b, "claim", 20);
        assertTrue(s >= 0 && 9 + s <= BOUND_SECONDS, "b got its min after " + (9 + s) + " s");
        assertEquals(80, b.granted("old"), "exactly b's need taken");
    }

    /** Without a grace (the default) the group preempts at once. */
    @Test
    void withoutAGraceTheGroupPreemptsAtOnce() {
        QuotaBench b = bBelowItsMinWithGrace(0);
        b.advance(1000);
        assertEquals(20, b.granted("claim"));
    }

    /**
     * b is below its min and its head (5-core slots) fits nowhere; a (above its min) has one-core work
     * waiting. A freed 3-core fragment goes to a without yieldAboveMin — the youngest grant, the first
     * preemption takes back for b — and stays free for b with it. (No emergent job: its claim would keep
     * the node for b on its own.)
     */
    private static QuotaBench fragmentFreedWhileBWaits(boolean yieldAboveMin) {
        QuotaBench b = new QuotaBench(QuotaOptions.DEFAULTS.withRestraint(600, 0).withYieldAboveMin(yieldAboveMin)
                        .withEmergent(QuotaOptions.EmergentMode.OFF),
                QuotaBench.table("""
                {"default": {"a": {"GroupId": 1, "MaxQuota": 100, "MinQuota": 0},
                             "b": {"GroupId": 2, "MaxQuota": 100, "MinQuota": 50}}}
                """, null)).nodes(10, 10);
        b.at(1);
        b.submit("old", "a", 100);
        b.clock.set(Clocks.MIDNIGHT + Clocks.HOUR + 60_000);
        b.submit("more", "a", 10);
        b.submit(new JobSpec("wide", "b", null, 0, false, List.of(Jobs.unit("u", 500, 500, 2).build())));
        b.advance(1000);
        b.release("old", 3);
        b.advance(1000);
        return b;
    }

    @Test
    void withoutYieldAboveMinAFreedFragmentGoesToAGroupAboveItsMin() {
        QuotaBench b = fragmentFreedWhileBWaits(false);
        assertEquals(3, b.granted("more"), "a backfills the fragment b's head cannot use yet");
    }

    @Test
    void withYieldAboveMinAGroupAboveItsMinGetsNothingNewWhileOneBelowWaits() {
        QuotaBench b = fragmentFreedWhileBWaits(true);
        assertEquals(0, b.granted("more"), "a yields while b waits below its min");
        b.release("old", 2);
        b.advance(1000);
        assertEquals(1, b.granted("wide"), "the fragment and two more slots on that node make b's first five-core slot");
    }

    /** a holds the whole cluster (old work); b (min 20) asks for its min as twenty one-slot jobs at 01:05. */
    private static QuotaBench manySmallHeads() {
        QuotaBench b = new QuotaBench(QuotaOptions.DEFAULTS, QuotaBench.table("""
                {"default": {"a": {"GroupId": 1, "MaxQuota": 100, "MinQuota": 0},
                             "b": {"GroupId": 2, "MaxQuota": 100, "MinQuota": 20}}}
                """, null)).nodes(10, 10);
        b.at(1);
        b.submit("old", "a", 100);
        b.clock.set(Clocks.MIDNIGHT + Clocks.HOUR + 300_000);
        for (int j = 0; j < 20; j++) {
            b.submit("small" + j, "b", 1);
        }
        return b;
    }

    /**
     * b's deficit is twenty heads of one slot: one attempt serves them one after the other, each with
     * what it needs, until b is at its min (issue 24: one head per attempt, a second apart, kept a group
     * of small jobs below its min for minutes on the Alibaba replay — "took slots back" in the simulator's
     * charge of each long stretch). No more than the need is taken.
     */
    @Test
    void oneAttemptServesAGroupsHeadsOneAfterTheOtherUntilItIsAtItsMin() {
        QuotaBench b = manySmallHeads();
        b.advance(1000);
        assertEquals(20, b.usedSlots("b"), "b at its min in one attempt, not one small job a second");
        assertEquals(80, b.granted("old"), "twenty one-slot heads, twenty slots taken: no more than the need");
        b.advance(30_000);
        assertEquals(80, b.granted("old"), "b at its min takes nothing more");
    }

    /** Why b is below its min is in the policy's status while it is, and gone once it is at its min. */
    @Test
    void theStatusSaysWhyAGroupIsBelowItsMin() {
        QuotaBench b = new QuotaBench(QuotaOptions.DEFAULTS.withRestraint(600, 0), QuotaBench.table("""
                {"default": {"a": {"GroupId": 1, "MaxQuota": 100, "MinQuota": 0},
                             "b": {"GroupId": 2, "MaxQuota": 100, "MinQuota": 20}}}
                """, null)).nodes(10, 10);
        b.at(1);
        b.submit("old", "a", 100);
        b.clock.set(Clocks.MIDNIGHT + Clocks.HOUR + 60_000);
        b.submit("claim", "b", 20);
        b.advance(1000);
        assertEquals("victims younger than minRunSeconds", b.quota.status().get(QuotaPolicy.BELOW_MIN_STATUS + "b"),
                "a's grants have run 60 s of the 600 they must: " + b.quota.status());
        b.clock.set(Clocks.MIDNIGHT + Clocks.HOUR + 660_000);
        b.advance(1000);
        assertEquals(20, b.granted("claim"));
        assertEquals(null, b.quota.status().get(QuotaPolicy.BELOW_MIN_STATUS + "b"), "at its min: " + b.quota.status());
    }

    /**
     * The mins add up to the whole cluster (5,000 + 5,000 of 10,000): a holds 51 slots of old work, b the
     * 49 left and waits for more. With the default headroom of 2 % the mins are held at 4,900 each — b is
     * at its min and nothing is revoked; as the table says (headroom 0), b takes one slot back. Issue 24:
     * slots never pack a cluster whole, so with such mins some group was always below its min and
     * preemption moved the shortfall from group to group.
     */
    private static QuotaBench minsAddingUpToTheCluster(long headroomPercent) {
        QuotaBench b = new QuotaBench(QuotaOptions.DEFAULTS.withPackingHeadroom(headroomPercent), QuotaBench.table("""
                {"default": {"a": {"GroupId": 1, "MaxQuota": {"cpu": 10000, "mem": 10000}, "MinQuota": {"cpu": 5000, "mem": 5000}},
                             "b": {"GroupId": 2, "MaxQuota": {"cpu": 10000, "mem": 10000}, "MinQuota": {"cpu": 5000, "mem": 5000}}}}
                """, null)).nodes(10, 10);
        b.at(1);
        b.submit(new JobSpec("old", "a", null, 0, false, List.of(Jobs.unit("u", 100, 100, 51).build())));
        b.clock.set(Clocks.MIDNIGHT + Clocks.HOUR + 300_000);
        b.submit(new JobSpec("more", "b", null, 0, false, List.of(Jobs.unit("u", 100, 100, 60).build())));
        b.advance(30_000);
        return b;
    }

    @Test
    void minsThatAddUpToTheClusterAreHeldAsTheClusterPacksThem() {
        QuotaBench b = minsAddingUpToTheCluster(QuotaOptions.DEFAULTS.packingHeadroomPercent());
        assertEquals(49, b.granted("more"));
        assertEquals(51, b.granted("old"), "b holds 4,900: its min as the cluster packs it; nothing revoked");
        assertEquals(null, b.quota.status().get(QuotaPolicy.BELOW_MIN_STATUS + "b"), "b is not below its min");
        QuotaBench asTheTableSays = minsAddingUpToTheCluster(0);
        assertEquals(50, asTheTableSays.granted("more"), "headroom 0: b takes back one slot to its 5,000");
        assertEquals(50, asTheTableSays.granted("old"));
    }

    /**
     * a is below its min (60) before 08:00 with a long head that the lookahead would hold to the day
     * slice's max (40, all a holds); c's job is the emergent job, b holds the rest with old work. The
     * lookahead holds nothing below the min in force: a's guarantee is 60 until 08:00, so a takes back
     * from b what its head needs to reach it, and no more (issue 24: the lookahead kept the group whose
     * min falls at 08:00 below its night min for 36 minutes; before that, what was taken for a head the
     * lookahead held went to others and was taken again the next second).
     */
    @Test
    void theLookaheadHoldsNoGroupBelowTheMinInForce() {
        QuotaBench b = new QuotaBench(QuotaOptions.DEFAULTS, QuotaBench.table("""
                {"default": {"a": {"GroupId": 1, "MaxQuota": 100, "MinQuota": 60},
                             "b": {"GroupId": 2, "MaxQuota": 100, "MinQuota": 0},
                             "c": {"GroupId": 3, "MaxQuota": 100, "MinQuota": 0}},
                 "8-20":    {"a": {"GroupId": 1, "MaxQuota": 40, "MinQuota": 10},
                             "b": {"GroupId": 2, "MaxQuota": 100, "MinQuota": 0},
                             "c": {"GroupId": 3, "MaxQuota": 100, "MinQuota": 0}}}
                """, null)).nodes(10, 10);
        b.at(1);
        b.submit("early", "a", 40);
        b.submit("old", "b", 60);
        b.at(7.25);
        b.submit("big", "c", 10);                                    // waits for resources: the emergent job
        b.at(7.5);
        b.submit("long", "a", 50);                                   // run time unknown: held to a's day max of 40
        b.advance(1000);
        b.advance(1000);
        assertEquals(20, b.granted("long"), "a's long work up to its min of 60, not beyond");
        assertEquals(40, b.granted("old"), "taken back from b: what a's head needs to reach its min");
        assertEquals(null, b.quota.status().get(QuotaPolicy.BELOW_MIN_STATUS + "a"), b.quota.status().toString());
        b.advance(1000);
        assertEquals(20, b.granted("long"), "above its min the lookahead holds it still");
        assertEquals(40, b.granted("old"), "nothing more taken");
    }

    /**
     * a may lose two cores (it holds 16, its min is 14); its youngest grants are one core on each node,
     * so taking the two youngest makes room for b's two-core head on no node. The look node by node
     * takes the youngest of a's grants on one node, a one-core grant of the newer job and one of the
     * older, and b's head starts there (issue 24: groups stayed below their min for minutes, charged to
     * "victims at their min", while another group's young grants were spread thin).
     */
    @Test
    void roomIsMadeNodeByNodeWhenTheYoungestGrantsAreSpreadThin() {
        QuotaBench b = new QuotaBench(QuotaOptions.DEFAULTS.withPackingHeadroom(0), QuotaBench.table("""
                {"default": {"a": {"GroupId": 1, "MaxQuota": {"cpu": 1600, "mem": 1600}, "MinQuota": {"cpu": 1400, "mem": 1400}},
                             "b": {"GroupId": 2, "MaxQuota": {"cpu": 1600, "mem": 1600}, "MinQuota": {"cpu": 200, "mem": 200}}}}
                """, null)).nodes(4, 4);
        b.at(1);
        b.submit(Jobs.job("old", "a", Jobs.unit("u", 100, 100, 12).maxPerNode(3).build()));
        b.at(1.1);
        b.submit(Jobs.job("new", "a", Jobs.unit("u", 100, 100, 4).maxPerNode(1).build()));
        assertEquals(16, b.usedSlots("a"), "the cluster is full: three of old and one of new on each node");
        b.at(1.2);
        b.submit(Jobs.job("big", "b", Jobs.unit("u", 200, 200, 1).build()));
        b.advance(1000);
        assertEquals(1, b.granted("big"), "b's head started: " + b.quota.status());
        assertEquals(3, b.granted("new"), "one core of the newer job taken");
        assertEquals(11, b.granted("old"), "and one of the older, on the same node: a at its min");
        assertEquals(null, b.quota.status().get(QuotaPolicy.BELOW_MIN_STATUS + "b"), b.quota.status().toString());
    }

    /**
     * b (min 1,000 slots; a dead zone of 10 thousandths is 10 slots) holds its min less {@code shortBy};
     * a holds the rest of the cluster with work old enough to take; at 01:05 b asks for 50 slots more.
     */
    private static QuotaBench bShortOfItsMinBy(int shortBy, long deadZonePerMille) {
        QuotaBench b = new QuotaBench(QuotaOptions.DEFAULTS.withMinDeadZone(deadZonePerMille), QuotaBench.table("""
                {"default": {"a": {"GroupId": 1, "MaxQuota": 2000, "MinQuota": 0},
                             "b": {"GroupId": 2, "MaxQuota": 2000, "MinQuota": 1000}}}
                """, null)).nodes(20, 100);
        b.at(1);
        b.submit("mine", "b", 1000 - shortBy);
        b.submit("old", "a", 1000 + shortBy);
        b.clock.set(Clocks.MIDNIGHT + Clocks.HOUR + 300_000);
        b.submit("more", "b", 50);
        return b;
    }

    /**
     * Within the dead zone b is at its guarantee: nothing is revoked for it, no cause is said, and the
     * bounds the simulator measures against do not count it below. Issue 24: on the Alibaba replay every
     * stretch over 20 s left was a group a few slots under a min of thousands, taking a slot back a second
     * while its own ends and others' fragments put it under again.
     */
    @Test
    void aGroupShortOfItsMinByLessThanTheDeadZoneTakesNothingBack() {
        QuotaBench b = bShortOfItsMinBy(5, 10);
        b.advance(30_000);
        assertEquals(0, b.granted("more"));
        assertEquals(1005, b.granted("old"), "nothing revoked");
        assertEquals(null, b.quota.status().get(QuotaPolicy.BELOW_MIN_STATUS + "b"), b.quota.status().toString());
        assertEquals(false, b.quota.bounds(b.view().group("b"), b.view()).below(b.view().group("b")));
    }

    /**
     * Past the dead zone b takes back its whole min, not just back into the dead zone: the next few ends
     * of its own work do not put it under again at once.
     */
    @Test
    void pastTheDeadZoneAGroupTakesBackItsWholeMin() {
        QuotaBench b = bShortOfItsMinBy(30, 10);
        int s = secondsUntil(b, "more", 30);
        assertTrue(s >= 0 && s <= BOUND_SECONDS, "b short by 30 slots got them back after " + s + " s");
        assertEquals(1000, b.granted("old"), "of a's 1,030, exactly the 30 slots to b's whole min");
        b.advance(30_000);
        assertEquals(30, b.granted("more"), "b at its min takes nothing more");
    }

    /** With no dead zone (0) the same five slots short are taken back. */
    @Test
    void withoutADeadZoneAnyShortfallIsTakenBack() {
        QuotaBench b = bShortOfItsMinBy(5, 0);
        int s = secondsUntil(b, "more", 5);
        assertTrue(s >= 0 && s <= BOUND_SECONDS, "five slots short, taken back after " + s + " s");
        assertEquals(1000, b.granted("old"));
    }
}

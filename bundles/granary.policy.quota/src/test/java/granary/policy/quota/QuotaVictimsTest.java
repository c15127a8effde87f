package granary.policy.quota;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.HashSet;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.Test;

import granary.api.event.OutputEvent;
import granary.api.event.Receipt;
import granary.api.event.Revoked;
import granary.api.model.JobSpec;
import granary.testkit.Clocks;
import granary.testkit.Jobs;

/**
 * Preemption that wastes little (issue 24; docs/multi-tenancy.md, "Choices and their defaults"):
 * victims are the youngest grants past the minimum run time, of the group furthest above its min
 * when they are as young, never more than the need, and the quota report counts the work they had run.
 */
class QuotaVictimsTest {

    private static final String TWO_GROUPS = """
            {"default": {"a": {"GroupId": 1, "MaxQuota": 100, "MinQuota": 0},
                         "b": {"GroupId": 2, "MaxQuota": 100, "MinQuota": 60}}}
            """;

    /** The default restraint but no rate limit and no emergent job: only the victim rules act. */
    private static QuotaBench bench(String table) {
        return new QuotaBench(QuotaOptions.DEFAULTS.withEmergent(QuotaOptions.EmergentMode.OFF).withRestraint(60, 0),
                QuotaBench.table(table, null)).nodes(10, 10);
    }

    private static void atMinutes(QuotaBench b, double minutes) {
        b.clock.set(Clocks.MIDNIGHT + Clocks.HOUR + (long) (minutes * 60_000));
        b.tick();
    }

    private static GroupQuotaRow row(QuotaBench b, String group) {
        return b.quota.quota(b.engine.view()).groups().stream().filter(g -> g.group().equals(group)).findFirst().orElseThrow();
    }

    @Test
    void victimsAreTheYoungestGrantsPastTheMinimumRunTime() {
        QuotaBench b = bench(TWO_GROUPS);
        atMinutes(b, 0);
        b.submit("old", "a", 40);
        atMinutes(b, 10);
        b.submit("mid", "a", 30);
        atMinutes(b, 20);
        b.submit("new", "a", 20);
        atMinutes(b, 20.5);
        b.submit("tooYoung", "a", 10);                               // the cluster is full
        atMinutes(b, 21);                                            // new has run 60 s, tooYoung 30 s
        b.submit("claim", "b", 25);
        assertEquals(25, b.granted("claim"), "b is below its min of 60: it gets what its job needs");
        assertEquals(0, b.granted("new"), "the youngest grants old enough go first: all 20 of new");
        assertEquals(25, b.granted("mid"), "then 5 of the next youngest");
        assertEquals(40, b.granted("old"), "the oldest work is not touched");
        assertEquals(10, b.granted("tooYoung"), "younger than the minimum run time");
        GroupQuotaRow a = row(b, "a");
        assertEquals(25, a.preemptedFrom());
        assertEquals(20 * 60 + 5 * 660, a.preemptedWorkSeconds(), 1e-9, "20 slots had run 60 s, 5 had run 11 minutes");
        assertEquals(25, row(b, "b").preemptedFor());
    }

    @Test
    void neverMoreThanTheNeedNorBeyondTheMin() {
        QuotaBench b = bench("""
                {"default": {"a": {"GroupId": 1, "MaxQuota": 100, "MinQuota": 0},
                             "b": {"GroupId": 2, "MaxQuota": 100, "MinQuota": 5}}}
                """);
        atMinutes(b, 0);
        b.submit("hog", "a", 100);
        atMinutes(b, 5);
        b.submit("small", "b", 3);
        assertEquals(3, b.granted("small"));
        assertEquals(3, row(b, "a").preemptedFrom(), "its job needs 3: 3 are taken");
        b.submit("big", "b", 20);
        for (int s = 0; s < 30; s++) {
            b.advance(1000);                                         // one attempt a second
        }
        assertEquals(2, b.granted("big"), "up to b's min of 5, not the 20 its job wants, and nothing more at its min");
        assertEquals(5, row(b, "a").preemptedFrom());
        assertEquals(95, b.granted("hog"));
    }

    @Test
    void aBiggerSlotTakesWhatMakesRoomOnOneNodeAndNothingElsewhere() {
        QuotaBench b = bench(TWO_GROUPS);
        atMinutes(b, 0);
        for (int j = 0; j < 10; j++) {
            b.submit("j" + j, "a", 10);
        }
        atMinutes(b, 5);
        Receipt r = b.submit(new JobSpec("wide", "b", null, 0, false, List.of(Jobs.unit("u", 300, 300, 1).build())));
        assertEquals(1, b.granted("wide"));
        Set<String> nodes = new HashSet<>();
        int revoked = 0;
        for (OutputEvent o : r.outputs()) {
            if (o instanceof Revoked v) {
                nodes.add(v.node());
                revoked += v.slots();
            }
        }
        assertEquals(3, revoked, "three one-core slots make room for one three-core slot");
        assertEquals(1, nodes.size(), "all on the node where they make room: " + nodes);
    }

    @Test
    void amongGrantsOfTheSameAgeTheGroupFurthestAboveItsMinGivesFirst() {
        QuotaBench b = bench("""
                {"default": {"a": {"GroupId": 1, "MaxQuota": 100, "MinQuota": 0},
                             "c": {"GroupId": 3, "MaxQuota": 100, "MinQuota": 10},
                             "b": {"GroupId": 2, "MaxQuota": 100, "MinQuota": 30}}}
                """);
        atMinutes(b, 0);
        b.submit("ofC", "c", 50);                                    // 40 above c's min
        b.submit("ofA", "a", 50);                                    // 50 above a's min: as young, further above
        atMinutes(b, 5);
        b.submit("claim", "b", 10);
        assertEquals(10, b.granted("claim"));
        assertEquals(40, b.granted("ofA"));
        assertEquals(50, b.granted("ofC"));
    }
}

package granary.policy.quota;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

import org.junit.jupiter.api.Test;

import granary.api.event.Granted;
import granary.api.event.OutputEvent;
import granary.api.event.Receipt;
import granary.api.event.Revoked;
import granary.api.model.JobSpec;
import granary.api.model.UnitSpec;
import granary.testkit.Clocks;
import granary.testkit.Jobs;

/**
 * The emergent claim, preemption with restraint and the boundary lookahead
 * (docs/multi-tenancy.md, "Choices and their defaults").
 */
class QuotaRestraintTest {

    private static final String ONE_GROUP = """
            {"default": {"a": {"GroupId": 1, "MaxQuota": 100, "MinQuota": 50}}}
            """;

    private static Receipt submitBig(QuotaBench b, String id, int cores) {
        return b.handle(new granary.api.event.JobSubmitted(new JobSpec(id, "a", null, 0, false,
                List.of(UnitSpec.builder("u").slot(100L * cores, 100L * cores).desired(1).build()))));
    }

    @Test
    void theEmergentJobClaimsOneNodeAndTheRestOfTheClusterKeepsWorking() {
        QuotaBench b = new QuotaBench(QuotaOptions.DEFAULTS.withPreemption(false), QuotaBench.table(ONE_GROUP, null)).nodes(3, 10);
        b.submit("fill", "a", 30);
        submitBig(b, "big", 4);                                      // needs 4 free cores on one node
        b.submit("small", "a", 8);
        QuotaReport r = b.quota.quota(b.engine.view());
        assertEquals("big", r.emergent());
        assertEquals(1, r.claimedNodes(), "one node's capacity covers the one slot it needs: never more");
        String claimed = "n0";                                        // all equally full: the first by name
        b.release("fill/u", "n1", 3);                                 // not claimed: others use it at once
        assertEquals(3, b.granted("small"));
        b.release("fill/u", claimed, 3);                              // claimed: kept for big
        assertEquals(3, b.granted("small"));
        b.release("fill/u", claimed, 1);                              // 4 free there: big starts
        assertEquals(1, b.granted("big"));
        assertNull(b.quota.quota(b.engine.view()).emergent());
        assertEquals(0, b.quota.quota(b.engine.view()).claimedNodes());
        assertEquals(3, b.granted("small"), "the claim is gone, but n0 is full again");
        b.release("fill/u", "n2", 5);
        assertEquals(8, b.granted("small"));
    }

    @Test
    void withEmergentOffTheBigJobWaitsWhileSmallWorkBackfillsEveryFreedCore() {
        QuotaBench b = new QuotaBench(QuotaOptions.DEFAULTS.withPreemption(false).withEmergent(QuotaOptions.EmergentMode.OFF),
                QuotaBench.table(ONE_GROUP, null)).nodes(3, 10);
        b.submit("fill", "a", 30);
        submitBig(b, "big", 4);
        b.submit("small", "a", 8);
        b.release("fill/u", "n0", 3);
        assertEquals(3, b.granted("small"), "3 free cores: too few for big, small takes them");
        b.release("fill/u", "n1", 3);
        assertEquals(6, b.granted("small"), "and again: big can wait as long as small work keeps coming");
        assertEquals(0, b.granted("big"));
        assertNull(b.quota.quota(b.engine.view()).emergent());
    }

    private static final String TWO_GROUPS = """
            {"default": {"a": {"GroupId": 1, "MaxQuota": 100, "MinQuota": 0},
                         "b": {"GroupId": 2, "MaxQuota": 100, "MinQuota": 60}}}
            """;

    @Test
    void preemptionNeverTakesAGrantYoungerThanTheMinimumRunTime() {
        QuotaBench b = new QuotaBench(QuotaOptions.DEFAULTS.withEmergent(QuotaOptions.EmergentMode.OFF).withRestraint(600, 0),
                QuotaBench.table(TWO_GROUPS, null)).nodes(10, 10);
        b.at(1);
        b.submit("old", "a", 40);
        b.clock.set(Clocks.MIDNIGHT + Clocks.HOUR + 300_000);        // 01:05
        b.submit("young", "a", 60);
        b.clock.set(Clocks.MIDNIGHT + Clocks.HOUR + 660_000);        // 01:11: old has run 11 min, young 6
        b.submit("claim", "b", 60);
        assertEquals(40, b.granted("claim"), "only the grants at least 10 minutes old are taken");
        assertEquals(0, b.granted("old"));
        assertEquals(60, b.granted("young"));
        b.clock.set(Clocks.MIDNIGHT + Clocks.HOUR + 960_000);        // 01:16: young is 11 minutes old now
        b.tick();
        assertEquals(60, b.granted("claim"));
        assertEquals(40, b.granted("young"));
    }

    @Test
    void preemptionRevokesAtMostTheLimitPerMinute() {
        QuotaBench b = new QuotaBench(QuotaOptions.DEFAULTS.withEmergent(QuotaOptions.EmergentMode.OFF).withRestraint(0, 15),
                QuotaBench.table(TWO_GROUPS, null)).nodes(10, 10);
        b.at(1);
        b.submit("hog", "a", 100);
        b.at(2);
        b.submit("claim", "b", 60);
        assertEquals(15, b.granted("claim"));
        for (int s = 1; s < 60; s++) {
            b.advance(1000);
        }
        assertEquals(15, b.granted("claim"), "no more within the same minute");
        b.advance(1000);
        assertEquals(30, b.granted("claim"));
        long[] counts = b.quota.quota(b.engine.view()).groups().stream().filter(g -> g.group().equals("a"))
                .map(g -> new long[] {g.preemptedFrom(), g.preemptedFor()}).findFirst().orElseThrow();
        assertEquals(30, counts[0]);
        assertEquals(30, b.quota.quota(b.engine.view()).groups().stream().filter(g -> g.group().equals("b"))
                .findFirst().orElseThrow().preemptedFor());
    }

    private static final String DAY_NIGHT = """
            {"default": {"a": {"GroupId": 1, "MaxQuota": 100, "MinQuota": 0}},
             "8-20":    {"a": {"GroupId": 1, "MaxQuota": 40, "MinQuota": 0}}}
            """;

    @Test
    void beforeABoundaryThatLowersItsMaxAGroupStartsOnlyWhatFitsTheNextSliceOrEndsBeforeIt() {
        QuotaBench b = new QuotaBench(QuotaOptions.DEFAULTS, QuotaBench.table(DAY_NIGHT, null)).nodes(10, 10);
        b.at(6);                                                     // 2 h before: beyond the 60-minute lookahead
        b.submit("early", "a", 30);
        assertEquals(30, b.granted("early"));
        b.at(7.5);                                                   // 30 minutes before 08:00, max 100 -> 40
        b.submit("long", "a", 50);                                   // run time unknown: counts as outliving 08:00
        assertEquals(10, b.granted("long"), "up to the next slice's max of 40");
        assertEquals(QuotaReasons.LOOKAHEAD, b.unit("long").waitReason().code());
        b.submit(new JobSpec("short", "a", null, 0, false,
                List.of(Jobs.unit("u", 100, 100, 20).expectedSeconds(600).build())));   // ends 07:40
        assertEquals(20, b.granted("short"), "declared to end before the boundary: the current max applies");
        b.at(8);
        assertEquals(60, b.usedSlots("a"));
        QuotaBench off = new QuotaBench(QuotaOptions.DEFAULTS.withLookahead(false, 60), QuotaBench.table(DAY_NIGHT, null)).nodes(10, 10);
        off.at(7.5);
        off.submit("long", "a", 50);
        assertEquals(50, off.granted("long"), "without the lookahead it takes what the current slice allows");
    }

    @Test
    void learnedRunTimesLetShortWorkThroughBeforeTheBoundary() {
        QuotaBench b = new QuotaBench(QuotaOptions.DEFAULTS, QuotaBench.table(DAY_NIGHT, null)).nodes(10, 10);
        b.at(7);
        b.submit("probe", "a", 5);
        b.clock.set(Clocks.MIDNIGHT + 7 * Clocks.HOUR + 120_000);    // each runs 2 minutes
        b.tick();
        b.release("probe", 5);
        b.at(7.25);
        b.submit("probe2", "a", 80);                                 // another job of the group: its 2 minutes are learned
        assertEquals(80, b.granted("probe2"));
    }

    /**
     * Property run (fixed seeds): random submissions, releases and time steps on two groups with the
     * emergent claim, a minimum run time and a rate limit. After every event: no slot is revoked from
     * a grant younger than the minimum run time, no more than the limit in any minute, a victim group
     * never falls below its min by preemption, and nothing but the emergent job is granted on a
     * claimed node.
     */
    @Test
    void propertyRunsKeepTheRestraintAndTheClaim() {
        for (long seed = 1; seed <= 12; seed++) {
            run(seed);
        }
    }

    private static void run(long seed) {
        Random rnd = new Random(seed);
        long minRunMs = 30_000;
        int perMinute = 25;
        QuotaBench b = new QuotaBench(QuotaOptions.DEFAULTS.withRestraint(30, perMinute).withLookahead(false, 60),
                QuotaBench.table("""
                        {"default": {"a": {"GroupId": 1, "MaxQuota": 200, "MinQuota": 40},
                                     "b": {"GroupId": 2, "MaxQuota": 200, "MinQuota": 80}}}
                        """, null)).nodes(8, 16);
        Map<String, Long> grantedAt = new HashMap<>();   // unit@node -> time of the first slot held there
        List<long[]> revocations = new java.util.ArrayList<>();
        int jobs = 0;
        for (int step = 0; step < 300; step++) {
            Set<String> claimedBefore = new HashSet<>(claimedNodes(b));
            String emergentBefore = b.quota.quota(b.engine.view()).emergent();
            Receipt r;
            int what = rnd.nextInt(10);
            if (what < 4) {
                String g = rnd.nextBoolean() ? "a" : "b";
                String id = "j" + (jobs++);
                int cores = rnd.nextInt(5) == 0 ? 1 + rnd.nextInt(8) : 1;
                r = b.submit(new JobSpec(id, g, null, 0, false,
                        List.of(Jobs.unit("u", 100L * cores, 100L * cores, 1 + rnd.nextInt(30)).build())));
            } else if (what < 7) {
                List<String> running = b.engine.view().jobs().stream().filter(j -> j.units().get(0).granted() > 0)
                        .map(j -> j.id()).toList();
                if (running.isEmpty()) {
                    continue;
                }
                String id = running.get(rnd.nextInt(running.size()));
                var u = b.unit(id);
                var node = u.allocations().keySet().iterator().next();
                r = b.release(id + "/u", node, 1 + rnd.nextInt(u.allocations().get(node)));
            } else {
                r = b.advance(1000L * (1 + rnd.nextInt(20)));
            }
            long now = b.clock.millis();
            boolean claimHeld = emergentBefore != null && emergentBefore.equals(b.quota.quota(b.engine.view()).emergent());
            int revokedNow = 0;
            for (OutputEvent o : r.outputs()) {
                if (o instanceof Granted g) {
                    grantedAt.putIfAbsent(g.unit() + "@" + g.node(), now);
                    assertTrue(!claimHeld || !claimedBefore.contains(g.node()) || g.unit().job().equals(emergentBefore),
                            "seed " + seed + ": " + g + " on a node claimed for " + emergentBefore);
                } else if (o instanceof Revoked v) {
                    Long since = grantedAt.get(v.unit() + "@" + v.node());
                    assertTrue(since != null && now - since >= minRunMs, "seed " + seed + ": revoked a grant of age "
                            + (since == null ? "?" : now - since) + " ms: " + v);
                    revokedNow += v.slots();
                }
            }
            if (revokedNow > 0) {
                revocations.add(new long[] {now, revokedNow});
                long inMinute = revocations.stream().filter(x -> x[0] > now - 60_000).mapToLong(x -> x[1]).sum();
                assertTrue(inMinute <= perMinute, "seed " + seed + ": " + inMinute + " slots revoked within a minute");
                for (String g : List.of("a", "b")) {
                    long min = g.equals("a") ? 40 : 80;
                    boolean victim = r.outputs().stream().anyMatch(o -> o instanceof Revoked v
                            && b.engine.view().job(v.unit().job()) != null
                            && b.engine.view().job(v.unit().job()).group().equals(g));
                    assertTrue(!victim || b.usedSlots(g) >= min, "seed " + seed + ": group " + g + " preempted below its min");
                }
            }
            for (var u : b.engine.view().jobs()) {
                for (var unit : u.units()) {
                    for (String n : List.copyOf(grantedAt.keySet())) {
                        if (n.startsWith(unit.id() + "@") && unit.allocations().get(n.substring(n.indexOf('@') + 1)) == null) {
                            grantedAt.remove(n);   // nothing held there any more: a new grant starts a new age
                        }
                    }
                }
            }
            b.engine.checkInvariants();
        }
    }

    /**
     * Property run of the lookahead (fixed seeds): random jobs with declared run times from 1 minute
     * to 2 hours arrive and end in the two hours before 08:00, where the table lowers the group's max
     * from 100 to 40 slots. Whenever a slot is granted inside the lookahead hour to work declared to
     * outlive 08:00, the group holds at most 40 slots after the grant; work declared to end before
     * 08:00 is never held back by the lookahead.
     */
    @Test
    void propertyRunsOfTheLookaheadNeverStartLongWorkBeyondTheNextSlicesMax() {
        for (long seed = 1; seed <= 10; seed++) {
            Random rnd = new Random(seed);
            QuotaBench b = new QuotaBench(QuotaOptions.DEFAULTS.withPreemption(false), QuotaBench.table(DAY_NIGHT, null))
                    .nodes(10, 10);
            long boundary = Clocks.MIDNIGHT + 8 * Clocks.HOUR;
            b.at(6);
            Map<String, Long> declared = new HashMap<>();
            int jobs = 0;
            while (b.clock.millis() < boundary - 1000) {
                Receipt r;
                if (rnd.nextInt(3) == 0) {
                    String id = "j" + (jobs++);
                    long secs = 60 + rnd.nextInt(7200);
                    declared.put(id, secs);
                    r = b.submit(new JobSpec(id, "a", null, 0, false,
                            List.of(Jobs.unit("u", 100, 100, 1 + rnd.nextInt(20)).expectedSeconds(secs).build())));
                } else if (rnd.nextBoolean()) {
                    List<String> running = b.engine.view().jobs().stream().filter(j -> j.units().get(0).granted() > 0)
                            .map(j -> j.id()).toList();
                    if (running.isEmpty()) {
                        continue;
                    }
                    String id = running.get(rnd.nextInt(running.size()));
                    String node = b.unit(id).allocations().keySet().iterator().next();
                    r = b.release(id + "/u", node, 1);
                } else {
                    r = b.advance(Math.min(boundary - 1000 - b.clock.millis(), 1000L * (1 + rnd.nextInt(300))));
                }
                long now = b.clock.millis();
                boolean inWindow = now >= boundary - Clocks.HOUR;
                for (OutputEvent o : r.outputs()) {
                    if (o instanceof Granted g && inWindow && now + declared.get(g.unit().job()) * 1000 > boundary) {
                        assertTrue(b.usedSlots("a") <= 40, "seed " + seed + ": " + g + " at " + (boundary - now) / 1000
                                + " s before 08:00 outlives it, and a holds " + b.usedSlots("a") + " > 40");
                    }
                }
                for (var j : b.engine.view().jobs()) {
                    var u = j.units().get(0);
                    if (inWindow && u.remaining() > 0 && u.waitReason() != null && u.waitReason().code().equals(QuotaReasons.LOOKAHEAD)) {
                        assertTrue(now + declared.get(j.id()) * 1000 > boundary, "seed " + seed + ": " + j.id()
                                + " ends before 08:00 but was held back by the lookahead");
                    }
                }
            }
        }
    }

    private static Set<String> claimedNodes(QuotaBench b) {
        Set<String> out = new HashSet<>();
        for (var n : b.engine.view().cluster().nodes()) {
            if (b.quota.reservedFor(n) != null) {
                out.add(n.name());
            }
        }
        return out;
    }
}

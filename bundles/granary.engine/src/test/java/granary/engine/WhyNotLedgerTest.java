package granary.engine;

import static granary.engine.Harness.unit;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;

import granary.api.event.JobCancelled;
import granary.api.event.JobSubmitted;
import granary.api.event.NodeAdded;
import granary.api.event.NodeBlacklisted;
import granary.api.event.NodeRemoved;
import granary.api.event.UnitDesireChanged;
import granary.api.model.JobSpec;
import granary.api.model.NodeSpec;
import granary.api.model.Resources;
import granary.api.model.UnitId;
import granary.api.model.UnitSpec;
import granary.api.spi.JobView;
import granary.api.spi.JobWhy;
import granary.api.spi.NodeFilter;
import granary.api.spi.NodeView;
import granary.api.spi.Reason;
import granary.api.spi.ReasonCode;
import granary.api.spi.ReasonTally;
import granary.api.spi.UnitView;
import granary.api.spi.Verdict;

import org.junit.jupiter.api.Test;

/**
 * The why-not-scheduled ledger (docs/scheduling.md, "Why is my job not scheduled?"): each reason a
 * waiting unit is not placed is counted by code with its numbers, once per cycle, and dropped when
 * nothing of the unit waits; {@link JobWhy} says it in sentences.
 */
class WhyNotLedgerTest {
    /** A policy's own reason code, as a quota policy declares it. */
    static final ReasonCode QUOTA = ReasonCode.of("QUOTA", "limit reached",
            "It gets more when work in {subject} releases slots, or when that limit is raised.");
    /** A policy's own reason code, as a reservation policy declares it. */
    static final ReasonCode LOCKED = ReasonCode.of("LOCKED", "node locked", "The nodes with room are locked for another"
            + " job by a reservation; they open when that job has started or the reservation ends.");


    private static UnitView unitOf(Harness h, String id) {
        return h.engine.view().unit(UnitId.parse(id));
    }

    private static ReasonTally tally(Harness h, String id, ReasonCode code) {
        return unitOf(h, id).reasons().stream().filter(t -> t.code().equals(code)).findFirst()
                .orElseThrow(() -> new AssertionError("no " + code + " in " + unitOf(h, id).reasons()));
    }

    private static List<String> why(Harness h, String job) {
        return JobWhy.of(h.engine.view().job(job), h.engine.view().now()).sentences();
    }

    private static void assertSaid(List<String> sentences, String expected) {
        assertTrue(sentences.contains(expected), "expected sentence:\n  " + expected + "\nin:\n  "
                + String.join("\n  ", sentences));
    }

    /** Three nodes of 8 GiB with 6 GiB of each taken: 2 GiB free at most. */
    private static Harness twoGibFree() {
        Harness h = Harness.withFifo().nodes("n", "r1", 3, 400, 8192);
        h.submit("fill", unit("f", 100, 6144, 3));
        assertEquals(3, h.granted("fill/f"));
        return h;
    }

    @Test
    void noNodeWithEnoughMemoryIsNoFitWithWhatOneSlotNeedsAndTheMostFree() {
        Harness h = twoGibFree();
        h.clock.advance(500);
        h.submit("wc", unit("map", 100, 4096, 1));
        ReasonTally t = tally(h, "wc/map", ReasonCode.NO_FIT);
        assertEquals(1, t.count());
        assertEquals(4096, t.last().limit());
        assertEquals(2048, t.last().value());
        assertEquals(h.clock.millis(), t.lastAtMillis());
        assertEquals("no node has enough free memory for one slot — it needs 4096 MiB, the most free on any node is"
                + " 2048 MiB", t.last().message());
        assertEquals(t.last(), unitOf(h, "wc/map").waitReason());

        h.clock.advance(12_000);
        List<String> s = why(h, "wc");
        assertEquals(List.of(
                "Job wc in group " + h.engine.view().job("wc").group() + " waits for 1 of its 1 slot (0 granted).",
                "Unit wc/map has been waiting for 1 of 1 slot (0 granted) for 12 s.",
                "Most often (once, last 12 s ago): no node has enough free memory for one slot — it needs 4096 MiB,"
                        + " the most free on any node is 2048 MiB.",
                "It is placed when a node frees enough room (slots released, a node added or enlarged); a smaller"
                        + " slot would fit sooner."), s);
    }

    @Test
    void cpuAndAnExtendedResourceAreNamedInTheirOwnUnits() {
        Harness h = Harness.withFifo().nodes("cpu", "r1", 2, 800, 8192);
        h.handle(new NodeAdded(new NodeSpec("gpu0", "r1", Resources.of(800, 8192, Map.of("gpu", 2L)))));
        h.submit("j", UnitSpec.builder("u").slot(Resources.of(150, 512, Map.of("gpu", 1L))).desired(3).build());
        Reason r = tally(h, "j/u", ReasonCode.NO_FIT).last();
        assertEquals("no node has enough free gpu for one slot — it needs 1 gpu, the most free on any node is 0 gpu",
                r.message());
        assertEquals(1, r.limit());
        assertEquals(0, r.value());
        h.submit("big", unit("u", 700, 512, 3));
        assertEquals("no node has enough free cpu for one slot — it needs 7 cores, the most free on any node is 5 cores",
                tally(h, "big/u", ReasonCode.NO_FIT).last().message());
    }

    @Test
    void aClusterOfBlacklistedNodesIsBlacklisted() {
        Harness h = Harness.withFifo().nodes("n", "r1", 3, 400, 4096);
        for (int i = 0; i < 3; i++) {
            h.handle(new NodeBlacklisted("n" + i, true));
        }
        h.submit("j", unit("u", 100, 512, 2));
        ReasonTally t = tally(h, "j/u", ReasonCode.BLACKLISTED);
        assertEquals("all 3 nodes take no work: on the global blacklist", t.last().message());
        assertEquals(List.of(ReasonCode.BLACKLISTED), unitOf(h, "j/u").reasons().stream().map(ReasonTally::code).toList());
        assertSaid(why(h, "j"), "Most often (once, last just now): all 3 nodes take no work: on the global blacklist.");
        assertSaid(why(h, "j"), "Taking nodes off the global blacklist (granary:unblacklist) or off the unit's own"
                + " blacklist would give it room.");
    }

    @Test
    void aUnitThatBlacklistsEveryNodeWithRoomIsBlacklisted() {
        Harness h = Harness.withFifo().nodes("n", "r1", 2, 400, 4096);
        h.submit("j", UnitSpec.builder("u").slot(100, 512).desired(1).blacklist("n0").blacklist("n1").build());
        assertEquals("2 nodes with room for a slot refuse it, e.g. node n0: on the blacklist of unit j/u",
                tally(h, "j/u", ReasonCode.BLACKLISTED).last().message());
        assertEquals(ReasonCode.BLACKLISTED, unitOf(h, "j/u").waitReason().code());   // no node lacks room: no NO_FIT
        assertEquals(1, unitOf(h, "j/u").reasons().size());
    }

    @Test
    void nodesWithRoomButOtherLabelsAreLabelsAndTheMatchingFullNodeIsNoRoom() {
        Harness h = Harness.withFifo().nodes("n", "r1", 2, 400, 4096);
        h.handle(new NodeAdded(new NodeSpec("g0", "r1", Resources.of(100, 4096), Map.of("gpu", "a100"))));
        h.submit("j", UnitSpec.builder("u").slot(100, 512).desired(2).select("gpu", "a100").build());
        assertEquals(1, h.granted("j/u"));
        assertEquals("2 nodes with room for a slot refuse it, e.g. node n0: labels {} lack {gpu=a100}",
                tally(h, "j/u", ReasonCode.LABELS).last().message());
        assertEquals("no other node has room for one slot (3 nodes in all, 2 with room)",
                tally(h, "j/u", ReasonCode.NO_FIT).last().message());
        assertEquals(ReasonCode.NO_FIT, unitOf(h, "j/u").waitReason().code());   // the latest
        List<String> s = why(h, "j");
        assertSaid(s, "Unit j/u has been waiting for 1 of 2 slots (1 granted) for 0.0 s.");
        assertTrue(s.stream().anyMatch(x -> x.startsWith("Most often (once, last just now): ")), s.toString());
        assertTrue(s.stream().anyMatch(x -> x.contains("labels {} lack {gpu=a100}")), s.toString());
    }

    @Test
    void theMaxPerNodeReachedIsMaxPerNode() {
        Harness h = Harness.withFifo().nodes("n", "r1", 1, 800, 8192);
        h.submit("j", UnitSpec.builder("u").slot(100, 512).desired(4).maxPerNode(2).build());
        assertEquals(2, h.granted("j/u"));
        assertEquals("1 node with room for a slot refuses it, e.g. node n0: max 2 slots per node reached",
                tally(h, "j/u", ReasonCode.MAX_PER_NODE).last().message());
    }

    /** Locks every node for another job, as a reservation does. */
    static final class LockAll implements NodeFilter {
        @Override
        public String name() {
            return "lock";
        }

        @Override
        public Verdict filter(UnitView unit, NodeView node) {
            return unit.job().id().equals("target") ? Verdict.ALLOW : Verdict.waitFor(Reason.of(LOCKED,
                    "node " + node.name(), "locked for job target (reservation)"));
        }
    }

    @Test
    void nodesLockedByAFilterAreLocked() {
        Harness h = new Harness(List.of("fifo", "lock"));
        h.install(new Harness.ArrivalOrder("fifo"));
        h.install(new LockAll());
        h.nodes("n", "r1", 2, 400, 4096);
        h.submit("j", unit("u", 100, 512, 1));
        Reason r = tally(h, "j/u", LOCKED).last();
        assertEquals("2 nodes with room for a slot refuse it, e.g. node n0: locked for job target (reservation)", r.message());
        assertSaid(why(h, "j"), "The nodes with room are locked for another job by a reservation; they open when that"
                + " job has started or the reservation ends.");
    }

    @Test
    void aGroupAtItsMaxIsTheAdmissionPolicysReasonWithLimitAndUse() {
        Harness h = new Harness(List.of("fifo", "cap"));
        h.install(new Harness.ArrivalOrder("fifo"));
        h.install(new ActiveSchedulingTest.GroupCapBase(3));
        h.nodes("n", "r1", 4, 400, 4096);
        h.submit("j", unit("u", 100, 512, 10));
        ReasonTally t = tally(h, "j/u", QUOTA);
        String group = h.engine.view().job("j").group();
        // the policy's own numbers: asked for 10 with none in use, it allowed 3, "max 3 slots"
        assertEquals(new Reason(QUOTA, "group " + group, "max 3 slots", 3, 0), t.last());
        List<String> s = why(h, "j");
        assertSaid(s, "Most often (once, last just now): limit reached (group " + group + "): max 3 slots.");
        assertSaid(s, "It gets more when work in group " + group + " releases slots, or when that limit is raised.");
    }

    /** Two full nodes, held by a job of another group; j (1 slot) and k (5) wait, at most 3 slots in their group. */
    private static Harness capOfThree(EngineOptions options) {
        Harness h = new Harness(options, Runnable::run);
        h.install(new Harness.ArrivalOrder("fifo"));
        h.install(new ActiveSchedulingTest.GroupCapBase(3));
        h.nodes("n", "r1", 2, 400, 4096);
        h.submit("other", "elsewhere", unit("u", 400, 512, 2));
        h.submit("j", unit("u", 100, 512, 1));
        h.submit("k", unit("u", 100, 512, 5));
        assertEquals(0, h.granted("k/u"));
        return h;
    }

    /** Releases one slot of a unit, wherever it holds one. */
    private static void releaseOne(Harness h, String unit) {
        h.release(unit, h.placement(unit).keySet().iterator().next(), 1);
    }

    @Test
    void countsGrowOncePerCycleTheUnitIsTriedAndFailed() {
        Harness h = capOfThree(new EngineOptions(List.of("fifo", "cap"), List.of("fifo"), true));
        long quota = tally(h, "k/u", QUOTA).count();   // at submission: 3 of 5 allowed
        long noFit = tally(h, "k/u", ReasonCode.NO_FIT).count();
        h.handle(new JobCancelled("other"));   // one cycle frees both nodes: k is refused on each, counted once
        assertEquals(1, h.granted("j/u"));
        assertEquals(2, h.granted("k/u"));
        assertEquals(quota + 1, tally(h, "k/u", QUOTA).count());
        for (int i = 2; i <= 3; i++) {
            h.clock.advance(1000);
            releaseOne(h, "k/u");   // k takes the slot back and is refused more
            assertEquals(2, h.granted("k/u"));
            assertEquals(quota + i, tally(h, "k/u", QUOTA).count());
        }
        ReasonTally t = tally(h, "k/u", QUOTA);
        assertEquals(h.clock.millis(), t.lastAtMillis());
        assertEquals(noFit, tally(h, "k/u", ReasonCode.NO_FIT).count(), "not tried for room again: not counted again");
        assertEquals(QUOTA, unitOf(h, "k/u").reasons().get(0).code(), "the most frequent first");
        List<String> s = why(h, "k");
        assertSaid(s, "Most often (" + t.count() + " times, last just now): limit reached (group "
                + h.engine.view().job("k").group() + "): max 3 slots.");
        assertSaid(s, "Also (once, last 2.0 s ago): " + tally(h, "k/u", ReasonCode.NO_FIT).last().message() + ".");
    }

    @Test
    void theLedgerIsClearedOnceTheUnitIsFullyGrantedAndStartsAgainWhenItWantsMore() {
        Harness h = twoGibFree();
        h.submit("wc", unit("map", 100, 4096, 1));
        assertEquals(1, unitOf(h, "wc/map").reasons().size());
        h.release("fill/f", "n0", 1);
        assertEquals(1, h.granted("wc/map"));
        assertEquals(List.of(), unitOf(h, "wc/map").reasons());
        assertNull(unitOf(h, "wc/map").waitReason());
        assertEquals(List.of("Job wc is fully placed: nothing waits.", "It holds 1 slot in 1 unit."), why(h, "wc"));

        h.handle(new UnitDesireChanged(UnitId.parse("wc/map"), 3));   // n0 has room for one more
        assertEquals(2, h.granted("wc/map"));
        ReasonTally again = tally(h, "wc/map", ReasonCode.NO_FIT);
        assertEquals(1, again.count(), "a new stretch of waiting, a new ledger");
    }

    @Test
    void aJobThatEndedSaysSo() {
        Harness h = twoGibFree();
        h.submit("wc", unit("map", 100, 4096, 1));
        JobView job = h.engine.view().job("wc");
        h.handle(new JobCancelled("wc"));
        assertNull(h.engine.view().job("wc"), "the engine forgets an ended job");
        assertEquals(List.of("Job wc has finished or was cancelled."), JobWhy.of(job, h.engine.view().now()).sentences());
    }

    @Test
    void aSlotLargerThanEveryNodeLeftIsTooLarge() {
        Harness h = Harness.withFifo().nodes("n", "r1", 1, 400, 4096);
        h.node("big", "r1", 800, 4096);
        h.submit("fill", unit("f", 800, 512, 1));
        h.submit("j", unit("u", 800, 512, 1));
        assertEquals(ReasonCode.NO_FIT, unitOf(h, "j/u").waitReason().code());
        h.handle(new NodeRemoved("big", true));
        h.handle(new UnitDesireChanged(UnitId.parse("j/u"), 2));
        ReasonTally t = tally(h, "j/u", ReasonCode.TOO_LARGE);
        assertEquals(new Reason(ReasonCode.TOO_LARGE, "unit j/u", "its slot needs 8 cores, more than the largest node has"
                + " (4 cores)", 800, 400), t.last());
        assertSaid(why(h, "j"), "It cannot be placed as it is: ask for a smaller slot, or add a node large enough.");
    }

    @Test
    void aGangThatDoesNotFitWholeSaysWhatItNeedsAndWhatIsFree() {
        Harness h = new Harness(List.of("fifo", "gang"));
        h.install(new Harness.ArrivalOrder("fifo"));
        h.install(new GangTest.FirstFit());
        h.nodes("n", "r1", 2, 400, 4096);
        h.submit("small", unit("u", 100, 512, 1));
        h.handle(new JobSubmitted(new JobSpec("g", null, null, 0, true, List.of(unit("a", 100, 512, 4), unit("b", 100, 512, 4)))));
        assertEquals(0, h.granted("g/a") + h.granted("g/b"));
        Reason r = tally(h, "g/b", ReasonCode.NO_PLACEMENT).last();
        assertEquals(800, r.limit());
        assertEquals(700, r.value());
        assertTrue(r.message().endsWith("at once: the cluster has free 7 cores of cpu, it needs 8 cores"), r.message());
        assertSaid(why(h, "g"), "A gang gets all its slots at once and never holds part of them: it is placed when"
                + " enough room is free together.");

        h.handle(new JobSubmitted(new JobSpec("huge", null, null, 0, true, List.of(unit("a", 100, 512, 9)))));
        Reason never = tally(h, "huge/a", ReasonCode.TOO_LARGE).last();
        assertEquals(900, never.limit());
        assertEquals(800, never.value());
    }

    @Test
    void withTheLedgerOffOnlyTheLatestReasonIsKept() {
        Harness h = capOfThree(new EngineOptions(List.of("fifo", "cap"), List.of("fifo"), true, false));
        h.handle(new JobCancelled("other"));
        releaseOne(h, "k/u");
        releaseOne(h, "k/u");
        List<ReasonTally> reasons = unitOf(h, "k/u").reasons();
        assertEquals(1, reasons.size());
        assertEquals(1, reasons.get(0).count());
        assertEquals(-1, reasons.get(0).lastAtMillis());
        assertEquals(unitOf(h, "k/u").waitReason(), reasons.get(0).last());
        assertSaid(why(h, "k"), "Most often (once): limit reached (group " + h.engine.view().job("k").group()
                + "): max 3 slots.");
    }
}

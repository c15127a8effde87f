package granary.policy.quota;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import granary.api.model.InvalidRequestException;
import granary.api.model.JobSpec;
import granary.api.model.UnitKind;
import granary.api.model.UnitSpec;
import granary.api.event.JobSubmitted;
import granary.api.event.PolicyReconfigured;
import granary.api.event.Revoked;
import granary.policy.quota.api.QuotaState;
import granary.api.spi.ReasonCode;

import org.junit.jupiter.api.Test;

class QuotaPolicyTest {

    static final String ARTICLE = """
            { "default": { "group1": {"GroupId":1,"MaxQuota":5000,"MinQuota":3000},
                           "group2": {"GroupId":2,"MaxQuota":5000,"MinQuota":2000} },
              "0-9":     { "group1": {"GroupId":1,"MaxQuota":15000,"MinQuota":10000},
                           "group3": {"GroupId":3,"MaxQuota":3000,"MinQuota":3000} } }
            """;

    private static Map<String, GroupQuotaRow> rows(QuotaBench b) {
        QuotaReport r = b.quota.quota(b.engine.view());
        return r.groups().stream().collect(Collectors.toMap(GroupQuotaRow::group, x -> x));
    }

    /** The article's table on 15 nodes of 1000 workers: WorkerSpans default:5000,0-9:15000. */
    private static QuotaBench article(boolean preemption) {
        QuotaBench b = new QuotaBench(QuotaOptions.DEFAULTS.withPreemption(preemption).withEmergent(QuotaOptions.EmergentMode.OFF)
                        .withLookahead(false, 60),
                QuotaBench.table(ARTICLE, "default:5000,0-9:15000"));
        return b.nodes(15, 1000);
    }

    @Test
    void theReportListsEveryFundedGroupEvenWithoutJobs() {
        QuotaBench b = article(false);
        b.at(12);
        Map<String, GroupQuotaRow> r = rows(b);
        assertEquals(QuotaState.NORMAL, r.get("group1").state());
        assertEquals(QuotaState.NORMAL, r.get("group2").state());
        assertEquals(2, r.size());                                   // group3 is not funded at noon and has no jobs
        assertEquals("default", b.quota.quota(b.engine.view()).slice());
        assertEquals(5000L, b.quota.quota(b.engine.view()).workers());
    }

    @Test
    void group3IsScheduledOnlyFromZeroToNine() {
        QuotaBench b = article(false);
        b.at(3);
        b.submit("g3", "group3", 2000);
        assertEquals(2000, b.granted("g3"));
        b.at(10);
        b.submit("g3-late", "group3", 10);
        assertEquals(0, b.granted("g3-late"));
        assertEquals(ReasonCode.UNFUNDED, b.unit("g3-late").waitReason().code());
        assertEquals(2000, b.granted("g3"));                     // not killed: it drains
        assertEquals(QuotaState.UNFUNDED, rows(b).get("group3").state());
        b.at(24 + 1);                                              // 01:00 next day: funded again
        assertEquals(10, b.granted("g3-late"), "group3 is funded again at 01:00");
    }

    @Test
    void atNineGroup1sLimitsDropAndItDrains() {
        QuotaBench b = article(false);
        b.at(8);
        b.submit("big", "group1", 12000);
        assertEquals(12000, b.granted("big"));                   // 0-9: max 15000
        assertEquals(QuotaState.OVERUSED, rows(b).get("group1").state());
        b.at(9);
        assertEquals("default", b.quota.quota(b.engine.view()).slice());
        assertEquals(QuotaState.DRAWBACK, rows(b).get("group1").state());   // 12000 >= max 5000
        assertEquals(12000, b.granted("big"));                   // nothing is killed
        b.submit("more", "group1", 10);
        assertEquals(0, b.granted("more"));
        assertEquals(ReasonCode.DRAWBACK, b.unit("more").waitReason().code());
        b.release("big", 7500);                                   // it drains to 4500: below max again
        assertEquals(QuotaState.OVERUSED, rows(b).get("group1").state());
        assertEquals(10, b.granted("more"));
    }

    @Test
    void theWorkerSpansOfTheSliceCapEveryGroupTogether() {
        QuotaBench b = article(false);
        b.at(12);
        b.submit("a", "group1", 5000);
        assertEquals(5000, b.granted("a"));
        b.submit("b", "group2", 10);
        assertEquals(0, b.granted("b"));                          // 5000 workers, all taken
        assertEquals(ReasonCode.QUOTA, b.unit("b").waitReason().code());
        assertTrue(b.unit("b").waitReason().message().contains("5000 workers of the slice"), b.unit("b").waitReason().message());
    }

    @Test
    void aGroupBelowItsMinPreemptsOfflineGrantsOfAnOverusedGroupButNeverOnlineOnes() {
        QuotaBench b = new QuotaBench(QuotaOptions.DEFAULTS.withEmergent(QuotaOptions.EmergentMode.OFF), QuotaBench.table("""
                {"default": {"a": {"GroupId": 1, "MaxQuota": 100, "MinQuota": 20},
                             "b": {"GroupId": 2, "MaxQuota": 100, "MinQuota": 40}}}
                """, null)).nodes(10, 10);
        b.at(1);
        b.submit("svc", "a", 30, UnitKind.ONLINE);
        b.at(2);
        b.submit("old", "a", 30);
        b.at(3);
        b.submit("new", "a", 40);
        assertEquals(100, b.usedSlots("a"));                             // a borrowed the whole cluster
        b.at(4);
        var r = b.submit("claim", "b", 30);
        assertEquals(30, b.granted("claim"));                       // b (0 < min 40) took capacity back
        List<Revoked> revoked = r.outputs().stream().filter(o -> o instanceof Revoked).map(o -> (Revoked) o).toList();
        assertEquals(30, revoked.stream().mapToInt(Revoked::slots).sum());
        assertTrue(revoked.stream().allMatch(x -> x.unit().job().equals("new")),
                "the youngest offline grants first: they have run the least (issue 24): " + revoked);
        assertTrue(revoked.stream().allMatch(x -> x.kind() == UnitKind.OFFLINE));
        assertEquals(30, b.granted("svc"));                          // online: never taken
        assertEquals(30, b.unit("new").remaining());                 // the victims wait again, nothing lost
        assertEquals(30, b.granted("old"));
        b.submit("more", "b", 15);
        assertEquals(0, b.granted("more"));                           // one preemption attempt per second
        b.at(4.01);
        // b is still below its min (30 < 40): it preempts only up to its min (docs/multi-tenancy.md,
        // "Preemption with restraint"), never below a's min
        assertEquals(10, b.granted("more"));
        assertEquals(60, b.usedSlots("a"));
        b.at(4.02);
        b.submit("beyond", "b", 5);
        assertEquals(0, b.granted("beyond"));                         // b is above its min now: no more preemption
        assertEquals(30, b.granted("svc"));
    }

    /** A gang victim is taken whole or not at all: preemption never leaves a gang half-held. */
    @Test
    void preemptionTakesAGangWholeOrLeavesIt() {
        QuotaBench b = new QuotaBench(QuotaOptions.DEFAULTS.withEmergent(QuotaOptions.EmergentMode.OFF), QuotaBench.table("""
                {"default": {"a": {"GroupId": 1, "MaxQuota": 100, "MinQuota": 0},
                             "b": {"GroupId": 2, "MaxQuota": 100, "MinQuota": 40}}}
                """, null)).nodes(10, 10);
        b.engine.handle(new granary.api.event.PolicyInstalled(new GangPlan8(), "test"));
        b.engine.handle(new granary.api.event.PolicyActivated("gang"));
        b.handle(new JobSubmitted(new JobSpec("g", "a", null, 0, true, List.of(
                UnitSpec.builder("x").slot(100, 100).desired(8).build(), UnitSpec.builder("y").slot(100, 100).desired(8).build()))));
        assertEquals(16, b.engine.view().job("g").units().stream().mapToInt(u -> u.granted()).sum());
        b.submit("rest", "a", 84);
        assertEquals(100, b.usedSlots("a"));
        b.at(1);
        b.submit("claim", "b", 5);                                 // fewer than the gang holds
        var g = b.engine.view().job("g");
        int held = g.units().stream().mapToInt(u -> u.granted()).sum();
        assertTrue(held == 16 || held == 0, "gang g is half-held: " + held + " of 16");
        assertEquals(5, b.granted("claim"));
    }

    /** A first-fit gang placement, enough for the test above (the real one is granary.policy.gang). */
    static final class GangPlan8 implements granary.api.spi.GangPlacement {
        @Override
        public String name() {
            return "gang";
        }

        @Override
        public granary.api.spi.GangPlan plan(List<? extends granary.api.spi.UnitView> gang, granary.api.spi.PlacementContext ctx) {
            Map<String, granary.api.model.Resources> used = new java.util.HashMap<>();
            Map<granary.api.model.UnitId, Map<String, Integer>> plan = new java.util.HashMap<>();
            for (granary.api.spi.UnitView u : gang) {
                int left = u.remaining();
                Map<String, Integer> slots = new java.util.HashMap<>();
                for (granary.api.spi.NodeView n : ctx.candidates(u)) {
                    int k = Math.min(left, Math.min(ctx.room(u, n),
                            u.slot().copiesIn(n.free().minus(used.getOrDefault(n.name(), granary.api.model.Resources.ZERO)))));
                    if (k > 0) {
                        slots.put(n.name(), k);
                        used.merge(n.name(), u.slot().times(k), granary.api.model.Resources::plus);
                        left -= k;
                    }
                }
                if (left > 0) {
                    return null;
                }
                plan.put(u.id(), slots);
            }
            return new granary.api.spi.GangPlan(plan);
        }
    }

    @Test
    void withoutPreemptionAGroupBelowMinWaits() {
        QuotaBench b = new QuotaBench(QuotaOptions.DEFAULTS.withPreemption(false).withEmergent(QuotaOptions.EmergentMode.OFF),
                QuotaBench.table("""
                {"default": {"a": {"GroupId": 1, "MaxQuota": 100, "MinQuota": 20},
                             "b": {"GroupId": 2, "MaxQuota": 100, "MinQuota": 40}}}
                """, null)).nodes(10, 10);
        b.submit("old", "a", 100);
        var r = b.submit("claim", "b", 30);
        assertEquals(0, b.granted("claim"));
        assertTrue(r.outputs().isEmpty());
    }

    @Test
    void inHoldModeTheEmergentJobIsTriedFirstAndHoldsTheOthersBack() {
        QuotaBench b = new QuotaBench(QuotaOptions.DEFAULTS.withPreemption(false).withEmergent(QuotaOptions.EmergentMode.HOLD),
                QuotaBench.table("""
                {"default": {"a": {"GroupId": 1, "MaxQuota": 100, "MinQuota": 50}}}
                """, null)).nodes(2, 10);
        b.submit("fill", "a", 20);
        b.handle(new JobSubmitted(new JobSpec("big", "a", null, 0, false,
                List.of(UnitSpec.builder("u").slot(400, 400).desired(1).build()))));   // needs 4 free on one node
        b.submit("small", "a", 5);
        assertEquals("big", b.quota.quota(b.engine.view()).emergent());
        b.release("fill", 2);                                        // 2 free on one node: big does not fit yet
        assertEquals(0, b.granted("small"));                         // held back: the round fails
        assertEquals(ReasonCode.BEHIND, b.unit("small").waitReason().code());
        b.release("fill", 2);
        assertEquals(1, b.granted("big"));
        assertEquals("small", b.quota.quota(b.engine.view()).emergent());   // now the top job, and it cannot fit
        b.release("fill", 5);
        assertEquals(5, b.granted("small"));
        assertNull(b.quota.quota(b.engine.view()).emergent());
    }

    @Test
    void groupHeadsAreOrderedByProductionLevelThenBelowMinThenPriority() {
        QuotaBench b = new QuotaBench(QuotaOptions.DEFAULTS.withPreemption(false).withEmergent(QuotaOptions.EmergentMode.OFF),
                QuotaBench.table("""
                {"default": {"a": {"GroupId": 1, "MaxQuota": 100, "MinQuota": 0},
                             "b": {"GroupId": 2, "MaxQuota": 100, "MinQuota": 50},
                             "c": {"GroupId": 3, "MaxQuota": 100, "MinQuota": 0}}}
                """, null)).nodes(1, 10);
        b.submit("fill", "a", 10);
        b.handle(new JobSubmitted(new JobSpec("hi", "a", null, 0, false,
                List.of(UnitSpec.builder("u").slot(100, 100).desired(1).priority(9).build()))));
        b.submit("below-min", "b", 1);
        b.handle(new JobSubmitted(new JobSpec("baseline", "c", null, 2, false,
                List.of(UnitSpec.builder("u").slot(100, 100).desired(1).build()))));
        b.release("fill", 1);
        assertEquals(1, b.granted("baseline"));                       // a production level wins
        b.release("fill", 1);
        assertEquals(1, b.granted("below-min"));                      // then a group below its min
        b.release("fill", 1);
        assertEquals(1, b.granted("hi"));
    }

    @Test
    void billingIntegratesUsagePerDayAndSlice() {
        QuotaBench b = article(false);
        b.at(8);
        b.submit("j", "group1", 100);                                 // 100 slots from 08:00
        b.at(10);                                                     // 1 h in slice 0-9, 1 h in default
        b.release("j", 60);                                           // 40 slots from 10:00
        b.at(10.5);
        List<BillingRow> rows = b.quota.billing("2026-11-02", b.engine.view());
        Map<String, Double> bySlice = rows.stream().filter(r -> r.group().equals("group1"))
                .collect(Collectors.toMap(BillingRow::slice, BillingRow::slotSeconds));
        assertEquals(100 * 3600.0, bySlice.get("0-9"), 1e-6);
        assertEquals(100 * 3600.0 + 40 * 1800.0, bySlice.get("default"), 1e-6);
        double cpu = rows.stream().filter(r -> r.slice().equals("0-9")).mapToDouble(BillingRow::cpuCoreSeconds).sum();
        assertEquals(100 * 3600.0, cpu, 1e-6);                        // one core per slot
        assertEquals(List.of(), b.quota.billing("2026-11-03", b.engine.view()));
    }

    @Test
    void aNewTableAppliesBetweenDecisionsAndARejectedOneLeavesTheOldInForce() {
        QuotaBench b = article(false);
        b.at(12);
        b.submit("j", "group2", 6000);
        assertEquals(5000, b.granted("j"));
        InvalidRequestException bad = assertThrows(InvalidRequestException.class,
                () -> QuotaBench.table(ARTICLE, "default:20000,0-9:15000"));
        assertTrue(bad.getMessage().contains("slice default: MaxQuota: WorkerSpans 20000 > sum of MaxQuota 10000"),
                bad.getMessage());
        assertThrows(InvalidRequestException.class, () -> b.handle(new PolicyReconfigured("quota", "not a table")));
        assertEquals(5000L, rows(b).get("group2").max().workers());    // still the old table
        var r = b.handle(new PolicyReconfigured("quota", QuotaBench.table("""
                {"default": {"group2": {"GroupId": 2, "MaxQuota": 8000, "MinQuota": 0}}}
                """, null)));
        assertTrue(r.notes().get(0).startsWith("quota table: 1 slices, 1 groups"), r.notes().toString());
        assertEquals(6000, b.granted("j"));                            // raised max applies at once
    }

    @Test
    void submissionsThatCanNeverRunAreRefused() {
        QuotaBench b = article(false);
        InvalidRequestException unknown = assertThrows(InvalidRequestException.class, () -> b.submit("x", "group9", 1));
        assertTrue(unknown.getMessage().contains("group group9: policy quota: has no quota in any slice of the quota table; "
                + "funded groups: group1, group2, group3"), unknown.getMessage());
        InvalidRequestException big = assertThrows(InvalidRequestException.class, () -> b.handle(new JobSubmitted(
                new JobSpec("g", "group3", null, 0, true, List.of(UnitSpec.builder("u").slot(100, 100).desired(3001).build())))));
        assertTrue(big.getMessage().contains("asks all-or-nothing for 3001, more than the MaxQuota of group group3"),
                big.getMessage());
    }
}

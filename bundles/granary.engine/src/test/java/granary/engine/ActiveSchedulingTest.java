package granary.engine;

import static granary.engine.Harness.unit;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Map;

import granary.api.model.Locality;
import granary.api.model.NodeSpec;
import granary.api.model.Resources;
import granary.api.model.UnitSpec;
import granary.api.event.NodeAdded;
import granary.api.event.NodeBlacklisted;
import granary.api.spi.Admission;
import granary.api.spi.EngineView;
import granary.api.spi.ReasonCode;
import granary.api.spi.UnitView;
import granary.api.spi.Verdict;

import org.junit.jupiter.api.Test;

/**
 * Active scheduling (docs/scheduling.md, "Active scheduling"): locality order, round-robin, limits.
 */
class ActiveSchedulingTest {
    /** A policy's own reason code, as a quota policy declares it. */
    static final ReasonCode QUOTA = ReasonCode.of("QUOTA", "limit reached",
            "It gets more when work in {subject} releases slots, or when that limit is raised.");


    @Test
    void articleExampleOneSlotOnEachPreferredMachine() {
        Harness h = Harness.withFifo().nodes("m", "r1", 8, 400, 4096);
        UnitSpec u = UnitSpec.builder("u").slot(100, 512).desired(5)
                .prefer(Locality.machine("m1", 1)).prefer(Locality.machine("m2", 1)).prefer(Locality.machine("m3", 1))
                .prefer(Locality.machine("m4", 1)).prefer(Locality.machine("m5", 1)).prefer(Locality.cluster(5)).build();
        h.submit("j", u);
        assertEquals(Map.of("m1", 1, "m2", 1, "m3", 1, "m4", 1, "m5", 1), h.placement("j/u"));
    }

    @Test
    void fullPreferredMachineFallsBackToCluster() {
        Harness h = Harness.withFifo().nodes("m", "r1", 4, 400, 4096);
        h.submit("big", unit("u", 400, 512, 1));               // fills m0
        UnitSpec u = UnitSpec.builder("u").slot(100, 512).desired(2)
                .prefer(Locality.cluster(2)).prefer(Locality.machine("m0", 1)).prefer(Locality.machine("m2", 1)).build();
        h.submit("j", u);
        // MACHINE preferences come first whatever the listed order: m0 is full, m2 takes one; then the cluster.
        Map<String, Integer> p = h.placement("j/u");
        assertEquals(1, p.get("m2"));
        assertEquals(2, p.values().stream().mapToInt(Integer::intValue).sum());
        assertEquals(null, p.get("m0"));
    }

    @Test
    void roomPreferenceStaysInTheRoomAndRoundRobins() {
        Harness h = Harness.withFifo().nodes("a", "r1", 3, 400, 4096).nodes("b", "r2", 3, 400, 4096);
        h.submit("j", UnitSpec.builder("u").slot(100, 512).desired(6).prefer(Locality.room("r2", 6)).build());
        assertEquals(Map.of("b0", 2, "b1", 2, "b2", 2), h.placement("j/u"));
    }

    @Test
    void roundRobinContinuesWhereTheLastPlacementStopped() {
        Harness h = Harness.withFifo().nodes("n", "r1", 4, 400, 4096);
        h.submit("j1", unit("u", 100, 512, 2));
        h.submit("j2", unit("u", 100, 512, 2));
        assertEquals(Map.of("n0", 1, "n1", 1), h.placement("j1/u"));
        assertEquals(Map.of("n2", 1, "n3", 1), h.placement("j2/u"));
    }

    @Test
    void maxSlotsPerNodeLimitsAndTheRestWaits() {
        Harness h = Harness.withFifo().nodes("n", "r1", 3, 800, 8192);
        h.submit("j", UnitSpec.builder("u").slot(100, 512).desired(8).maxPerNode(2).build());
        assertEquals(Map.of("n0", 2, "n1", 2, "n2", 2), h.placement("j/u"));
        assertEquals(2, h.engine.view().unit(granary.api.model.UnitId.parse("j/u")).remaining());
    }

    @Test
    void blacklistsAreRespected() {
        Harness h = Harness.withFifo().nodes("n", "r1", 3, 400, 4096);
        h.handle(new NodeBlacklisted("n0", true));
        h.submit("j", UnitSpec.builder("u").slot(100, 512).desired(4).blacklist("n1").build());
        assertEquals(Map.of("n2", 4), h.placement("j/u"));
        h.submit("k", unit("u", 100, 512, 1));
        assertEquals(Map.of("n1", 1), h.placement("k/u"));
    }

    @Test
    void labelSelectorFiltersNodes() {
        Harness h = Harness.withFifo();
        h.handle(new NodeAdded(new NodeSpec("hdd", "r1", Resources.of(400, 4096), Map.of("disk", "hdd"))));
        h.handle(new NodeAdded(new NodeSpec("ssd", "r1", Resources.of(400, 4096), Map.of("disk", "ssd"))));
        h.submit("j", UnitSpec.builder("u").slot(100, 512).desired(2).select("disk", "ssd").build());
        assertEquals(Map.of("ssd", 2), h.placement("j/u"));
    }

    @Test
    void extendedResourcesAreMatched() {
        Harness h = Harness.withFifo().nodes("cpu", "r1", 2, 800, 8192);
        h.handle(new NodeAdded(new NodeSpec("gpu0", "r1", Resources.of(800, 8192, Map.of("gpu", 2L)))));
        h.submit("j", UnitSpec.builder("u").slot(Resources.of(100, 512, Map.of("gpu", 1L))).desired(3).build());
        assertEquals(Map.of("gpu0", 2), h.placement("j/u"));
        assertEquals(ReasonCode.NO_FIT, h.engine.view().unit(granary.api.model.UnitId.parse("j/u")).waitReason().code());
    }

    /** A quota-like admission: at most {@code limit} slots per group. */
    static class GroupCapBase implements Admission {
        int limit;

        GroupCapBase(int limit) {
            this.limit = limit;
        }

        @Override
        public String name() {
            return "cap";
        }

        @Override
        public Verdict admit(UnitView unit, int wanted, EngineView view) {
            long used = view.group(unit.group()).usedSlots();
            granary.api.spi.Reason why = new granary.api.spi.Reason(QUOTA, "group " + unit.group(),
                    "max " + limit + " slots", limit, used);
            return used < limit ? Verdict.allow((int) Math.min(wanted, limit - used), why) : Verdict.waitFor(why);
        }
    }

    @Test
    void admissionCapsTheGreedyPlacementAndSaysWhy() {
        Harness h = new Harness(java.util.List.of("fifo", "cap"));
        h.install(new Harness.ArrivalOrder("fifo"));
        h.install(new GroupCapBase(3));
        h.nodes("n", "r1", 4, 400, 4096);
        h.submit("j", unit("u", 100, 512, 10));
        assertEquals(3, h.granted("j/u"));
        assertEquals(QUOTA, h.engine.view().unit(granary.api.model.UnitId.parse("j/u")).waitReason().code());
        h.release("j/u", "n0", 1);
        assertEquals(3, h.granted("j/u"));   // the freed slot is given back within the cap
    }
}

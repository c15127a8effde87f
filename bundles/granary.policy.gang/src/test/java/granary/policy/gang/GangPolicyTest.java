package granary.policy.gang;

import static granary.testkit.Jobs.aon;
import static granary.testkit.Jobs.gang;
import static granary.testkit.Jobs.unit;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;

import granary.api.model.Locality;
import granary.api.event.Receipt;
import granary.api.event.Granted;
import granary.api.event.NodeBlacklisted;
import granary.api.spi.ReasonCode;

import org.junit.jupiter.api.Test;

/** All-or-nothing placement on the real engine: whole or nothing, locality, gang jobs of several units. */
class GangPolicyTest {

    private static int grantedIn(Receipt r, String job) {
        return r.outputs().stream().filter(o -> o instanceof Granted g && g.unit().job().equals(job))
                .mapToInt(o -> ((Granted) o).slots()).sum();
    }

    @Test
    void aGangIsGrantedWholeInOneStepOrWaitsHoldingNothing() {
        Bench b = new Bench().node("n0", "r1", 400, 4000).node("n1", "r1", 400, 4000);
        b.submit("small", unit("u", 100, 100, 3).build());
        Receipt r = b.submit("g", aon("u", 100, 100, 6));
        assertEquals(0, grantedIn(r, "g"), "5 slots free, 6 wanted: no partial hold");
        assertEquals(ReasonCode.NO_PLACEMENT, b.unit("g/u").waitReason().code());
        Receipt release = b.release("small/u", b.placement("small/u").keySet().iterator().next(), 1);
        assertEquals(6, grantedIn(release, "g"), "all six in the one cycle after the release");
        assertEquals(6, b.granted("g/u"));
    }

    /**
     * Tight: the cluster has 800 cpu free in all but in pieces of 200, 200 and 400; a gang of three
     * 250-cpu slots needs three nodes with 250 free. Nothing is granted until the third node frees.
     */
    @Test
    void aTightPlanIsNeverGrantedInPart() {
        Bench b = new Bench().node("n0", "r1", 400, 4000).node("n1", "r1", 400, 4000).node("n2", "r1", 400, 4000);
        b.submit("fill0", unit("u", 200, 100, 1).prefer(Locality.machine("n0", 1)).build());
        b.submit("fill1", unit("u", 200, 100, 1).prefer(Locality.machine("n1", 1)).build());
        Receipt r = b.submit("g", aon("u", 250, 100, 3));
        assertEquals(0, grantedIn(r, "g"));
        assertEquals(0, grantedIn(b.release("fill0/u", "n0", 1), "g"), "two of three would fit: still nothing");
        assertEquals(0, b.granted("g/u"));
        assertEquals(3, grantedIn(b.release("fill1/u", "n1", 1), "g"));
        assertEquals(Map.of("n0", 1, "n1", 1, "n2", 1), b.placement("g/u"));
    }

    @Test
    void aGangJobOfSeveralUnitsIsGrantedWholeOrNotAtAll() {
        Bench b = new Bench().node("n0", "r1", 400, 4000).node("n1", "r1", 400, 4000);
        b.submit("fill", unit("u", 100, 100, 2).prefer(Locality.machine("n0", 2)).build());
        Receipt r = b.submit(gang("g", unit("ps", 200, 500, 2).build(), unit("worker", 100, 100, 3).build()));
        assertEquals(0, grantedIn(r, "g"), "700 cpu wanted, 600 free: neither unit gets anything");
        assertEquals(0, b.granted("g/ps") + b.granted("g/worker"));
        Receipt release = b.release("fill/u", "n0", 1);
        assertEquals(5, grantedIn(release, "g"), "both units, all five slots, in one cycle");
        assertEquals(2, b.granted("g/ps"));
        assertEquals(3, b.granted("g/worker"));
    }

    /** MACHINE, then ROOM, then CLUSTER, each up to its count; the rest on any node the unit may use. */
    @Test
    void localityPreferencesAreWalkedMachineRoomCluster() {
        Bench b = new Bench();
        for (String room : List.of("r1", "r2")) {
            for (int i = 0; i < 2; i++) {
                b.node(room + "-n" + i, room, 400, 4000);
            }
        }
        b.submit("g", unit("u", 100, 100, 7).allOrNothing(true).prefer(Locality.cluster(7))
                .prefer(Locality.room("r2", 4)).prefer(Locality.machine("r1-n1", 2)).build());
        // r1-n1 takes its 2; the room step fills r2-n0 with 4 (best fit, name breaks the tie) and leaves
        // r2-n1 whole; the last slot goes where it fits most tightly: r1-n1, which has room for 2 more.
        assertEquals(Map.of("r1-n1", 3, "r2-n0", 4), b.placement("g/u"));
    }

    @Test
    void aGangLimitedToARoomWaitsForThatRoomEvenWithTheRestOfTheClusterFree() {
        Bench b = new Bench().node("a0", "r1", 400, 4000).node("b0", "r2", 400, 4000).node("b1", "r2", 400, 4000);
        b.submit("fill", unit("u", 300, 100, 1).prefer(Locality.machine("a0", 1)).build());
        b.submit("g", unit("u", 100, 100, 2).allOrNothing(true).prefer(Locality.room("r1", 2)).build());
        assertEquals(0, b.granted("g/u"), "only r1 is allowed and it has one slot free");
        b.release("fill/u", "a0", 1);
        assertEquals(Map.of("a0", 2), b.placement("g/u"));
    }

    @Test
    void blacklistedNodesAreLeftOut() {
        Bench b = new Bench().node("n0", "r1", 400, 4000).node("n1", "r1", 400, 4000);
        b.handle(new NodeBlacklisted("n0", true));
        b.submit("g", aon("u", 100, 100, 5));
        assertEquals(0, b.granted("g/u"), "n1 alone holds 4");
        b.handle(new NodeBlacklisted("n0", false));
        assertEquals(5, b.granted("g/u"));
    }

    @Test
    void thePerNodeMaximumSpreadsTheGang() {
        Bench b = new Bench().node("n0", "r1", 800, 8000).node("n1", "r1", 800, 8000).node("n2", "r1", 800, 8000);
        b.submit("g", unit("u", 100, 100, 6).allOrNothing(true).maxPerNode(2).build());
        assertEquals(Map.of("n0", 2, "n1", 2, "n2", 2), b.placement("g/u"));
    }

    @Test
    void withoutTheGangPolicyGangsWaitAndResumeWhenItReturns() {
        GangPolicy gang = new GangPolicy();
        Bench b = new Bench(gang).node("n0", "r1", 400, 4000);
        b.handle(new granary.api.event.PolicyUninstalled(gang));
        b.submit("g", aon("u", 100, 100, 2));
        assertEquals(0, b.granted("g/u"));
        assertEquals(ReasonCode.NO_POLICY, b.unit("g/u").waitReason().code());
        assertTrue(b.engine.view().status().policies().get("gang-placement").equals("waiting"));
        b.handle(new granary.api.event.PolicyInstalled(new GangPolicy(), "test"));
        assertEquals(2, b.granted("g/u"));
    }
}

package granary.policy.gang;

import static granary.testkit.Jobs.aon;
import static granary.testkit.Jobs.gang;
import static granary.testkit.Jobs.unit;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import granary.api.model.InvalidRequestException;
import granary.api.model.JobSpec;
import granary.api.model.Locality;
import granary.api.model.Problem;
import granary.api.model.UnitId;
import granary.api.event.UnitDesireChanged;

import org.junit.jupiter.api.Test;

/** A gang that can never fit is refused at submit with the request and the capacity, and nothing changes. */
class NeverFitsTest {

    private static Bench cluster() {
        return new Bench().node("n0", "r1", 400, 4000).node("n1", "r1", 400, 4000).node("n2", "r2", 400, 4000);
    }

    @Test
    void aGangLargerThanTheWholeClusterIsRefusedNamingRequestAndCapacity() {
        Bench b = cluster();
        String before = b.engine.view().status().toString();
        InvalidRequestException e = assertThrows(InvalidRequestException.class,
                () -> b.submit("huge", aon("u", 100, 100, 13)));
        assertEquals("job huge: policy gang: asks all-or-nothing for cpu=1300,mem=1300 at once (13 x u), more than the"
                + " whole cluster's capacity cpu=1200,mem=12000 (3 nodes): cpu 1300 > 1200", e.getMessage());
        Problem p = e.problems().get(0);
        assertEquals(1200L, p.limit());
        assertEquals(1300L, p.value());
        assertEquals(before, b.engine.view().status().toString(), "a refused submission changes nothing");
        assertEquals(null, b.engine.view().job("huge"));
    }

    @Test
    void aGangJobIsJudgedByAllItsUnitsTogether() {
        Bench b = cluster();
        InvalidRequestException e = assertThrows(InvalidRequestException.class, () -> b.submit(
                gang("g", unit("ps", 100, 3000, 2).build(), unit("w", 100, 3000, 3).build())));
        assertTrue(e.getMessage().contains("asks all-or-nothing for cpu=500,mem=15000 at once (2 x ps, 3 x w)"),
                e.getMessage());
        assertTrue(e.getMessage().endsWith("mem 15000 > 12000"), e.getMessage());
    }

    @Test
    void moreSlotsThanTheNodesAUnitMayUseCanHoldIsRefused() {
        Bench b = cluster();
        // 3 slots of 250: the cluster has 1200 cpu, but each node holds only one such slot... and r1 has two nodes
        InvalidRequestException room = assertThrows(InvalidRequestException.class, () -> b.submit("r",
                unit("u", 250, 100, 3).allOrNothing(true).prefer(Locality.room("r1", 3)).build()));
        assertEquals("unit r/u: policy gang: asks all-or-nothing for 3 slots of cpu=250,mem=100, but the nodes it may"
                + " use can hold at most 2 of them at once", room.getMessage());
        assertEquals(2L, room.problems().get(0).limit());
        InvalidRequestException perNode = assertThrows(InvalidRequestException.class, () -> b.submit("m",
                unit("u", 100, 100, 7).allOrNothing(true).maxPerNode(2).build()));
        assertTrue(perNode.getMessage().contains("can hold at most 6 of them"), perNode.getMessage());
    }

    @Test
    void raisingTheDesireOfAGangBeyondTheClusterIsRefused() {
        Bench b = cluster();
        b.submit("g", aon("u", 100, 100, 2));
        assertThrows(InvalidRequestException.class, () -> b.handle(new UnitDesireChanged(UnitId.parse("g/u"), 20)));
        assertEquals(2, b.unit("g/u").desired());
    }

    @Test
    void whatIsNotAllOrNothingOrCouldFitPasses() {
        Bench b = cluster();
        b.submit("many", unit("u", 100, 100, 100).build());              // not a gang: waits for its turn
        b.submit(JobSpec.of("fits", null, aon("u", 100, 100, 12)));       // exactly the cluster: waits
        assertEquals(0, b.granted("fits/u"));
    }

    @Test
    void refusalCanBeSwitchedOffForAClusterThatGrows() {
        Bench b = new Bench(new GangPolicy(Packing.BEST_FIT, false)).node("n0", "r1", 400, 4000);
        b.submit("g", aon("u", 100, 100, 8));
        assertEquals(0, b.granted("g/u"));
        b.node("n1", "r1", 400, 4000);
        assertEquals(8, b.granted("g/u"), "placed when the cluster grew");
    }
}

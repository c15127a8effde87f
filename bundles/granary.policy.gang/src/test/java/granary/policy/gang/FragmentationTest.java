package granary.policy.gang;

import static granary.testkit.Jobs.aon;
import static granary.testkit.Jobs.unit;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;

import granary.api.model.Locality;
import granary.testkit.Jobs;

import org.junit.jupiter.api.Test;

/**
 * Best fit keeps fragmentation low (docs/scheduling.md, "Gangs"): the same cluster and the same gangs, placed by best
 * fit and by first fit; best fit leaves a larger contiguous free block, and the next big gang fits
 * only there.
 */
class FragmentationTest {

    /**
     * A big empty node joined first, then two nodes half used. A gang of four 100-cpu slots: first
     * fit puts it on the big node (the first candidate); best fit fills the two half-used nodes and
     * the big node stays whole.
     */
    private static Bench cluster(Packing packing) {
        Bench b = new Bench(new GangPolicy(packing, true)).node("big", "r1", 800, 8000)
                .node("f1", "r1", 400, 4000).node("f2", "r1", 400, 4000);
        b.submit("fill1", unit("u", 200, 100, 1).prefer(Locality.machine("f1", 1)).build());
        b.submit("fill2", unit("u", 200, 100, 1).prefer(Locality.machine("f2", 1)).build());
        b.submit("g", aon("u", 100, 100, 4));
        assertEquals(4, b.granted("g/u"));
        return b;
    }

    @Test
    void bestFitLeavesALargerContiguousFreeBlockThanFirstFit() {
        Bench best = cluster(Packing.BEST_FIT);
        Bench first = cluster(Packing.FIRST_FIT);
        assertEquals(Map.of("f1", 2, "f2", 2), best.placement("g/u"));
        assertEquals(Map.of("big", 4), first.placement("g/u"));
        assertEquals(800, best.largestFreeCpu(), "best fit: the big node is still whole");
        assertEquals(400, first.largestFreeCpu(), "first fit split it");
        assertTrue(best.largestFreeCpu() > first.largestFreeCpu());

        // the next gang needs one 800-cpu slot: only the block best fit kept can take it
        best.submit("next", aon("u", 800, 100, 1));
        first.submit("next", aon("u", 800, 100, 1));
        assertEquals(1, best.granted("next/u"));
        assertEquals(0, first.granted("next/u"));
    }

    /** Slots go to the node they fill most tightly: the one with room for the fewest, even across sizes. */
    @Test
    void slotsFillTheTightestNodesFirst() {
        Bench b = new Bench().node("a", "r1", 400, 4000).node("b", "r1", 400, 4000).node("c", "r1", 400, 4000);
        b.submit("fa", unit("u", 300, 100, 1).prefer(Locality.machine("a", 1)).build());   // a: room for 1
        b.submit("fb", unit("u", 100, 100, 1).prefer(Locality.machine("b", 1)).build());   // b: room for 3
        b.submit("g", aon("u", 100, 100, 4));
        assertEquals(Map.of("a", 1, "b", 3), b.placement("g/u"), "c stays empty");
        assertEquals(400, b.free("c", "cpu"));
    }

    /** A multi-unit gang: the big slots are planned first, the small ones fill the gaps they leave. */
    @Test
    void bigSlotsFirstThenSmallOnesFillTheGaps() {
        Bench b = new Bench().node("n0", "r1", 400, 4000).node("n1", "r1", 400, 4000).node("n2", "r1", 400, 4000);
        b.submit(Jobs.gang("g", unit("small", 100, 100, 2).build(), unit("big", 300, 100, 2).build()));
        Map<String, Integer> big = b.placement("g/big");
        Map<String, Integer> small = b.placement("g/small");
        assertEquals(2, big.size(), "one 300 per node: " + big);
        assertEquals(big.keySet(), small.keySet(), "the small slots fill the 100 left next to each big one: " + small);
        assertEquals(1, b.engine.view().cluster().nodes().stream().filter(n -> n.free().cpu() == 400).count(),
                "one node stays whole");
    }
}

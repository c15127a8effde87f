package granary.engine;

import static granary.engine.Harness.unit;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;

import granary.api.model.JobSpec;
import granary.api.model.Locality;
import granary.api.model.NodeSpec;
import granary.api.model.Resources;
import granary.api.model.UnitKind;
import granary.api.model.UnitSpec;
import granary.api.event.JobSubmitted;
import granary.api.event.NodeAdded;
import granary.api.event.NodeBlacklisted;
import granary.api.event.NodeCapacityChanged;
import granary.api.event.NodeRemoved;
import granary.api.event.Revoked;

import org.junit.jupiter.api.Test;

/** Nodes join, leave, change capacity and go on and off the blacklist. */
class NodeLifecycleTest {

    @Test
    void removingANodeRevokesOfflineWorkWhichIsPlacedElsewhere() {
        Harness h = Harness.withFifo().nodes("n", "r1", 2, 400, 4096);
        h.submit("j", unit("u", 100, 512, 4));
        assertEquals(Map.of("n0", 2, "n1", 2), h.placement("j/u"));
        var r = h.handle(new NodeRemoved("n0", false));
        assertEquals(List.of(new Revoked(granary.api.model.UnitId.parse("j/u"), "n0", 2, UnitKind.OFFLINE, "node removed",
                ((Revoked) r.outputs().get(0)).seq())), r.outputs().subList(0, 1));
        assertEquals(Map.of("n1", 4), h.placement("j/u"));
        assertEquals(Map.of("j/u@n1", 4), h.netFromLog());
    }

    @Test
    void onlineWorkIsOnlyRemovedByForce() {
        Harness h = Harness.withFifo().nodes("n", "r1", 1, 400, 4096);
        h.handle(new JobSubmitted(JobSpec.of("svc", null,
                UnitSpec.builder("web").slot(100, 512).desired(2).kind(UnitKind.ONLINE).build())));
        var r = h.handle(new NodeRemoved("n0", true));
        Revoked rv = (Revoked) r.outputs().get(0);
        assertEquals("node removed (forced)", rv.reason());
        assertEquals(2, h.engine.view().unit(granary.api.model.UnitId.parse("svc/web")).remaining());
    }

    @Test
    void shrinkingCapacityRevokesTheNewestOfflineGrantsOnly() {
        Harness h = Harness.withFifo().nodes("n", "r1", 1, 400, 4096);
        h.handle(new JobSubmitted(JobSpec.of("svc", null,
                UnitSpec.builder("web").slot(100, 512).desired(1).kind(UnitKind.ONLINE).build())));
        h.submit("old", unit("u", 100, 512, 1));
        h.submit("new", unit("u", 100, 512, 2));
        h.handle(new NodeCapacityChanged("n0", Resources.of(200, 4096)));
        assertEquals(1, h.granted("svc/web"));
        assertEquals(1, h.granted("old/u"));
        assertEquals(0, h.granted("new/u"));
        h.handle(new NodeCapacityChanged("n0", Resources.of(400, 4096)));
        assertEquals(2, h.granted("new/u"));
    }

    @Test
    void aNewResourceDimensionCanAppearLater() {
        Harness h = Harness.withFifo().nodes("n", "r1", 2, 400, 4096);
        h.submit("cpu", unit("u", 100, 512, 2));
        h.handle(new NodeAdded(new NodeSpec("g0", "r1", Resources.of(400, 4096, Map.of("gpu", 4L)))));
        h.submit("gpu", UnitSpec.builder("u").slot(Resources.of(100, 512, Map.of("gpu", 2L))).desired(3).build());
        assertEquals(Map.of("g0", 2), h.placement("gpu/u"));
        h.handle(new NodeCapacityChanged("n1", Resources.of(400, 4096, Map.of("gpu", 2L, "fpga", 1L))));
        assertEquals(Map.of("g0", 2, "n1", 1), h.placement("gpu/u"));
    }

    @Test
    void leavingTheBlacklistRefillsTheNode() {
        Harness h = Harness.withFifo().nodes("n", "r1", 2, 400, 4096);
        h.handle(new NodeBlacklisted("n1", true));
        h.submit("j", unit("u", 100, 512, 6));
        assertEquals(Map.of("n0", 4), h.placement("j/u"));
        h.handle(new NodeBlacklisted("n1", false));
        assertEquals(Map.of("n0", 4, "n1", 2), h.placement("j/u"));
    }

    @Test
    void machineLocalityToADepartedNodeIsSkipped() {
        Harness h = Harness.withFifo().nodes("n", "r1", 2, 400, 4096);
        h.submit("j", UnitSpec.builder("u").slot(100, 512).desired(2).prefer(Locality.machine("n1", 2)).build());
        assertEquals(Map.of("n1", 2), h.placement("j/u"));
        h.handle(new NodeRemoved("n1", false));
        assertEquals(0, h.granted("j/u"));   // only n1 was eligible; the slots wait for it
        assertTrue(h.engine.view().unit(granary.api.model.UnitId.parse("j/u")).remaining() == 2);
    }
}

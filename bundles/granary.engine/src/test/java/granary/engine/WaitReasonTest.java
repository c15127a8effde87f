package granary.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;

import granary.api.event.NodeAdded;
import granary.api.model.NodeSpec;
import granary.api.model.Resources;
import granary.api.model.UnitId;
import granary.api.model.UnitSpec;
import granary.api.spi.ReasonCode;

import org.junit.jupiter.api.Test;

/** Why a unit waits, in the words an operator needs: no matching node is not the same as no room. */
class WaitReasonTest {

    @Test
    void aSelectorNoNodeMatchesSaysSoOnAnEmptyCluster() {
        Harness h = Harness.withFifo().nodes("n", "r1", 3, 400, 4096);
        h.submit("g", UnitSpec.builder("u").slot(100, 512).desired(1).select("gpu", "a100").build());
        var reason = h.engine.view().unit(UnitId.parse("g/u")).waitReason();
        assertEquals(ReasonCode.LABELS, reason.code());
        assertTrue(reason.toString().contains("no node matches the node selector {gpu=a100} (3 nodes)"), reason.toString());
    }

    @Test
    void aSelectorSomeNodeMatchesButFullIsNoRoom() {
        Harness h = Harness.withFifo().nodes("n", "r1", 2, 400, 4096);
        h.handle(new NodeAdded(new NodeSpec("g0", "r1", Resources.of(100, 4096), Map.of("gpu", "a100"))));
        h.submit("g", UnitSpec.builder("u").slot(100, 512).desired(2).select("gpu", "a100").build());
        assertEquals(1, h.granted("g/u"));
        assertEquals(ReasonCode.NO_FIT, h.engine.view().unit(UnitId.parse("g/u")).waitReason().code());
    }

    @Test
    void theLastNodeWithTheLabelGoneNoNodeMatchesAgain() {
        Harness h = Harness.withFifo().nodes("n", "r1", 1, 400, 4096);
        h.handle(new NodeAdded(new NodeSpec("g0", "r1", Resources.of(400, 4096), Map.of("gpu", "a100"))));
        h.handle(new granary.api.event.NodeRemoved("g0", false));
        h.submit("g", UnitSpec.builder("u").slot(100, 512).desired(1).select("gpu", "a100").build());
        assertEquals(ReasonCode.LABELS, h.engine.view().unit(UnitId.parse("g/u")).waitReason().code());
    }
}

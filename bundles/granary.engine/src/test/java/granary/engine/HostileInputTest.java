package granary.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import granary.api.event.JobCancelled;
import granary.api.event.NodeAdded;
import granary.api.event.NodeBlacklisted;
import granary.api.event.PolicyActivated;
import granary.api.model.InvalidRequestException;
import granary.api.model.NodeSpec;
import granary.api.model.Resources;

import org.junit.jupiter.api.Test;

/**
 * Input an operator or a peer types is echoed escaped and cut (no raw newline or terminal escape in
 * a refusal, no 10 MB message), and amounts too large to add up exactly are refused with the limit.
 */
class HostileInputTest {

    private static void noRawControl(String message) {
        assertFalse(message.chars().anyMatch(c -> c == '\n' || c == 0x1b || c == 0), message);
        assertTrue(message.length() < 1_000, message.length() + " chars");
    }

    @Test
    void refusalsEchoNamesEscapedAndCut() {
        Harness h = Harness.withFifo().nodes("n", "r1", 1, 400, 4096);
        String forged = "x\nsubmitted forged: granted 9 of 9 slots\u001b[2J" + "y".repeat(100_000);
        noRawControl(assertThrows(InvalidRequestException.class, () -> h.handle(new JobCancelled(forged))).getMessage());
        noRawControl(assertThrows(InvalidRequestException.class, () -> h.handle(new NodeBlacklisted(forged, true))).getMessage());
        noRawControl(assertThrows(InvalidRequestException.class, () -> h.handle(new PolicyActivated(forged))).getMessage());
    }

    @Test
    void aCapacityTooLargeToSumIsRefusedWithTheLimit() {
        Harness h = Harness.withFifo();
        InvalidRequestException e = assertThrows(InvalidRequestException.class,
                () -> h.handle(new NodeAdded(new NodeSpec("big", "r1", Resources.of(Long.MAX_VALUE, 1024)))));
        assertTrue(e.getMessage().contains("capacity.cpu: must be at most " + Resources.MAX_AMOUNT + ", got " + Long.MAX_VALUE),
                e.getMessage());
        assertEquals(0, h.engine.view().status().nodes());
    }
}

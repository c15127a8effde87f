package granary.planner.live.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.List;

import org.junit.jupiter.api.Test;

/**
 * The last hour per group outlives a connection: a second model (a reconnect) on the same history goes
 * on with it, the time between being a gap of unknown samples; memory is bounded by groups and samples.
 */
class UsageHistoryTest {

    private static final long U = UsageHistory.UNKNOWN;

    private static List<Long> slots(Frame.GroupHistory h) {
        return Arrays.stream(h.usedSlots()).boxed().toList();
    }

    @Test
    void aReconnectGoesOnWithTheSameHourAndTheTimeBetweenIsAGap() {
        UsageHistory history = new UsageHistory(10_000, 60_000, 100); // 6 samples
        ClusterModel first = new ClusterModel(history);
        first.group("root.a", 3, 300, 0, 0, 0);
        first.tick(0);
        first.tick(10_000);
        // disconnected from 20 s to 40 s; a new connection, a new model, the same history
        ClusterModel second = new ClusterModel(history);
        second.group("root.a", 7, 700, 0, 0, 0);
        second.tick(40_000);
        second.tick(45_000); // the same period: no second sample
        Frame.GroupHistory h = second.frame().history().get(0);
        assertEquals("root.a", h.path());
        assertEquals(List.of(U, 3L, 3L, U, U, 7L), slots(h), "periods -10 s to 40 s: before, two samples, the gap, the sample now");
        assertEquals(700, h.usedCpu()[5]);
        assertEquals(50_000, h.endMillis(), "the hour ends with the latest sample's period");
    }

    @Test
    void whileTheStreamDoesNotFeedTheModelItsLastValuesAreNotSampled() {
        UsageHistory history = new UsageHistory(10_000, 40_000, 100); // 4 samples
        ClusterModel model = new ClusterModel(history);
        model.group("root.a", 3, 300, 0, 0, 0);
        model.tick(0);
        model.feeding(false); // the stream dropped: reconnecting
        model.tick(10_000);
        model.tick(20_000);
        model.feeding(true);
        model.tick(30_000);
        assertEquals(List.of(3L, U, U, 3L), slots(model.frame().history().get(0)));
    }

    @Test
    void aGroupWithNothingLeftInTheHourGoesAndTheGroupsAreBounded() {
        UsageHistory history = new UsageHistory(10_000, 30_000, 2); // 3 samples, 2 groups
        history.record(0, List.of(new UsageHistory.Use("a", 1, 10), new UsageHistory.Use("b", 2, 20), new UsageHistory.Use("c", 3, 30)));
        assertEquals(List.of("a", "b"), history.read().stream().map(Frame.GroupHistory::path).toList());
        assertEquals(1, history.refused(), "c: past the bound, not kept");
        for (long t = 10_000; t <= 30_000; t += 10_000) {
            history.record(t, List.of(new UsageHistory.Use("a", 5, 50)));
        }
        // b's only sample (at 0) is out of the hour: b goes, and c has room now
        assertEquals(List.of("a"), history.read().stream().map(Frame.GroupHistory::path).toList());
        history.record(40_000, List.of(new UsageHistory.Use("a", 6, 60), new UsageHistory.Use("c", 3, 30)));
        assertEquals(List.of("a", "c"), history.read().stream().map(Frame.GroupHistory::path).toList());
        assertEquals(List.of(5L, 5L, 6L), slots(history.read().get(0)));
        assertEquals(List.of(U, U, 3L), slots(history.read().get(1)));
    }

    @Test
    void aWrongSizeIsRefusedInWords() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new UsageHistory(10_000, 5_000, 10));
        assertTrue(e.getMessage().startsWith("history: one sample every 10000 ms over 5000 ms"), e.getMessage());
    }
}

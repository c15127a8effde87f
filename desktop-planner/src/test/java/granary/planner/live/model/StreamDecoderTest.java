package granary.planner.live.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.io.StringReader;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

/**
 * The recorded stream ({@code src/test/resources/live/recorded.sse}: a snapshot of two rooms, grants,
 * a revocation, a release, a malformed event, a line that is no SSE field, node and group samples,
 * a policy change) read into the model: the numbers a person would work out by hand.
 */
class StreamDecoderTest {

    static ClusterModel read(String resource) throws IOException {
        ClusterModel model = new ClusterModel();
        try (InputStream in = StreamDecoderTest.class.getResourceAsStream(resource)) {
            assertTrue(in != null, "test resource " + resource);
            new SseReader(in, new StreamDecoder(model)).run();
        }
        return model;
    }

    private static int index(Frame f, String node) {
        int i = f.topology().indexOf(node);
        assertTrue(i >= 0, () -> node + " in " + java.util.Arrays.toString(f.topology().names()));
        return i;
    }

    @Test
    void recordedStreamGivesEachNodesUtilisationAndSlots() throws IOException {
        Frame f = read("/live/recorded.sse").frame();

        assertEquals(0.5, f.utilisation(index(f, "n1")), 1e-9, "n1: cpu 800 of 1600 after the nodes sample");
        assertEquals(0.0, f.utilisation(index(f, "n2")), 1e-9, "n2 idle");
        assertEquals(1.0, f.utilisation(index(f, "n3")), 1e-9, "n3 full: cpu 1600 of 1600");
        assertEquals(0.75, f.utilisation(index(f, "n4")), 1e-9, "n4: cpu 1200 of 1600 after the nodes sample");
        assertEquals(4, f.slots(index(f, "n1")), "n1: +2 +3 -1 (revoked)");
        assertEquals(0, f.slots(index(f, "n2")), "n2: +1 -1 (released)");
        assertEquals(4, f.slots(index(f, "n4")), "n4: the malformed grant skipped, then +4");

        // n5 was removed by the sample: rooms are r1 with three nodes and r2 with one
        assertEquals(2, f.topology().rooms().size());
        assertEquals("r1", f.topology().rooms().get(0).name());
        assertEquals(3, f.topology().rooms().get(0).nodes().length);
        assertEquals(1, f.topology().rooms().get(1).nodes().length);
        assertEquals(-1, f.topology().indexOf("n5"));
    }

    @Test
    void recordedStreamGivesGroupUsageWaitingWorkJobsAndPolicies() throws IOException {
        Frame f = read("/live/recorded.sse").frame();

        assertEquals(List.of(
                new Frame.GroupUsage("root.a", 14, 1800, 30720, 1, 2),
                new Frame.GroupUsage("root.b", 2, 400, 8192, 0, 0),
                new Frame.GroupUsage("root.c", 0, 0, 0, 3, 6)), f.groups());
        assertEquals(List.of(new Frame.JobUsage("j3", 4, 1), new Frame.JobUsage("j1", 2, 1), new Frame.JobUsage("j2", 2, 1)), f.jobs());
        assertEquals(Map.of("order", "fair", "pick", "sjf"), f.inEffect());
        assertEquals(10, f.eventsApplied(), "snapshot, 4 grants but the malformed one, revoke, release, nodes, groups, policies");
        assertEquals("s1.110", f.lastEventId());
        assertEquals(110, f.seq());
    }

    @Test
    void malformedLinesAreReportedWithTheirLineAndSkipped() throws IOException {
        Frame f = read("/live/recorded.sse").frame();

        assertEquals(2, f.problems(), "problems: " + f.lastProblems());
        assertTrue(f.lastProblems().get(0).startsWith("line 31 (event grant, id s1.106): malformed JSON"), f.lastProblems().get(0));
        assertTrue(f.lastProblems().get(1).startsWith("line 33: not a Server-Sent Events field"), f.lastProblems().get(1));
    }

    @Test
    void aSnapshotAfterAReconnectReplacesWhatWasKnown() throws IOException {
        ClusterModel model = read("/live/recorded.sse");
        String again = "id: s2.5\nevent: snapshot\ndata: {\"seq\":5,\"nodes\":[{\"name\":\"n9\",\"room\":\"r9\",\"granted\":{\"cpu\":1,\"mem\":1},"
                + "\"capacity\":{\"cpu\":4,\"mem\":4},\"blacklisted\":false}],\"groups\":[{\"path\":\"root.b\",\"usedSlots\":1,"
                + "\"used\":{\"cpu\":1,\"mem\":1},\"waitingUnits\":0,\"waitingSlots\":0}],\"inEffect\":{}}\n\n";
        new SseReader(new StringReader(again), new StreamDecoder(model)).run();
        Frame f = model.frame();

        assertEquals(1, f.topology().nodeCount());
        assertEquals(0.25, f.utilisation(f.topology().indexOf("n9")), 1e-9);
        assertEquals(List.of(new Frame.GroupUsage("root.b", 1, 1, 1, 0, 0)), f.groups());
        assertEquals(List.of(), f.jobs(), "who holds what is not in a snapshot: forgotten");
        assertEquals("s2.5", f.lastEventId());
    }

    @Test
    void groupHistoryKeepsOneSamplePerPeriodForTheLastHour() {
        ClusterModel model = new ClusterModel(new UsageHistory(10_000, 60_000, 100)); // 6 samples
        for (int k = 0; k < 10; k++) {
            model.group("root.a", k, 100L * k, 0, 0, 0);
            model.tick(k * 10_000L);
            model.tick(k * 10_000L + 5_000); // not yet the next sample
        }
        Frame.GroupHistory h = model.frame().history().get(0);
        assertEquals("root.a", h.path());
        assertEquals(List.of(4L, 5L, 6L, 7L, 8L, 9L), java.util.Arrays.stream(h.usedSlots()).boxed().toList(), "the last 6, oldest first");
        assertEquals(900, h.usedCpu()[5]);
    }
}

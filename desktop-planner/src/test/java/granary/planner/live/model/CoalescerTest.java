package granary.planner.live.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;

import granary.planner.live.SyntheticStream;

/** 100,000 grants read as fast as they come must reach the UI as a bounded number of frames, the last one complete. */
class CoalescerTest {

    private static final int NODES = 1000;
    private static final int GRANTS = 100_000;
    private static final long PULSE = 33;

    @Test
    void aHundredThousandGrantsBecomeAFewDozenFramesAndTheLastHasThemAll() throws Exception {
        ClusterModel model = new ClusterModel();
        AtomicInteger frames = new AtomicInteger();
        AtomicReference<Frame> last = new AtomicReference<>();
        Executor countingUi = r -> {
            frames.incrementAndGet();
            r.run();
        };
        long elapsed;
        try (Coalescer c = new Coalescer(model, countingUi, last::set, PULSE, System::currentTimeMillis).start()) {
            long t0 = System.nanoTime();
            new SseReader(new SyntheticStream(NODES, 10, GRANTS, 0, 500, false, 0), new StreamDecoder(model)).run();
            elapsed = (System.nanoTime() - t0) / 1_000_000;
            long deadline = System.currentTimeMillis() + 5000;
            while ((last.get() == null || last.get().eventsApplied() < GRANTS + 1) && System.currentTimeMillis() < deadline) {
                Thread.sleep(10);
            }
        }
        Frame f = last.get();
        assertEquals(GRANTS + 1, f.eventsApplied(), "the last frame has the snapshot and every grant");
        long slots = 0;
        for (int i = 0; i < f.topology().names().length; i++) {
            slots += f.slots(i);
        }
        assertEquals(GRANTS, slots, "every grant's slot is on its node");
        assertEquals(GRANTS / NODES, f.slots(f.topology().indexOf(SyntheticStream.node(7))));
        assertEquals(500, f.jobCount());
        // one frame per pulse at most, while reading and until the last frame came out
        long bound = (elapsed + 200) / PULSE + 3;
        assertTrue(frames.get() <= bound, frames.get() + " frames for " + GRANTS + " grants read in " + elapsed + " ms: more than " + bound);
        assertTrue(frames.get() < 1000, frames.get() + " frames: not coalesced");
        System.out.printf("coalescing: %d grants read in %d ms became %d frames%n", GRANTS, elapsed, frames.get());
    }

    @Test
    void aBusyUiGetsOneFrameAtATimeNotABacklog() throws IOException {
        ClusterModel model = new ClusterModel();
        List<Runnable> queued = new ArrayList<>();
        AtomicReference<Frame> last = new AtomicReference<>();
        Coalescer c = new Coalescer(model, queued::add, last::set, PULSE, System::currentTimeMillis);
        StreamDecoder decoder = new StreamDecoder(model);
        SseReader reader = new SseReader(new SyntheticStream(100, 4, 2000, 0, 50, false, 0), decoder);
        reader.run();
        for (int k = 0; k < 50; k++) {
            model.granted("j0/u0", SyntheticStream.node(0), 1); // events keep coming...
            c.pulse(); // ...while the UI thread is busy: nothing it was handed has run
        }
        assertEquals(1, queued.size(), "one frame waits for the UI, not 50");
        queued.remove(0).run();
        assertEquals(2002, last.get().eventsApplied(), "the frame handed over first: the snapshot, 2,000 grants and one more");
        c.pulse();
        assertEquals(1, queued.size(), "the UI took the frame: the next one goes");
        queued.remove(0).run();
        assertEquals(2051, last.get().eventsApplied(), "the next frame is the latest, not the second of 50");
        c.pulse();
        assertEquals(0, queued.size(), "nothing changed: no frame");
    }
}

package granary.sim.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The simulation's event order: by time, then kind, then the order added — as a heap with that order gives. */
class EventQueueTest {

    private record E(long time, int kind, long seq) {
    }

    private static final Comparator<E> ORDER = Comparator.comparingLong(E::time).thenComparingInt(E::kind).thenComparingLong(E::seq);

    @Test
    void takesEventsByTimeThenKindThenTheOrderAdded() {
        EventQueue<E> q = new EventQueue<>(E::time, E::kind, 2);
        assertNull(q.peek());
        assertNull(q.poll());
        q.add(new E(20, 1, 0));
        q.add(new E(10, 1, 1));
        q.add(new E(20, 0, 2));
        q.add(new E(10, 1, 3));
        q.add(new E(10, 0, 4));
        List<Long> seqs = new ArrayList<>();
        while (!q.isEmpty()) {
            assertEquals(q.peek(), q.peek());
            seqs.add(q.poll().seq());
        }
        assertEquals(List.of(4L, 1L, 3L, 2L, 0L), seqs);
        assertEquals(0, q.size());
    }

    /** Adds and takes interleaved, as the simulation does (an event's end added when it is taken, at or after its time). */
    @Test
    void agreesWithAHeapOverARandomRun() {
        Random r = new Random(24);
        EventQueue<E> q = new EventQueue<>(E::time, E::kind, 2);
        PriorityQueue<E> heap = new PriorityQueue<>(ORDER);
        long seq = 0;
        long now = 0;
        for (int i = 0; i < 2_000; i++) {
            E e = new E(r.nextInt(500), r.nextInt(2), seq++);
            q.add(e);
            heap.add(e);
        }
        int taken = 0;
        while (!heap.isEmpty()) {
            E expected = heap.poll();
            assertEquals(expected, q.peek());
            assertEquals(expected, q.poll());
            assertTrue(expected.time() >= now, "time never goes back");
            now = expected.time();
            taken++;
            for (int k = r.nextInt(3); k > 0 && taken < 50_000; k--) {
                E later = new E(now + r.nextInt(50), r.nextInt(2), seq++);   // 0: at the same time as the one taken
                q.add(later);
                heap.add(later);
            }
            assertEquals(heap.size(), q.size());
        }
        assertTrue(q.isEmpty());
        assertNull(q.poll());
    }
}

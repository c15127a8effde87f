package granary.sim.run;

import java.util.ArrayDeque;
import java.util.TreeMap;
import java.util.function.ToIntFunction;
import java.util.function.ToLongFunction;

/**
 * The simulation's pending events in the order they happen: by time, then by kind (a lower kind
 * first at the same time), then in the order they were added. A replay adds millions of events
 * (every grant's end), most at a few thousand distinct times, so they are kept in one bucket per
 * time, a queue per kind: adding and taking cost a lookup among the distinct times, not a sift
 * through a heap of every event (it was a sixth of a replay's time with quota groups, which revoke
 * and grant again). Not thread-safe: the simulation's loop only.
 *
 * @param <E> the event
 */
final class EventQueue<E> {

    private final ToLongFunction<E> time;
    private final ToIntFunction<E> kind;
    private final int kinds;
    private final TreeMap<Long, ArrayDeque<E>[]> byTime = new TreeMap<>();
    /** The earliest bucket and its time, or null: most events are taken from it and added at later times. */
    private ArrayDeque<E>[] first;
    private long firstTime;
    private int size;

    /** @param kinds how many kinds there are: {@code kind} answers 0 … kinds − 1 */
    EventQueue(ToLongFunction<E> time, ToIntFunction<E> kind, int kinds) {
        this.time = time;
        this.kind = kind;
        this.kinds = kinds;
    }

    @SuppressWarnings("unchecked")
    void add(E e) {
        long t = time.applyAsLong(e);
        ArrayDeque<E>[] bucket = first != null && t == firstTime ? first : byTime.get(t);
        if (bucket == null) {
            bucket = new ArrayDeque[kinds];
            byTime.put(t, bucket);
            if (first != null && t < firstTime) {
                first = null;   // found again on the next peek
            }
        }
        int k = kind.applyAsInt(e);
        if (bucket[k] == null) {
            bucket[k] = new ArrayDeque<>();
        }
        bucket[k].addLast(e);
        size++;
    }

    /** The next event, or null when none is pending. */
    E peek() {
        ArrayDeque<E>[] b = head();
        if (b == null) {
            return null;
        }
        for (ArrayDeque<E> q : b) {
            if (q != null && !q.isEmpty()) {
                return q.peekFirst();
            }
        }
        throw new IllegalStateException("an empty bucket at " + firstTime);
    }

    /** Removes and returns the next event, or null when none is pending. */
    E poll() {
        ArrayDeque<E>[] b = head();
        if (b == null) {
            return null;
        }
        E out = null;
        boolean more = false;
        for (ArrayDeque<E> q : b) {
            if (q == null || q.isEmpty()) {
                continue;
            }
            if (out == null) {
                out = q.pollFirst();
                more |= !q.isEmpty();
            } else {
                more = true;
                break;
            }
        }
        size--;
        if (!more) {
            byTime.remove(firstTime);
            first = null;
        }
        return out;
    }

    int size() {
        return size;
    }

    boolean isEmpty() {
        return size == 0;
    }

    private ArrayDeque<E>[] head() {
        if (first == null) {
            var e = byTime.firstEntry();
            if (e == null) {
                return null;
            }
            first = e.getValue();
            firstTime = e.getKey();
        }
        return first;
    }
}

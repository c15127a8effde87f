package granary.agent;

import granary.api.model.UnitId;
import granary.protocol.Plan;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * Launches accepted from a job master that cannot start yet: no cap for the unit has arrived (a
 * plan may overtake its cap), or the cap is full. Each remembers the key of the token it came with;
 * it starts only under a cap of the same job master with that key. Bounded in number and in time.
 * Not thread-safe: {@link Node} guards it.
 */
final class PendingLaunches {

    /**
     * A kept launch.
     *
     * @param launch      what to start
     * @param jobMaster   the job master that sent it
     * @param key         the key of the token it came with
     * @param incarnation the job master's incarnation that sent it
     * @param keptAt      when it was kept, in clock milliseconds
     */
    record Kept(Plan.Launch launch, String jobMaster, String key, long incarnation, long keptAt) {
    }

    private record Slot(UnitId unit, int slot) {
    }

    private final int limit;
    private final long expiryMillis;
    private final Map<Slot, Kept> kept = new LinkedHashMap<>();

    PendingLaunches(int limit, long expiryMillis) {
        this.limit = limit;
        this.expiryMillis = expiryMillis;
    }

    int limit() {
        return limit;
    }

    int size() {
        return kept.size();
    }

    boolean contains(UnitId unit, int slot) {
        return kept.containsKey(new Slot(unit, slot));
    }

    void add(Kept k) {
        if (kept.size() >= limit) {
            throw new IllegalStateException("pending launches: limit " + limit + " reached");
        }
        kept.put(new Slot(k.launch().unit(), k.launch().slot()), k);
    }

    /** The launches kept for {@code unit}, oldest first. */
    List<Kept> of(UnitId unit) {
        List<Kept> out = new ArrayList<>();
        for (Kept k : kept.values()) {
            if (k.launch().unit().equals(unit)) {
                out.add(k);
            }
        }
        return out;
    }

    void remove(Kept k) {
        kept.remove(new Slot(k.launch().unit(), k.launch().slot()), k);
    }

    /** Removes and returns the launches kept longer than the expiry. */
    List<Kept> expire(long now) {
        return removeIf(k -> now - k.keptAt() >= expiryMillis);
    }

    /** Removes and returns the launches matching {@code p}. */
    List<Kept> removeIf(Predicate<Kept> p) {
        List<Kept> out = new ArrayList<>();
        for (Iterator<Kept> it = kept.values().iterator(); it.hasNext(); ) {
            Kept k = it.next();
            if (p.test(k)) {
                out.add(k);
                it.remove();
            }
        }
        return out;
    }
}

package granary.protocol.link;

import java.util.concurrent.ConcurrentHashMap;

/**
 * How many requests each caller has in flight, against a limit (docs/security.md, "Limits"): a peer
 * speaks one message at a time and polls once, an operator's tool a few calls at once; a caller past
 * its limit — a stolen token opening slow requests by the hundred — is answered 429 at once, and the
 * callers beside it are not starved. Keys are what identifies the caller (its token, checked
 * already); an entry goes when its count drops to zero, so the map holds only callers with requests
 * open. Thread-safe.
 */
public final class InFlight {

    private final int limit;
    private final ConcurrentHashMap<String, Integer> open = new ConcurrentHashMap<>();

    public InFlight(int limit) {
        if (limit < 1) {
            throw new IllegalArgumentException("an in-flight limit is at least 1, got " + limit);
        }
        this.limit = limit;
    }

    public int limit() {
        return limit;
    }

    /** Counts a request of {@code caller} in if it is under its limit; false (nothing counted) if not. */
    public boolean enter(String caller) {
        boolean[] in = {false};
        open.compute(caller, (k, n) -> {
            int now = n == null ? 0 : n;
            if (now >= limit) {
                return n;
            }
            in[0] = true;
            return now + 1;
        });
        return in[0];
    }

    /** A request of {@code caller} that {@link #enter} counted in has ended. */
    public void leave(String caller) {
        open.computeIfPresent(caller, (k, n) -> n <= 1 ? null : n - 1);
    }

    /** Requests of {@code caller} open now. */
    public int open(String caller) {
        return open.getOrDefault(caller, 0);
    }
}

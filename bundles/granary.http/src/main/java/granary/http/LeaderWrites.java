package granary.http;

import granary.master.LeaderLease;
import java.net.URI;
import java.util.List;
import java.util.function.Supplier;

/**
 * Writes are taken only by the leader, and only while it holds its lease (docs/ha.md, "The API of
 * a standby"; docs/api.md, "Errors"). A standby answers a write 307 with the leader's URL in
 * {@code Location} when it knows the leader, else 503; a leader whose lease is not held answers
 * 503. Checked after authentication and the role, before the body is read, and again after the
 * write was applied: a lease that lapsed meanwhile (a pause) turns the answer into a 503, because
 * the master steps down and loses what it applied.
 */
final class LeaderWrites {

    static final String TYPE = "not-leader";
    private static final String TITLE = "This master does not take writes now";

    private final Supplier<LeaderLease> lease;

    /** @param lease the runtime's lease; null from it: no master side runs here, so no write is taken */
    LeaderWrites(Supplier<LeaderLease> lease) {
        this.lease = lease;
    }

    /** Before a write: a 307 or 503 unless this master leads and holds its lease. {@code target}: the path and query asked for. */
    void before(String target) {
        LeaderLease l = lease.get();
        if (l == null) {
            throw new ApiException(503, TYPE, TITLE, "the master side of this runtime is not running, so it takes no writes;"
                    + " try again once it runs", List.of());
        }
        if (l.held()) {
            return;
        }
        URI leader = l.leader();
        if (leader != null) {
            String location = leader.resolve(target).toString();
            throw new ApiException(307, TYPE, TITLE, l.why() + "; send the write to " + location, List.of())
                    .header("Location", location);
        }
        throw new ApiException(503, TYPE, TITLE, l.why() + "; nothing changed: try again (another master is being elected)",
                List.of());
    }

    /** After a write was applied: a 503 if the lease lapsed meanwhile (the change dies with this master's step-down). */
    void after() {
        LeaderLease l = lease.get();
        if (l != null && !l.held()) {
            throw new ApiException(503, TYPE, TITLE, l.why() + "; this master lost the lease while it applied the write and"
                    + " steps down, so the change is lost: send it again once another master leads", List.of());
        }
    }
}

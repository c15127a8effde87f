package granary.ha;

import java.time.Duration;
import java.util.Objects;
import java.util.function.LongSupplier;

/**
 * The leader's lease (docs/ha.md, "The lease"): whether this master may still act as the leader
 * <em>now</em>, read from a monotonic clock at every check, so that a pause (a stopped process, a
 * long collection) is caught by the first check after it.
 *
 * <p>Why it holds: a ZooKeeper server touches a session whenever a request of that session reaches
 * it, and expires the session no earlier than one session timeout after the last touch. A request
 * that was <em>sent</em> at {@code s} and answered reached the server after {@code s}, so the
 * session, and with it the leader's latch node, lives at least until {@code s + sessionTimeout};
 * no standby can lead before then. The lease is valid until {@code s + sessionTimeout - margin}
 * for the latest such {@code s}: it lapses while the old leadership is certainly still in force.
 * The margin covers a server that relays the touch late (a follower reports touches to the
 * ensemble's leader every half tick, and a tick is at most half the session timeout), clocks that
 * run at slightly different rates, and the instant between the last check and bytes leaving.
 *
 * <p>States: not yet taken (not held, no renewal yet), held, and lost. Lost is final: once a check
 * found the lease lapsed, or {@link #revoke} ended it, a late renewal does not bring it back (the
 * master that held it steps down and is never the leader again). Thread-safe; {@link #held()} is a
 * clock read and two volatile reads.
 */
public final class Lease {

    private final String zooKeeper;
    private final LongSupplier nanos;
    private final long marginNanos;
    private volatile long sessionNanos;
    /** Nanos (of {@link #nanos}) after which the lease is not held, unless renewed before. */
    private volatile long validUntil;
    private volatile boolean taken;
    /** Why the lease is lost; null while it is not. */
    private volatile String lost;
    /** The latest renewal's send time, for the reason given when it lapses. */
    private long lastSent;

    /**
     * @param zooKeeper      the ensemble's connect string, as the reasons name it
     * @param sessionTimeout the ZooKeeper session timeout (the smaller of the one asked for and the
     *                       one the server granted; see {@link #sessionTimeout(Duration)})
     * @param margin         how long before the session could expire the lease lapses; less than
     *                       the session timeout
     * @param nanos          a monotonic clock in ns ({@code System::nanoTime}; a test's own)
     */
    public Lease(String zooKeeper, Duration sessionTimeout, Duration margin, LongSupplier nanos) {
        this.zooKeeper = Objects.requireNonNull(zooKeeper, "zooKeeper");
        this.nanos = Objects.requireNonNull(nanos, "nanos");
        if (margin.isNegative() || margin.compareTo(sessionTimeout) >= 0) {
            throw new IllegalArgumentException("lease margin " + margin.toMillis() + " ms: expected at least 0 and less than the session timeout "
                    + sessionTimeout.toMillis() + " ms");
        }
        this.sessionNanos = sessionTimeout.toNanos();
        this.marginNanos = margin.toNanos();
    }

    /**
     * A round trip to ZooKeeper in the leader's session, sent at {@code sentNanos} (read from the
     * same clock <em>before</em> the request left), was answered: the lease holds until
     * {@code sentNanos + sessionTimeout - margin}. Nothing once the lease is lost.
     */
    public synchronized void renewed(long sentNanos) {
        if (lost != null) {
            return;
        }
        long until = sentNanos + sessionNanos - marginNanos;
        if (!taken || until - validUntil > 0) {
            validUntil = until;
            lastSent = sentNanos;
        }
        taken = true;
    }

    /**
     * True while this master holds the lease: renewed, not revoked, and the clock now before the
     * end of its validity. The first check that finds it lapsed makes it lost for good.
     */
    public boolean held() {
        if (lost != null || !taken) {
            return false;
        }
        long now = nanos.getAsLong();
        if (now - validUntil < 0) {
            return true;
        }
        lapse(now);
        return false;
    }

    /** Why the lease is not held, in words for the log and for refusals; empty while it is. */
    public String why() {
        if (held()) {
            return "";
        }
        String l = lost;
        return l != null ? l : "the leadership lease was not taken yet (no round trip to ZooKeeper at " + zooKeeper
                + " as the leader)";
    }

    /** Ends the lease for good (the leadership was lost, the session expired); the first reason stays. */
    public synchronized void revoke(String reason) {
        if (lost == null) {
            lost = Objects.requireNonNull(reason, "reason");
        }
    }

    /**
     * The server granted a session timeout other than the one asked for: the lease is valid for the
     * smaller of the two (a longer one only delays a takeover; a shorter one would let a standby
     * lead before the lease lapsed).
     */
    public synchronized void sessionTimeout(Duration granted) {
        long g = granted.toNanos();
        if (g > marginNanos && g < sessionNanos) {
            validUntil -= sessionNanos - g;
            sessionNanos = g;
        }
    }

    /** The session timeout the lease counts with. */
    public Duration sessionTimeout() {
        return Duration.ofNanos(sessionNanos);
    }

    /** How long the lease is valid after a renewal's request was sent: session timeout − margin. */
    public Duration validity() {
        return Duration.ofNanos(sessionNanos - marginNanos);
    }

    /**
     * The ZooKeeper outage as a step-down names it: how long since the last answered round trip was
     * sent, against the session timeout.
     */
    public synchronized String silence() {
        long ms = taken ? (nanos.getAsLong() - lastSent) / 1_000_000 : -1;
        return "ZooKeeper at " + zooKeeper + (ms >= 0 ? " has not answered for " + ms + " ms" : " has not answered")
                + " (session timeout " + sessionNanos / 1_000_000 + " ms; the lease lapses "
                + marginNanos / 1_000_000 + " ms before the session could expire)";
    }

    /** A check at {@code now} found the lease lapsed: lost for good, even if a renewal races with it. */
    private synchronized void lapse(long now) {
        if (lost == null) {
            lost = "the leadership lease lapsed " + (now - validUntil) / 1_000_000 + " ms ago: " + silence();
        }
    }
}

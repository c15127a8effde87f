package granary.ha;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The lease on a clock the test moves (docs/ha.md, "The lease"): 2 s session, 500 ms margin. */
class LeaseTest {

    private static final long MS = 1_000_000L;

    /** Starts far from zero and near the wrap of a long: the lease compares by differences. */
    private final AtomicLong now = new AtomicLong(Long.MAX_VALUE - 1_000 * MS);
    private final Lease lease = new Lease("127.0.0.1:2181", Duration.ofSeconds(2), Duration.ofMillis(500), now::get);

    private long at(long ms) {
        return now.get() + ms * MS;
    }

    private void advance(long ms) {
        now.addAndGet(ms * MS);
    }

    @Test
    void notHeldBeforeTheFirstRoundTrip() {
        assertFalse(lease.held());
        assertTrue(lease.why().startsWith("the leadership lease was not taken yet"), lease.why());
        lease.renewed(now.get());
        assertTrue(lease.held(), "a check before the first renewal does not lose the lease");
        assertEquals("", lease.why());
    }

    @Test
    void heldUntilSessionTimeoutMinusMarginAfterTheRoundTripWasSent() {
        long sent = now.get();
        advance(40); // the answer comes 40 ms after the request left: validity counts from the send
        lease.renewed(sent);
        advance(1_459);
        assertTrue(lease.held(), "1499 ms after the send: held");
        advance(1);
        assertFalse(lease.held(), "1500 ms after the send (2000 ms session - 500 ms margin): lapsed");
        assertTrue(lease.why().contains("ZooKeeper at 127.0.0.1:2181 has not answered for 1500 ms (session timeout 2000 ms"),
                lease.why());
    }

    @Test
    void aPausePastTheTimeoutIsCaughtAtTheNextCheckAndALateAnswerDoesNotRevive() {
        lease.renewed(now.get());
        assertTrue(lease.held());
        long sentBeforeThePause = now.get();
        advance(3_500); // the process stood still (SIGSTOP, a long collection): nothing ran, nothing checked
        assertFalse(lease.held(), "the first check after the pause");
        // the answer to a round trip sent just before the pause arrives after it ...
        lease.renewed(sentBeforeThePause + 10 * MS);
        // ... and even one sent after it: the lease is lost for good once a check found it lapsed
        lease.renewed(now.get());
        assertFalse(lease.held(), "lost is final");
        assertTrue(lease.why().startsWith("the leadership lease lapsed"), lease.why());
    }

    @Test
    void aFailedRoundTripChangesNothingAndTheNextAnsweredOneRenews() {
        lease.renewed(now.get());
        advance(200);
        long failedSent = now.get(); // sent, never answered (a connection loss): no renewal
        advance(1_000);
        assertTrue(lease.held(), "1200 ms after the last answered send: held");
        long sent = now.get();
        advance(5);
        lease.renewed(sent);
        advance(1_000);
        assertTrue(lease.held(), "2205 ms after the first send, 1005 ms after the renewal's: held");
        assertTrue(sent - failedSent > 0, "the failed round trip was sent before the answered one");
        advance(495);
        assertFalse(lease.held(), "1500 ms after the renewal's send");
    }

    @Test
    void anOlderAnswerArrivingLateNeverShortensTheLease() {
        long first = now.get();
        advance(300);
        long second = now.get();
        lease.renewed(second);
        lease.renewed(first); // answers may come out of order
        advance(1_400);
        assertTrue(lease.held(), "valid from the later send");
    }

    @Test
    void aShorterSessionGrantedByTheServerShortensTheLease() {
        lease.sessionTimeout(Duration.ofMillis(1_200)); // the server's maxSessionTimeout is below what was asked
        lease.sessionTimeout(Duration.ofMillis(4_000)); // a longer one is ignored: it only delays a takeover
        lease.renewed(now.get());
        advance(699);
        assertTrue(lease.held());
        advance(1);
        assertFalse(lease.held(), "1200 ms - 500 ms margin");
        assertEquals(Duration.ofMillis(700), lease.validity());
    }

    @Test
    void aRevokedLeaseIsNotHeldAndKeepsItsFirstReason() {
        lease.renewed(now.get());
        lease.revoke("another master holds the leadership of cluster c");
        lease.revoke("later");
        lease.renewed(now.get());
        assertFalse(lease.held());
        assertEquals("another master holds the leadership of cluster c", lease.why());
    }

    @Test
    void aMarginAtLeastTheSessionTimeoutIsRefused() {
        assertThrows(IllegalArgumentException.class,
                () -> new Lease("zk:2181", Duration.ofSeconds(2), Duration.ofSeconds(2), now::get));
    }

    @Test
    void sentTimesNearTheWrapOfTheClockCompareByDifference() {
        lease.renewed(at(900)); // past Long.MAX_VALUE: wraps to negative
        advance(2_000);
        assertTrue(lease.held(), "400 ms left");
        advance(400);
        assertFalse(lease.held());
    }
}

package granary.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import granary.master.LeaderLease;
import java.net.URI;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Writes of the API under high availability (docs/ha.md, "The API of a standby"): the real API on
 * a real Jetty and engine; the master side's leadership is a {@link LeaderLease} the test sets
 * (the runtime's comes from granary.master's component).
 */
class LeaderWritesTest {

    private static final URI LEADER = URI.create("http://127.0.0.1:7071");

    /** What the master side says; null: no master side. */
    private final AtomicReference<LeaderLease> lease = new AtomicReference<>();
    private ApiHarness h;

    @AfterEach
    void close() throws Exception {
        if (h != null) {
            h.close();
        }
    }

    private static LeaderLease standby(URI leader) {
        return new LeaderLease() {
            @Override
            public boolean held() {
                return false;
            }

            @Override
            public String why() {
                return "master http://127.0.0.1:7072 is a standby of cluster it"
                        + (leader == null ? " and no leader is known yet" : "; the leader is " + leader);
            }

            @Override
            public URI leader() {
                return leader;
            }
        };
    }

    private int jobs() throws Exception {
        return h.get("/jobs", h.reader).object().getAsJsonArray("items").size();
    }

    @Test
    void aStandbyRedirectsAWriteToTheLeaderAndChangesNothing() throws Exception {
        lease.set(standby(LEADER));
        h = new ApiHarness(null, 1024, lease::get);

        ApiHarness.Reply r = h.send("POST", "/jobs?dryRun=false", h.operator, RestApiTest.WC);

        assertEquals(307, r.status(), r.toString());
        assertEquals("http://127.0.0.1:7071/api/v1/jobs?dryRun=false", r.header("Location"), "the same call, at the leader");
        assertEquals("/api/v1/problems/not-leader", r.object().get("type").getAsString(), r.toString());
        assertTrue(r.object().get("detail").getAsString().startsWith(
                "master http://127.0.0.1:7072 is a standby of cluster it; the leader is http://127.0.0.1:7071; send the write to"), r.toString());
        assertEquals(0, jobs(), "nothing was submitted");
        assertEquals(200, h.get("/status", h.reader).status(), "reads keep working");
        assertEquals(307, h.send("PUT", "/nodes/n1/blacklist", h.operator, null).status(), "every write");
        assertEquals(307, h.call("DELETE", "/jobs/wc", h.operator, null, null).status());
        assertTrue(!h.get("/nodes/n1", h.reader).object().get("state").getAsString().equals("blacklisted"), "n1 was not blacklisted");
    }

    @Test
    void aStandbyThatKnowsNoLeaderAnswers503() throws Exception {
        lease.set(standby(null));
        h = new ApiHarness(null, 1024, lease::get);

        ApiHarness.Reply r = h.send("POST", "/jobs", h.operator, RestApiTest.WC);

        assertEquals(503, r.status(), r.toString());
        assertNull(r.header("Location"));
        assertTrue(r.object().get("detail").getAsString().contains("no leader is known yet"), r.toString());
        assertEquals(0, jobs());
    }

    @Test
    void authenticationAndTheRoleComeFirst() throws Exception {
        lease.set(standby(LEADER));
        h = new ApiHarness(null, 1024, lease::get);

        assertEquals(401, h.send("POST", "/jobs", null, RestApiTest.WC).status(), "no token: 401, not a pointer to the leader");
        assertEquals(403, h.send("POST", "/jobs", h.reader, RestApiTest.WC).status(), "a reader may not write anywhere");
    }

    @Test
    void aWriteDuringWhichTheLeaseLapsedIsNotAcknowledged() throws Exception {
        AtomicInteger checks = new AtomicInteger();
        lease.set(new LeaderLease() {
            @Override
            public boolean held() {
                return checks.getAndIncrement() == 0; // held at the check before, lapsed by the one after (a pause)
            }

            @Override
            public String why() {
                return "the leadership lease lapsed: ZooKeeper at 127.0.0.1:2181 has not answered for 3000 ms";
            }
        });
        h = new ApiHarness(null, 1024, lease::get);

        ApiHarness.Reply r = h.send("POST", "/jobs", h.operator, RestApiTest.WC);

        assertEquals(503, r.status(), "not 201: the master steps down and loses the job: " + r);
        assertTrue(r.object().get("detail").getAsString().contains("lost the lease while it applied the write"), r.toString());
        assertEquals(2, checks.get(), "checked before and after");
    }

    @Test
    void aRuntimeWhoseMasterSideIsNotRunningTakesNoWrite() throws Exception {
        h = new ApiHarness(null, 1024, lease::get); // no lease registered

        assertEquals(503, h.send("POST", "/jobs", h.operator, RestApiTest.WC).status());
        assertEquals(0, jobs());
        lease.set(LeaderLease.ALWAYS); // the master side came up: a single master
        assertEquals(201, h.send("POST", "/jobs", h.operator, RestApiTest.WC).status());
        assertEquals(1, jobs());
    }
}
